/**
 * Dense retrieval over passage windows: each chunk scores the best cosine of its
 * windows with the query (a sentence-level MaxSim over precomputed window
 * embeddings), so a question can meet the one passage that answers it.
 */
import type { MultiVectors } from '../index/load.js';
import { dot } from '../embedding/similarity.js';
import type { Scored } from './types.js';

export interface WindowScorer {
  /** Best window cosine per allowed chunk, top-k chunks. */
  search(query: Float32Array, k: number, allowed: Uint8Array): Scored[];
  /** Best window of one chunk: its index and cosine. */
  best(query: Float32Array, row: number): { window: number; score: number };
}

/** Works for any set of vectors grouped by chunk: passage windows, synthetic questions. */
export function windowScorer(w: MultiVectors, dim: number, chunkCount: number): WindowScorer {
  // vectors are stored grouped by chunk, in order
  const first = new Int32Array(chunkCount).fill(-1);
  const last = new Int32Array(chunkCount).fill(-2);
  for (let i = 0; i < w.count; i++) {
    const r = w.row[i]!;
    if (first[r] === -1) first[r] = i;
    last[r] = i;
  }
  const best = (q: Float32Array, row: number) => {
    let bw = -1;
    let bs = -Infinity;
    for (let i = first[row]!; i >= 0 && i <= last[row]!; i++) {
      const s = dot(q, w.vectors, i * dim, dim);
      if (s > bs) {
        bs = s;
        bw = i;
      }
    }
    return { window: bw, score: bw < 0 ? -1 : bs };
  };
  return {
    best,
    search(q, k, allowed) {
      const out: Scored[] = [];
      for (let row = 0; row < chunkCount; row++) {
        if (!allowed[row] || first[row]! < 0) continue;
        out.push({ row, score: best(q, row).score });
      }
      out.sort((a, b) => b.score - a.score || a.row - b.row);
      return out.slice(0, k);
    },
  };
}
