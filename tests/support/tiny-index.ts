/**
 * A small in-memory LoadedIndex for tests that run the real retrieval engine: vectors from
 * the given embedder (usually the bag-of-words stand-in), BM25 built by the real builder,
 * one passage window per chunk and no synthetic questions.
 */
import type { Embedder } from '../../src/core/embedding/embedder.js';
import { buildBm25 } from '../../src/core/index/bm25.js';
import { documentIndex, type LoadedIndex } from '../../src/core/index/load.js';
import { documentNodeText, sectionNodeText, splitDocuments } from '../../src/core/ingest/documents.js';
import type { Chunk } from '../../src/core/model/chunk.js';

export const chunkOf = (id: string, title: string, text: string, jurisdiction = 'EU', docId = 'easa'): Chunk => ({
  id,
  docId,
  kind: 'section',
  title,
  sectionPath: [title],
  pageStart: 1,
  pageEnd: 1,
  text,
  summary: text.slice(0, 60),
  keywords: [],
  jurisdiction,
  edition: 'Ed',
  language: 'en',
  links: [],
  retrieval: `${title} ${title}. ${text}`,
});

/** `editions`: a source's edition by its id (default "Ed"). */
export async function tinyIndex(
  given: Chunk[],
  emb: Pick<Embedder, 'embed' | 'dimension'>,
  opts: { editions?: Record<string, string> } = {},
): Promise<LoadedIndex> {
  const dim = emb.dimension;
  // documents as the build derives them (one per source here, unless the ids carry an entry structure)
  const sources = [...new Set(given.map((c) => c.docId))].map((id) => ({
    id,
    title: `Source ${id}`,
    edition: opts.editions?.[id] ?? 'Ed',
    jurisdiction: 'EU',
  }));
  const units = splitDocuments(given, sources);
  const docOf = new Map(units.flatMap((d) => d.chunkIds.map((id) => [id, d.id] as const)));
  const chunks = given.map((c) => ({ ...c, documentId: docOf.get(c.id)! }));
  const pack = async (texts: string[]) => {
    const vs = await emb.embed(texts);
    const out = new Float32Array(vs.length * dim);
    vs.forEach((v, i) => out.set(v, i * dim));
    return out;
  };
  const vectors = await pack(chunks.map((c) => c.retrieval));
  return {
    manifest: { dimension: dim } as LoadedIndex['manifest'],
    chunks,
    vectors,
    summaryVectors: await pack(chunks.map((c) => c.summary)),
    bm25: buildBm25(chunks),
    rowOf: new Map(chunks.map((c, i) => [c.id, i])),
    windows: {
      row: Int32Array.from(chunks.map((_, i) => i)),
      start: Int32Array.from(chunks.map(() => 0)),
      end: Int32Array.from(chunks.map((c) => c.text.length)),
      vectors,
      count: chunks.length,
    },
    questions: { row: new Int32Array(0), vectors: new Float32Array(0), count: 0 },
    units: { row: new Int32Array(0), n: new Int32Array(0), len: new Int32Array(0), vectors: new Float32Array(0), count: 0 },
    documents: documentIndex(units, await pack(units.flatMap((d) => [documentNodeText(d), ...d.sections.map((s) => sectionNodeText(d, s))])), dim, chunks),
  };
}
