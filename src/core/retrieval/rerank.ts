/**
 * The reranking interface: a relevance score in [0, 1] per candidate, read from
 * the question and the candidate's text together. Implemented by the
 * cross-encoder (cross-encoder.ts); the engine (engine.ts) blends it with the
 * fused score, and the evidence gate thresholds it.
 */
import { SkyCiteError } from '../errors.js';

/** The cross-encoder's files are missing or broken (cross-encoder.ts); retrieval keeps the fused order. */
export class RerankerLoadError extends SkyCiteError {
  override name = 'RerankerLoadError';
  override readonly code = 'reranker-load';
}

export interface Reranker {
  readonly name: string;
  /** One score per candidate text, same order. */
  score(query: string, candidates: { key: string; text: string }[]): Promise<number[]>;
}
