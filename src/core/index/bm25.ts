/**
 * The BM25 index: MiniSearch over one field, the chunk's retrieval string
 * ("title title. text", SKYSAFE §2.4) followed by the chunk's synthetic questions
 * when the build has them (doc2query-style document expansion), with the shared
 * tokenizer (lower-case regex words, no stemming, no stop-word list).
 *
 * One field, not title/text/keywords scored separately: per-field BM25 lets the
 * short title field dominate through its own length normalisation, and it scored
 * below plain Okapi BM25 over the same string on the dev set (docs/retrieval.md,
 * "Lexical stage"). The same options must be used to build, serialize and load,
 * so they live here.
 */
import MiniSearch, { type Options } from 'minisearch';
import type { Chunk } from '../model/chunk.js';
import { tokenize } from '../text/tokenize.js';

export interface Bm25Doc {
  id: string;
  /** Retrieval string, then the synthetic questions (one per line). */
  text: string;
  docId: string;
}

export const BM25_OPTIONS: Options<Bm25Doc> = {
  idField: 'id',
  fields: ['text'],
  storeFields: ['docId'],
  tokenize: (s) => tokenize(s),
  processTerm: (t) => t,
};

export const toBm25Doc = (c: Pick<Chunk, 'id' | 'retrieval' | 'docId'>, questions: readonly string[] = []): Bm25Doc => ({
  id: c.id,
  text: questions.length ? `${c.retrieval}\n${questions.join('\n')}` : c.retrieval,
  docId: c.docId,
});

/** Build the index; `questionsOf` gives a chunk's synthetic questions (none by default). */
export function buildBm25(chunks: Pick<Chunk, 'id' | 'retrieval' | 'docId'>[], questionsOf: (id: string) => readonly string[] = () => []): MiniSearch<Bm25Doc> {
  const ms = new MiniSearch<Bm25Doc>(BM25_OPTIONS);
  ms.addAll(chunks.map((c) => toBm25Doc(c, questionsOf(c.id))));
  return ms;
}

export function loadBm25(json: string): MiniSearch<Bm25Doc> {
  return MiniSearch.loadJSON<Bm25Doc>(json, BM25_OPTIONS);
}
