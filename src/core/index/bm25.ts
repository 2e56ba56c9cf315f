/**
 * The BM25 index: MiniSearch over title, text and keywords with the shared
 * tokenizer (lower-case regex words, no stemming). The same options must be
 * used to build, serialize and load, so they live here.
 */
import MiniSearch, { type Options } from 'minisearch';
import type { Chunk } from '../model/chunk.js';
import { tokenize } from '../text/tokenize.js';

export interface Bm25Doc {
  id: string;
  title: string;
  text: string;
  keywords: string;
  docId: string;
}

export const BM25_OPTIONS: Options<Bm25Doc> = {
  idField: 'id',
  fields: ['title', 'text', 'keywords'],
  storeFields: ['docId'],
  tokenize: (s) => tokenize(s),
  processTerm: (t) => t,
};

export const toBm25Doc = (c: Pick<Chunk, 'id' | 'title' | 'text' | 'keywords' | 'docId'>): Bm25Doc => ({
  id: c.id,
  title: c.title,
  text: c.text,
  keywords: c.keywords.join(' '),
  docId: c.docId,
});

export function buildBm25(chunks: Pick<Chunk, 'id' | 'title' | 'text' | 'keywords' | 'docId'>[]): MiniSearch<Bm25Doc> {
  const ms = new MiniSearch<Bm25Doc>(BM25_OPTIONS);
  ms.addAll(chunks.map(toBm25Doc));
  return ms;
}

export function loadBm25(json: string): MiniSearch<Bm25Doc> {
  return MiniSearch.loadJSON<Bm25Doc>(json, BM25_OPTIONS);
}
