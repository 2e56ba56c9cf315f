/**
 * The audit record of one Assess run: the operation inputs, every indicator's value with its
 * table cells, model runs and sources (the JSON export document), every retrieval with its
 * context and scores, the retrieval configuration and the models. Pure.
 */
import { renderSummary, toExportDocument } from '../../core/indicators/export';
import { fieldLabel, valueLabel, type OperationField } from '../../core/indicators/inputs';
import type { AssessmentResult } from '../../core/indicators/run';
import type { IndexManifest } from '../../core/index/manifest';
import { DEFAULT_RETRIEVAL_CONFIG } from '../../core/retrieval/config';
import type { AskResult } from '../../runtime/types';
import type { AuditEvidence, AuditRecordInput } from '../../storage/audit-store';
import { auditEvidence, auditModels } from '../../core/ask/audit';
import { describeGenerationModel } from '../../llm/models';

export interface AssessAuditInput {
  result: AssessmentResult;
  /** Every retrieval of the run, in order (retrievalAdapter's log). */
  retrievals: readonly { query: string; result: AskResult }[];
  indexManifestSha: string;
  embeddingModel?: IndexManifest['model'] | null;
  modelBaseUrl?: string | null;
}

/** "Assessment — VLOS / BVLOS: VLOS; Ground environment: …" from the inputs given. */
export function describeOperation(result: AssessmentResult): string {
  const input = result.input;
  const parts = (Object.keys(input) as OperationField[])
    .map((f) => {
      const v = valueLabel(f, input);
      return v === null ? null : `${fieldLabel(f)}: ${v}`;
    })
    .filter((x): x is string => x !== null);
  return `Assessment — ${parts.join('; ')}`;
}

export function buildAssessAuditRecord(input: AssessAuditInput): AuditRecordInput {
  const { result } = input;
  const document = toExportDocument(result);
  const retrievals = input.retrievals.map((r) => ({
    query: r.query,
    context: r.result.retrieval.context,
    evidence: auditEvidence(r.result.retrieval.evidence, r.result.retrieval.trace),
  }));
  const evidence = new Map<string, AuditEvidence>();
  for (const r of retrievals) for (const e of r.evidence) if (!evidence.has(e.id)) evidence.set(e.id, e);
  const cited = document.sources.map((s) => s.id);
  return {
    kind: 'assess',
    question: describeOperation(result),
    subQueries: retrievals.map((r) => r.query),
    // every retrieval of a run uses the runtime's configuration; the defaults only when nothing was retrieved
    retrievalConfig: input.retrievals[0]?.result.config ?? DEFAULT_RETRIEVAL_CONFIG,
    trace: [],
    evidence: [...evidence.values()],
    context: '',
    modelId: result.model?.id ?? null,
    modelParams: null,
    answer: renderSummary(result),
    citedSources: cited,
    grounding: null,
    reasoning: null,
    mode: result.model ? 'generative' : 'evidence-only',
    indexManifestSha: input.indexManifestSha,
    route: null,
    calculator: null,
    models: auditModels(input.embeddingModel, result.model?.id ?? null, (id) => describeGenerationModel(id, input.modelBaseUrl)),
    assessment: { document, retrievals },
  };
}
