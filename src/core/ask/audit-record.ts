/**
 * The audit record of one answer, assessment or requirements draft: what was asked, how it was
 * routed and retrieved, what the model was given and answered. Data only (the Ask turn builds it,
 * src/storage/audit-store.ts keeps it); fields added after the first exports are optional.
 */
import type { GenerationParams } from '../llm/engine.js';
import type { GroundingReport } from '../answer/grounding.js';
import type { RequirementDraft } from '../agents/requirements.js';
import type { ModelDraft } from '../agents/requirements-model.js';
import type { ExportDocument } from '../indicators/export.js';
import type { RoutePath } from '../route/router.js';
import type { TraceStep } from '../sora/types.js';
import type { RetrievalConfig } from '../retrieval/config.js';
import type { Evidence, StageTrace } from '../retrieval/types.js';

export type AnswerMode = 'generative' | 'evidence-only';

export interface AuditEvidence {
  /** Chunk id. */
  id: string;
  /** Final score (the one evidence was ranked and cut on). */
  score: number;
  /** Score components (dense, window, summary, fused, keyword hits, reranker); absent in records before they were kept. */
  parts?: Evidence['parts'];
  /** Rank (1-based) and score of the passage in every retrieval stage whose candidate list holds it. */
  stages?: AuditStageScore[];
}

export interface AuditStageScore {
  stage: string;
  rank: number;
  score: number;
}

/** How the router sent the question (Ask). */
export interface AuditRoute {
  path: RoutePath;
  confidence: number;
  jurisdictions: string[];
  reasoning: string;
}

/** One calculator output of an Ask turn, with the table cells it was read from. */
export interface AuditCalcItem {
  target: string;
  label: string;
  status: string;
  value: string | null;
  /** Table cells (or printed rules) the value was read from, in order. */
  cells: TraceStep[];
  missing: string[];
  reason: string | null;
  notes: string[];
}

/** The SORA calculator's part of an Ask turn: what it read from the message and what it computed. */
export interface AuditCalculator {
  /** Parameters after merging a follow-up with the previous turn's (e.g. dimensionM, population, residualArc). */
  inputs: Record<string, unknown>;
  /** What was read from the message, in words. */
  readings: string[];
  items: AuditCalcItem[];
}

/** The models behind an answer: the embedding model (from the index manifest) and the generation model. */
export interface AuditModels {
  embedding: { id: string; dtype: string; sha256: string } | null;
  /**
   * WebLLM model id with the weights' repository and the compiled library (whose path carries
   * WebLLM's model version). WebLLM publishes no hash of the weights, so none is recorded.
   */
  generation: { id: string; weightsUrl: string | null; libraryUrl: string | null; source?: 'self-hosted' | 'remote' } | null;
}

/** Model-assisted retrieval: the formulations the model wrote, searched besides the question. */
export interface AuditAssistance {
  /** False when the model's reply could not be used (then only the question was searched). */
  parsed: boolean;
  alternatives: { text: string; label: string }[];
  /** The model's raw reply. */
  raw: string;
}

/**
 * The answer was written from the document agents' contexts condensed by the model (Settings →
 * "Answer from the consulted documents"): per document, whether the model's notes or its best passages
 * were used and why, and the notes kept (each held to its passage by the source check). Dropped notes
 * are counted, not stored: the model may have restated the question in them.
 */
export interface AuditAnswerContext {
  source: 'condensed documents';
  documents: { documentId: string; mode: 'model' | 'extractive'; reason: string; notes: { text: string; citations: string[] }[]; dropped: number }[];
}

/** What an Assess run produced and read. */
export interface AuditAssessment {
  /** The assessment as the JSON export writes it (inputs, results with table cells, runs, sources, coherence). */
  document: ExportDocument;
  /** Every retrieval the run made: the indicator's query, the context block it produced and its evidence with scores. */
  retrievals: { query: string; context: string; evidence: AuditEvidence[] }[];
}

/** What a Requirements draft produced: the draft as its JSON export writes it (documents consulted, candidate requirements with their sources). */
export interface AuditRequirements {
  draft: RequirementDraft;
  /** The model's candidates from the same passages, each with the source check's verdict (absent for evidence-only drafts). */
  modelDraft?: ModelDraft;
}

export interface AuditRecord {
  id: string;
  /** 'ask' (a question in the Ask view), 'assess' (an Assess run) or 'requirements' (a Requirements draft); absent in records before Assess was audited = 'ask'. */
  kind?: AuditKind;
  /** ISO 8601, UTC (`Date.prototype.toISOString`). */
  time: string;
  /** The user's question, or null when the user chose to keep questions out of the log. */
  question: string | null;
  /** Sub-queries derived from the question (emptied with the question: they restate it). */
  subQueries: string[];
  /** The retrieval configuration the answer was retrieved with (records before this was kept hold the defaults). */
  retrievalConfig: RetrievalConfig;
  trace: StageTrace[];
  evidence: AuditEvidence[];
  /** The context block exactly as given to the model (or shown, in evidence-only mode). */
  context: string;
  /** WebLLM model id; null in evidence-only mode. */
  modelId: string | null;
  /** Generation parameters (AnswerResult.params); null in evidence-only mode. */
  modelParams: GenerationParams | null;
  answer: string;
  /** Chunk ids the answer cites, in order of first appearance (AnswerResult.citations). */
  citedSources: string[];
  /** Of the cited sources, the passages of the user's own documents (not regulation); absent in older records and when none. */
  userDocumentSources?: string[];
  /**
   * Of the cited sources, those the grounding check added to sentences the model left uncited, or put in place of a
   * structured claim's sources that do not support it (`replaced`: the chunks the model cited) (attribution.ts); absent in
   * older records and when none.
   */
  attributedSources?: { id: string; sentence: string; replaced?: string[] }[];
  /**
   * A structured answer (answer/structured.ts): the model's JSON as written, its claims as it cited them and as
   * verified (re-attributions applied), what it said the passages do not cover, and why the JSON was incomplete;
   * absent for free-form answers and in older records.
   */
  structuredAnswer?: {
    raw: string;
    modelClaims: { text: string; sources: string[] }[];
    claims: { text: string; sources: string[]; supported: boolean | null; reason: string }[];
    notInPassages: string | null;
    refused: boolean;
    problem: string | null;
    /** Citations the check took off supported claims (they support them neither alone nor together); absent in older records. */
    pruned?: { sentence: string; ids: string[] }[];
  };
  /**
   * A quoted answer (answer/quotes.ts), with a model or without: each quotation (passage, unit, ranker score), the
   * lead the model wrote and what became of it, and the measures of issue 32 (claims quoting a unit vs written,
   * distinct and repeated); absent for other answer forms and in older records.
   */
  quotedAnswer?: {
    quotes: { chunkId: string; unit: number; score: number; amendment: 'read' | null }[];
    gap: boolean;
    lead: string | null;
    leadDropped: string | null;
    leadTrimmed: number;
    claims: { quoted: number; written: number; distinct: number; repeated: number };
  };
  /** The grounding check's report (AnswerResult.grounding); null when not run (evidence-only, failure). */
  grounding: GroundingReport | null;
  /** The model's reasoning trace (audit only, never evidence); null or '' when none. */
  reasoning: string | null;
  mode: AnswerMode;
  /** SHA-256 of the static index manifest the answer was retrieved from. */
  indexManifestSha: string;
  /** The router's decision (Ask); absent in older records and for Assess runs. */
  route?: AuditRoute | null;
  /** Calculator inputs and results with their table cells (Ask, when the router used the calculator). */
  calculator?: AuditCalculator | null;
  /** Embedding and generation models; absent in older records. */
  models?: AuditModels;
  /** The Assess run (kind 'assess'). */
  assessment?: AuditAssessment | null;
  /** The Requirements draft (kind 'requirements'); its query is emptied with the question. */
  requirements?: AuditRequirements | null;
  /** Model-assisted retrieval (Ask with a model loaded); null when not used, absent in older records. Emptied with the question. */
  assistance?: AuditAssistance | null;
  /** Set when the answer's context was the condensed documents' (null or absent: the retrieval's passages). */
  answerContext?: AuditAnswerContext | null;
  /** Set when the question's rule lives in an instrument the documents do not hold (said first; no model call); absent in older records. */
  scope?: { message: string; instrument: string; location: string } | null;
}

export type AuditKind = 'ask' | 'assess' | 'requirements';

/** What the caller provides; id and time are filled in when absent. */
export type AuditRecordInput = Omit<AuditRecord, 'id' | 'time'> & { id?: string; time?: string };
