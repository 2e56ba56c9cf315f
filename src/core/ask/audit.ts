/**
 * The audit record of one Ask turn, from what the turn produced. Pure.
 */
import type { AnswerResult, QuotedResult, StructuredAnswer } from '../answer/generation.js';
import type { QuotedAnswer } from '../answer/quotes.js';
import { stripCitations } from '../answer/citations.js';
import { splitSentences } from '../text/sentences.js';
import type { EvidenceOnlyAnswer } from '../answer/evidence-only.js';
import type { GroundingReport } from '../answer/grounding.js';
import { NO_ANSWER_TEXT } from '../answer/prompts.js';
import { hasNoContext } from '../answer/no-context.js';
import type { RouteDecision } from '../route/router.js';
import type { IndexManifest } from '../index/manifest.js';
import type { RetrievalConfig } from '../retrieval/config.js';
import { jurisdictionName } from '../route/jurisdictions.js';
import { isEasaJurisdiction } from '../retrieval/filters.js';
import type { Evidence, Filters, RetrievalResult, StageTrace } from '../retrieval/types.js';
import { alternativesFrom, type QueryAssistance } from '../answer/query-assist.js';
import type { AnswerMode, AuditCalculator, AuditEvidence, AuditModels, AuditRecord, AuditRecordInput, AuditRoute } from './audit-record.js';
import type { CalcOutcome } from '../sora/message-calc.js';
import type { CondensedContext } from '../agents/condense.js';
import { USER_DOCUMENT_ID_PREFIX } from '../userdocs/validate.js';

/** A passage of the user's own documents (their ids are under user/, never a built-in document's). */
const isUserDocumentChunkId = (id: string): boolean => id.startsWith(USER_DOCUMENT_ID_PREFIX);

export interface AuditInput {
  question: string;
  /** The query sent to retrieval when it differs from the question (follow-ups). */
  retrievalQuery: string;
  retrieval: RetrievalResult;
  /** The configuration retrieval ran with (AskResult.config). */
  retrievalConfig: RetrievalConfig;
  mode: AnswerMode;
  answer?: AnswerResult | null;
  evidence?: EvidenceOnlyAnswer | null;
  grounding?: GroundingReport | null;
  indexManifestSha: string;
  route?: RouteDecision | null;
  calc?: CalcOutcome | null;
  /** The index manifest's model entry (the embedding model), when the index is loaded. */
  embeddingModel?: IndexManifest['model'] | null;
  /** The loaded generation model id (generative mode). */
  generationModelId?: string | null;
  /** Where the generation model's files came from (the model layer resolves its id; null when unknown). */
  describeModel?: ModelDescriber;
  /** Model-assisted retrieval's reply, when it was used. */
  assistance?: QueryAssistance | null;
  /** The documents' contexts as the model condensed them, when the answer was written from them. */
  condensed?: readonly CondensedContext[] | null;
  /** Set when the question's rule lives in an instrument the documents do not hold. */
  scope?: { message: string; instrument: string; location: string } | null;
}

/** Rank and score of a passage in every stage of the trace that lists it. */
export function stageScores(trace: readonly StageTrace[], id: string): AuditEvidence['stages'] {
  const out: NonNullable<AuditEvidence['stages']> = [];
  for (const t of trace) {
    const i = t.candidates.findIndex((c) => c.id === id);
    if (i >= 0) out.push({ stage: t.stage, rank: i + 1, score: t.candidates[i]!.score });
  }
  return out;
}

/** Evidence entries with their score components and per-stage ranks and scores. */
export function auditEvidence(evidence: readonly Evidence[], trace: readonly StageTrace[]): AuditEvidence[] {
  return evidence.map((e) => ({ id: e.id, score: e.score, parts: { ...e.parts }, stages: stageScores(trace, e.id) }));
}

export function auditRoute(route: RouteDecision | null | undefined): AuditRoute | null {
  if (!route) return null;
  return { path: route.path, confidence: route.confidence, jurisdictions: [...route.jurisdictions], reasoning: route.reasoning };
}

export function auditCalculator(calc: CalcOutcome | null | undefined): AuditCalculator | null {
  if (!calc) return null;
  return {
    inputs: JSON.parse(JSON.stringify(calc.params)) as Record<string, unknown>,
    readings: [...calc.readings],
    items: calc.items.map((i) => ({
      target: i.target,
      label: i.label,
      status: i.status,
      value: i.value,
      cells: i.trace.map((t) => ({ ...t })),
      missing: [...i.missing],
      reason: i.reason,
      notes: [...i.notes],
    })),
  };
}

/** The generation model's weights and library URLs (and source) for an id; the model layer (src/llm) provides it. */
export type ModelDescriber = (id: string) => AuditModels['generation'];

/** The models behind an answer: the embedding model (from the index manifest) and the generation model. */
export function auditModels(
  embedding: IndexManifest['model'] | null | undefined,
  generationModelId: string | null | undefined,
  describe?: ModelDescriber,
): AuditModels {
  return {
    embedding: embedding ? { id: embedding.id, dtype: embedding.dtype, sha256: embedding.sha256 } : null,
    generation: generationModelId ? (describe?.(generationModelId) ?? { id: generationModelId, weightsUrl: null, libraryUrl: null }) : null,
  };
}

/** A structured answer for the audit record: each verified claim with the check's verdict (one report sentence per claim). */
function auditStructured(s: StructuredAnswer, report: GroundingReport | null): NonNullable<AuditRecord['structuredAnswer']> {
  const sentences = report && report.sentences.length === s.claims.length ? report.sentences : null;
  return {
    raw: s.raw,
    modelClaims: s.modelClaims.map((c) => ({ text: c.text, sources: [...c.sources] })),
    claims: s.claims.map((c, i) => ({
      text: c.text,
      sources: [...c.sources],
      supported: sentences?.[i]?.supported ?? null,
      reason: sentences?.[i]?.reason ?? 'not checked',
    })),
    notInPassages: s.notInPassages,
    refused: s.refused,
    problem: s.problem,
    ...(s.pruned.length ? { pruned: s.pruned.map((p) => ({ sentence: p.sentence, ids: [...p.ids] })) } : {}),
  };
}

/** A quoted answer for the audit record: the quotes, the lead as shown and what was dropped, and the claim counts. */
function auditQuoted(quoted: QuotedAnswer, result: QuotedResult | null): NonNullable<AuditRecord['quotedAnswer']> {
  const lead = result?.lead ?? null;
  const leadSentences = lead ? splitSentences(lead) : [];
  const keys = [...quoted.quotes.map((q) => q.text), ...leadSentences.map(stripCitations)].map((t) => t.toLowerCase().replace(/\W+/g, ' ').trim());
  const distinct = new Set(keys).size;
  return {
    quotes: quoted.quotes.map((q) => ({ chunkId: q.chunkId, unit: q.n, score: q.score, amendment: q.amendment })),
    gap: quoted.gap,
    lead,
    leadDropped: result?.leadDropped ?? null,
    leadTrimmed: result?.leadTrimmed ?? 0,
    claims: { quoted: quoted.quotes.length, written: leadSentences.length, distinct, repeated: keys.length - distinct },
  };
}

export function buildAuditRecord(input: AuditInput): AuditRecordInput {
  const r = input.retrieval;
  const none = hasNoContext(r);
  const generative = input.mode === 'generative' && input.answer;
  const answerText = input.scope ? input.scope.message : none ? NO_ANSWER_TEXT : generative ? input.answer!.answer : (input.evidence?.text ?? NO_ANSWER_TEXT);
  const cited = none ? [] : generative ? [...input.answer!.citations] : (input.evidence?.passages.map((p) => p.id) ?? []);
  const modelId = generative ? input.answer!.modelId : null;
  return {
    kind: 'ask',
    question: input.question,
    subQueries: input.retrievalQuery && input.retrievalQuery !== input.question ? [input.retrievalQuery] : [],
    retrievalConfig: input.retrievalConfig,
    trace: r.trace,
    evidence: auditEvidence(r.evidence, r.trace),
    context: r.context,
    modelId,
    modelParams: generative ? input.answer!.params : null,
    answer: answerText,
    citedSources: cited,
    ...(cited.some(isUserDocumentChunkId) ? { userDocumentSources: cited.filter(isUserDocumentChunkId) } : {}),
    ...(generative && input.answer!.attributed.length
      ? {
          attributedSources: input.answer!.attributed.map(({ id, sentence, replaced }) => ({ id, sentence, ...(replaced ? { replaced: [...replaced] } : {}) })),
        }
      : {}),
    ...(generative && input.answer!.structured
      ? { structuredAnswer: auditStructured(input.answer!.structured, input.grounding ?? input.answer!.grounding) }
      : {}),
    ...(input.evidence?.quoted ? { quotedAnswer: auditQuoted(input.evidence.quoted, generative ? input.answer!.quoted : null) } : {}),
    grounding: generative ? (input.grounding ?? input.answer!.grounding ?? null) : null,
    reasoning: generative ? input.answer!.reasoning || null : null,
    mode: input.mode,
    indexManifestSha: input.indexManifestSha,
    route: auditRoute(input.route),
    calculator: auditCalculator(input.calc),
    models: auditModels(input.embeddingModel, generative ? (input.generationModelId ?? modelId) : null, input.describeModel),
    assistance: input.assistance ? { parsed: input.assistance.parsed, alternatives: alternativesFrom(input.assistance), raw: input.assistance.raw } : null,
    ...(input.scope ? { scope: { ...input.scope } } : {}),
    ...(generative && input.condensed
      ? {
          answerContext: {
            source: 'condensed documents' as const,
            documents: input.condensed.map((c) => ({
              documentId: c.documentId,
              mode: c.mode,
              reason: c.reason,
              notes: c.statements.map((n) => ({ text: n.statement, citations: [...n.citations] })),
              dropped: c.dropped.length,
            })),
          },
        }
      : {}),
  };
}

/** Why retrieval found nothing, in words (from the retrieval trace). */
export function noEvidenceReason(r: Pick<RetrievalResult, 'trace' | 'broadened' | 'evidence'> & { filters?: Filters }): string {
  const foreign = (r.filters?.jurisdictions ?? []).filter((j) => !isEasaJurisdiction(j));
  if (foreign.length && !(r.filters?.jurisdictions ?? []).some(isEasaJurisdiction)) {
    return `The question is about ${foreign.map(jurisdictionName).join(', ')}, where the EU drone rules indexed here do not apply, so no passage answers it. Consult that country’s aviation authority; ask here about EU/EASA rules.`;
  }
  const parts = ['No passage of the indexed documents is similar enough to the question to be used as evidence, so no answer is composed.'];
  if (r.broadened) parts.push('The search was already broadened beyond the requested filters.');
  parts.push('Rephrase the question with the regulation’s terms (for example "operational authorisation", "SAIL", "OSO"), or browse the Library.');
  return parts.join(' ');
}

/** The retrieval's own figures on why nothing was kept (each attempt's gate), for the technical detail and the audit record. */
export function noEvidenceDetail(r: Pick<RetrievalResult, 'gates'>): string {
  return r.gates
    .filter((g) => !g.passed)
    .map((g) => `gate ${g.note}: no evidence`)
    .join('; ');
}
