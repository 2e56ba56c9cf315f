/** Typed inputs and outputs of the retrieval stages and the trace. */

export interface Scored {
  /** Row of the chunk in the loaded index. */
  row: number;
  score: number;
}

export interface Filters {
  /** Keep chunks of these documents (source ids). */
  docIds?: string[];
  /**
   * Keep chunks of these logical documents (Chunk.documentId): a document agent's
   * retrieval inside its document. Never broadened: a document without evidence is dropped.
   */
  documentIds?: string[];
  /** Keep chunks of these jurisdictions ('EU', 'FR' ...). */
  jurisdictions?: string[];
  /** Keep chunks whose edition contains one of these strings. */
  editions?: string[];
  /** Leave these chunks out (calibration: a question asked without its own passage). */
  excludeIds?: string[];
}

export interface StageTrace {
  stage: string;
  ms: number;
  /** Candidates after this stage, in order, with their scores. */
  candidates: { id: string; score: number }[];
  note?: string;
}

export interface Evidence {
  id: string;
  row: number;
  /** Final score (the elbow's scale). */
  score: number;
  /** Components, for audit. */
  parts: { dense: number; window: number; summary: number; fused: number; keywordHits: number; rerank: number | null };
}

/** What the evidence gate decided, and on which score. */
export interface GateVerdict {
  passed: boolean;
  /** 'rerank': the reranker's relevance score; 'dense': the best cosine; 'off': gate disabled. */
  source: 'rerank' | 'dense' | 'off';
  score: number;
  threshold: number;
  note: string;
}

/** Whether the reranker ran: 'unavailable' (no model) and 'failed' fall back to the fused order. */
export interface RerankStatus {
  state: 'on' | 'off' | 'unavailable' | 'failed';
  note: string;
}

/** A candidate in the final ranking, with what happened to it at the gate. */
export interface RankedCandidate {
  id: string;
  row: number;
  score: number;
  /** True when it is in the evidence; false when the gate, the elbow or the keep limit left it out. */
  kept: boolean;
}

export interface RetrievalResult {
  query: string;
  evidence: Evidence[];
  /** True when nothing passed the thresholds: answer "no evidence". */
  noEvidence: boolean;
  /** The assembled context block with [chunk-id] markers (empty when no evidence). */
  context: string;
  /** Set when the passages in the context come from documents that print different SORA editions (shown with the answer). */
  editionNote?: string;
  /** Filters as requested, and whether the broadening fallback ran. */
  filters: Filters;
  broadened: boolean;
  /** The evidence gate's verdict on the last attempt (absent when nothing was retrieved). */
  gate?: GateVerdict;
  /**
   * The candidates of the last attempt in their final order (reranked, or post-scored), before the
   * gate, the elbow and the keep limit cut them: what the document agents read the flat ranking from.
   */
  ranked: RankedCandidate[];
  /** Every attempt's gate verdict, in order: the requested filters, then the broadened ones when that ran. */
  gates: GateVerdict[];
  /** The reranker's state for this query (the app's status line says when it fell back). */
  rerank?: RerankStatus;
  trace: StageTrace[];
  totalMs: number;
}
