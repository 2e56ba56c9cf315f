/**
 * Maximal marginal relevance (Carbonell & Goldstein) on the stored embeddings:
 * repeatedly pick the candidate maximising λ·relevance − (1 − λ)·max similarity
 * to the already picked ones. Relevance is the candidate's dense cosine.
 */
import { dot } from '../embedding/similarity.js';
import type { Scored } from './types.js';

export function mmr(candidates: Scored[], vectors: Float32Array, dim: number, lambda: number, k = candidates.length): Scored[] {
  const left = [...candidates];
  const picked: Scored[] = [];
  while (picked.length < k && left.length) {
    let best = -1;
    let bestVal = -Infinity;
    for (let i = 0; i < left.length; i++) {
      const c = left[i]!;
      let red = 0;
      for (const p of picked) {
        const s = dot(vectors.subarray(c.row * dim, (c.row + 1) * dim), vectors, p.row * dim, dim);
        if (s > red) red = s;
      }
      const val = lambda * c.score - (1 - lambda) * red;
      if (val > bestVal + 1e-12 || (Math.abs(val - bestVal) <= 1e-12 && c.row < left[best]!.row)) {
        bestVal = val;
        best = i;
      }
    }
    picked.push({ row: left[best]!.row, score: bestVal });
    left.splice(best, 1);
  }
  return picked;
}
