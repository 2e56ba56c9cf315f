/**
 * The audit record of one Requirements draft: the description, the documents the agents
 * consulted (kept or dropped, and why), every candidate requirement with its source, the
 * Markdown rendering as the answer, and the models. Evidence-only drafts call no model.
 * The draft carries no retrieval scores, so `evidence` stays empty; the sources are in
 * `citedSources` and in the draft itself. Pure.
 */
import { draftToMarkdown, type RequirementDraft } from '../../core/agents/requirements';
import { modelDraftToMarkdown, type ModelDraft } from '../../core/agents/requirements-model';
import type { IndexManifest } from '../../core/index/manifest';
import { DEFAULT_RETRIEVAL_CONFIG, type RetrievalConfig } from '../../core/retrieval/config';
import type { AuditRecordInput } from '../../storage/audit-store';
import { auditModels } from '../../core/ask/audit';
import { describeGenerationModel } from '../../llm/models';

export interface RequirementsAuditInput {
  draft: RequirementDraft;
  /** The model's draft from the same passages (then the record is generative and its answer is the model's list). */
  modelDraft?: { draft: ModelDraft; modelId: string } | null;
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
    modelId: input.modelDraft?.modelId ?? null,
    modelParams: null,
    // rendered without the description: it is the record's question, which the user may keep out of the log
    answer: input.modelDraft ? modelDraftToMarkdown({ ...input.modelDraft.draft, description: '' }) : draftToMarkdown({ ...draft, query: '' }),
    // the passages the list shows as sources: the model's citations, or those the source check added when it cited none
    citedSources: input.modelDraft
      ? [...new Set(input.modelDraft.draft.requirements.flatMap((r) => (r.citations.length ? r.citations : r.attributed)))]
      : [...new Set(draft.requirements.map((r) => r.source.chunkId))],
    grounding: null,
    reasoning: null,
    mode: input.modelDraft ? 'generative' : draft.mode,
    indexManifestSha: input.indexManifestSha,
    route: null,
    calculator: null,
    models: auditModels(input.embeddingModel, input.modelDraft?.modelId ?? null, (id) => describeGenerationModel(id, input.modelBaseUrl)),
    requirements: { draft, ...(input.modelDraft ? { modelDraft: input.modelDraft.draft } : {}) },
  };
}
