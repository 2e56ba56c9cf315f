/**
 * The Library's keyword search: title and text of the chunks as printed (not the
 * retrieval index, whose field also holds synthetic questions), with prefix and
 * fuzzy matching for typing, all words required. Built in memory on first use
 * (800 chunks: a fraction of a second).
 */
import MiniSearch from 'minisearch';
import type { Chunk } from '../model/chunk.js';
import { tokenize } from '../text/tokenize.js';

export interface LibraryHit {
  id: string;
  score: number;
  /** The query terms as matched in the chunk (after prefix/fuzzy expansion). */
  terms: string[];
}

export function createLibrarySearch(chunks: readonly Pick<Chunk, 'id' | 'title' | 'text'>[]) {
  const ms = new MiniSearch<{ id: string; title: string; text: string }>({
    idField: 'id',
    fields: ['title', 'text'],
    tokenize: (s) => tokenize(s),
    processTerm: (t) => t,
  });
  ms.addAll(chunks.map((c) => ({ id: c.id, title: c.title, text: c.text })));
  return {
    search(text: string, limit = 30): LibraryHit[] {
      if (!text.trim()) return [];
      return ms
        .search(text, { prefix: true, fuzzy: 0.15, combineWith: 'AND', boost: { title: 2 } })
        .slice(0, limit)
        .map((h) => ({ id: String(h.id), score: h.score, terms: h.terms }));
    },
  };
}
