/**
 * What one Ask turn's retrieval returns, and the port the turn reads it through. The same
 * interface is served in process (Node CLIs, evaluations, tests) and by the runtime worker.
 */
import type { Chunk } from '../model/chunk.js';
import type { RetrievalConfig, RetrievalConfigOverrides } from '../retrieval/config.js';
import type { Filters, RetrievalResult } from '../retrieval/types.js';
import type { EvidenceOnlyAnswer } from '../answer/evidence-only.js';
import type { GroundingReport, GroundingSubject } from '../answer/grounding.js';

/** The documents do not hold the rule the question is about: where it likely lives, said before the closest passages. */
export interface ScopeVerdict {
  /** The sentence shown first, e.g. "Regulation (EU) 2019/947, Part A of the Annex (UAS.OPEN) — not included in these documents." */
  message: string;
  /** The instrument's label and where it lives. */
  instrument: string;
  location: string;
}

export interface AskResult {
  retrieval: RetrievalResult;
  /** The configuration this retrieval ran with (the base configuration with the call's overrides). */
  config: RetrievalConfig;
  /** The evidence chunks, in rank order (so the UI can render without another round trip). */
  chunks: Chunk[];
  /**
   * The documents the document agents consulted for this question (top 3 from the summary
   * index and the hits they own), why, and whether each was kept or dropped at the evidence gate.
   * Absent when the caller asked for the flat retrieval only (`agents: false`).
   */
  documents?: ConsultedDocuments;
}

export interface ConsultedDocuments {
  mode: 'summary' | 'fact';
  /** Set when the kept documents print different SORA editions. */
  editionNote: string | null;
  consulted: {
    id: string;
    title: string;
    edition: string;
    pages: string;
    rank: number;
    /** Why it was searched, with the figures (technical detail). */
    reason: string;
    /** The same in plain words, and whether it was used (absent in conversations stored before it). */
    why?: string;
    kept: boolean;
    /** Its agent's evidence passages, best first (empty when dropped). */
    evidenceIds: string[];
    /** Its extractive refined context (a header, then its best passage windows with `[chunk-id]`). */
    refined: string;
  }[];
  /** The kept documents' evidence merged (the agents' ranking), and its chunks in the same order. */
  evidence: RetrievalResult['evidence'];
  chunks: Chunk[];
  /** The kept documents' refined contexts, one block per document. */
  context: string;
}

export interface RetrieveRequest {
  filters?: Filters;
  config?: RetrievalConfigOverrides;
  /** Other formulations of the question (model-assisted retrieval), searched besides it. */
  alternatives?: { text: string; label: string }[];
  /** Run the document agents too (default true); false gives the flat retrieval only. */
  agents?: boolean;
}

/** The retrieval side of a turn: evidence, the coverage decision, the evidence-only composition and the grounding check. */
export interface AskRetrieval {
  retrieve(query: string, request?: RetrieveRequest): Promise<AskResult>;
  /**
   * THE door of "not in these documents" (core/ask/scope.ts): whether the rule asked about lives in an
   * instrument these documents do not hold, decided on what was searched and its retrieval (the query's
   * vector is reused when the retrieval just embedded it). Null: it may be answered here, or no coverage
   * data is bound to this index.
   */
  coverage(query: string, result: AskResult): Promise<ScopeVerdict | null>;
  evidenceOnly(question: string, result: AskResult): Promise<EvidenceOnlyAnswer>;
  /** Free text with `[chunk-id]` markers, or structured claims with their sources. */
  checkGrounding(answer: GroundingSubject, contextChunkIds: string[]): Promise<GroundingReport>;
}
