/**
 * Reciprocal rank fusion (Cormack et al.): score(d) = Σ_lists 1 / (k + rank(d)),
 * ranks 1-based. Ties broken by row so the result is deterministic.
 */
import type { Scored } from './types.js';

export function rrf(lists: Scored[][], k: number, pool: number, weights?: readonly number[]): Scored[] {
  const acc = new Map<number, number>();
  lists.forEach((list, l) => {
    const w = weights?.[l] ?? 1;
    if (w === 0) return;
    list.forEach((c, i) => acc.set(c.row, (acc.get(c.row) ?? 0) + w / (k + i + 1)));
  });
  return [...acc.entries()]
    .map(([row, score]) => ({ row, score }))
    .sort((a, b) => b.score - a.score || a.row - b.row)
    .slice(0, pool);
}
