/**
 * The audit record of one answered question, from what the Ask view produced. Pure.
 */
import type { AnswerResult } from '../../core/answer/generation';
import type { EvidenceOnlyAnswer } from '../../core/answer/evidence-only';
import type { GroundingReport } from '../../core/answer/grounding';
import { NO_ANSWER_TEXT } from '../../core/answer/prompts';
import { hasNoContext } from '../../core/answer/no-context';
import { DEFAULT_RETRIEVAL_CONFIG, type RetrievalConfig } from '../../core/retrieval/config';
import { jurisdictionName } from '../../core/assess/jurisdictions';
import { isEasaJurisdiction } from '../../core/retrieval/filters';
import type { Filters, RetrievalResult } from '../../core/retrieval/types';
import type { AnswerMode, AuditRecordInput } from '../../storage/audit-store';

export interface AuditInput {
  question: string;
  /** The query sent to retrieval when it differs from the question (follow-ups). */
  retrievalQuery: string;
  retrieval: RetrievalResult;
  mode: AnswerMode;
  answer?: AnswerResult | null;
  evidence?: EvidenceOnlyAnswer | null;
  grounding?: GroundingReport | null;
  indexManifestSha: string;
  /** The configuration retrieval ran with (the runtime does not report it; defaults). */
  retrievalConfig?: RetrievalConfig;
}

export function buildAuditRecord(input: AuditInput): AuditRecordInput {
  const r = input.retrieval;
  const none = hasNoContext(r);
  const generative = input.mode === 'generative' && input.answer;
  const answerText = none ? NO_ANSWER_TEXT : generative ? input.answer!.answer : (input.evidence?.text ?? NO_ANSWER_TEXT);
  const cited = none ? [] : generative ? [...input.answer!.citations] : (input.evidence?.passages.map((p) => p.id) ?? []);
  return {
    question: input.question,
    subQueries: input.retrievalQuery && input.retrievalQuery !== input.question ? [input.retrievalQuery] : [],
    retrievalConfig: input.retrievalConfig ?? DEFAULT_RETRIEVAL_CONFIG,
    trace: r.trace,
    evidence: r.evidence.map((e) => ({ id: e.id, score: e.score })),
    context: r.context,
    modelId: generative ? input.answer!.modelId : null,
    modelParams: generative ? input.answer!.params : null,
    answer: answerText,
    citedSources: cited,
    grounding: generative ? (input.grounding ?? input.answer!.grounding ?? null) : null,
    reasoning: generative ? input.answer!.reasoning || null : null,
    mode: input.mode,
    indexManifestSha: input.indexManifestSha,
  };
}

/** Why retrieval found nothing, in words (from the retrieval trace). */
export function noEvidenceReason(r: Pick<RetrievalResult, 'trace' | 'broadened' | 'evidence'> & { filters?: Filters }): string {
  const foreign = (r.filters?.jurisdictions ?? []).filter((j) => !isEasaJurisdiction(j));
  if (foreign.length && !(r.filters?.jurisdictions ?? []).some(isEasaJurisdiction)) {
    return `The question is about ${foreign.map(jurisdictionName).join(', ')}, where the EU drone rules indexed here do not apply, so no passage answers it. Consult that country’s aviation authority; ask here about EU/EASA rules.`;
  }
  const notes = r.trace.map((t) => t.note).filter((n): n is string => !!n && /no evidence/.test(n));
  const parts = ['No passage of the indexed documents is similar enough to the question to be used as evidence, so no answer is composed.'];
  if (notes.length) parts.push(`Retrieval: ${notes.join('; ')}.`);
  if (r.broadened) parts.push('The search was already broadened beyond the requested filters.');
  parts.push('Rephrase the question with the regulation’s terms (for example "operational authorisation", "SAIL", "OSO"), or browse the Library.');
  return parts.join(' ');
}
