/**
 * Field-aware post-scoring (SKYSAFE §2.6.1) of the fused pool: a weighted blend
 * of the fused score (rescaled to [0, 1] within the pool), the query's cosine
 * with the chunk's retrieval vector and with its summary vector, and a low-gain
 * keyword boost (chunk keywords found as substrings of the lower-cased query).
 */
import type { RetrievalConfig } from './config.js';
import { dot } from '../embedding/similarity.js';
import type { Scored } from './types.js';

export interface PostScoreInput {
  query: Float32Array;
  queryLower: string;
  vectors: Float32Array;
  summaryVectors: Float32Array;
  dim: number;
  keywordsOf: (row: number) => string[];
  /** Best passage-window cosine of a chunk. */
  windowScore: (row: number) => number;
}

export interface PostScored extends Scored {
  dense: number;
  summary: number;
  window: number;
  fused: number;
  keywordHits: number;
}

/** The weights of the config's postScore block (documented there with their defaults). */
export type PostScoreWeights = Omit<RetrievalConfig['postScore'], 'enabled'>;

export function keywordHits(keywords: string[], queryLower: string): number {
  let n = 0;
  for (const k of keywords) if (k && queryLower.includes(k.toLowerCase())) n++;
  return n;
}

export function postScore(fusedPool: Scored[], input: PostScoreInput, w: PostScoreWeights, enabled = true): PostScored[] {
  const max = Math.max(...fusedPool.map((c) => c.score), 1e-12);
  const min = Math.min(...fusedPool.map((c) => c.score));
  const span = max - min || 1;
  const out = fusedPool.map((c) => {
    const dense = dot(input.query, input.vectors, c.row * input.dim, input.dim);
    const summary = dot(input.query, input.summaryVectors, c.row * input.dim, input.dim);
    const fused = fusedPool.length > 1 ? (c.score - min) / span : 1;
    const window = input.windowScore(c.row);
    const hits = Math.min(keywordHits(input.keywordsOf(c.row), input.queryLower), w.keywordCap);
    const score = enabled ? w.fused * fused + w.dense * dense + w.window * window + w.summary * summary + w.keyword * hits : c.score;
    return { row: c.row, score, dense, summary, window, fused, keywordHits: hits };
  });
  return out.sort((a, b) => b.score - a.score || a.row - b.row);
}
