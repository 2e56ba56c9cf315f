/**
 * Okapi BM25 ranking through MiniSearch. MiniSearch scores BM25+ (a constant
 * `d` added for every matched term) and multiplies each document's score by the
 * number of distinct query terms it matches; both reward documents for matching
 * common words ("the", "what", "is"). Here `d` is 0 and the multiplier is divided
 * out (MiniSearch reports the matched query terms as `queryTerms`), which leaves
 * Okapi BM25: Σ idf(t) · tf·(k1+1) / (tf + k1·(1 − b + b·len/avglen)), with
 * MiniSearch's idf ln(1 + (N − n + 0.5)/(n + 0.5)) (never negative) and its
 * document length, the number of distinct terms.
 */
import type MiniSearch from 'minisearch';
import type { Bm25Doc } from '../index/bm25.js';
import type { Scored } from './types.js';

export interface Bm25Params {
  /** Term-frequency saturation k1 (Okapi: 1.2–2.0; rank_bm25's default 1.5). */
  k1: number;
  /** Length normalisation b (Okapi: 0.75). */
  b: number;
}

export function bm25Search(
  ms: MiniSearch<Bm25Doc>,
  query: string,
  rowOf: Map<string, number>,
  allowed: Uint8Array,
  pool: number,
  params: Bm25Params,
): Scored[] {
  const hits = ms.search(query, { combineWith: 'OR', prefix: false, fuzzy: false, bm25: { k: params.k1, b: params.b, d: 0 } });
  const out: Scored[] = [];
  for (const h of hits) {
    const row = rowOf.get(String(h.id));
    if (row === undefined || !allowed[row]) continue;
    out.push({ row, score: h.score / Math.max(1, h.queryTerms.length) });
  }
  out.sort((a, b) => b.score - a.score || a.row - b.row);
  return out.slice(0, pool);
}
