/** BM25 retrieval through MiniSearch over title, text and keywords. */
import type MiniSearch from 'minisearch';
import type { Bm25Doc } from '../index/bm25.js';
import type { Scored } from './types.js';

export function bm25Search(
  ms: MiniSearch<Bm25Doc>,
  query: string,
  rowOf: Map<string, number>,
  allowed: Uint8Array,
  pool: number,
  boost: { title: number; text: number; keywords: number },
): Scored[] {
  const hits = ms.search(query, { boost, combineWith: 'OR', prefix: false, fuzzy: false });
  const out: Scored[] = [];
  for (const h of hits) {
    const row = rowOf.get(String(h.id));
    if (row === undefined || !allowed[row]) continue;
    out.push({ row, score: h.score });
  }
  out.sort((a, b) => b.score - a.score || a.row - b.row);
  return out.slice(0, pool);
}
