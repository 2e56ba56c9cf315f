/**
 * The audit record of one Requirements draft: the description, the documents the agents
 * consulted (kept or dropped, and why), every candidate requirement with its source, the
 * Markdown rendering as the answer, and the models. Evidence-only drafts call no model.
 * The draft carries no retrieval scores, so `evidence` stays empty; the sources are in
 * `citedSources` and in the draft itself. Pure.
 */
import { draftToMarkdown, type RequirementDraft } from '../../core/answer/requirements';
import type { IndexManifest } from '../../core/index/manifest';
import { DEFAULT_RETRIEVAL_CONFIG, type RetrievalConfig } from '../../core/retrieval/config';
import type { AuditRecordInput } from '../../storage/audit-store';
import { auditModels } from '../ask/audit';

export interface RequirementsAuditInput {
  draft: RequirementDraft;
  indexManifestSha: string;
  /** The configuration the runtime retrieves with (the defaults when unknown). */
  retrievalConfig?: RetrievalConfig | null;
  embeddingModel?: IndexManifest['model'] | null;
  modelBaseUrl?: string | null;
}

export function buildRequirementsAuditRecord(input: RequirementsAuditInput): AuditRecordInput {
  const { draft } = input;
  return {
    kind: 'requirements',
    question: draft.query,
    subQueries: [],
    retrievalConfig: input.retrievalConfig ?? DEFAULT_RETRIEVAL_CONFIG,
    trace: [],
    evidence: [],
    context: '',
    modelId: null,
    modelParams: null,
    answer: draftToMarkdown(draft),
    citedSources: [...new Set(draft.requirements.map((r) => r.source.chunkId))],
    grounding: null,
    reasoning: null,
    mode: draft.mode,
    indexManifestSha: input.indexManifestSha,
    route: null,
    calculator: null,
    models: auditModels(input.embeddingModel, null, input.modelBaseUrl),
    requirements: { draft },
  };
}
