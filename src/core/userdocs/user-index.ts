/**
 * The user's own documents in the retrieval index (issue 12, item 4): the vectors a
 * document needs (the same sets the build embeds for a built-in source: retrieval
 * strings, summaries, passage windows and the summary-index nodes; no synthetic
 * questions), and the static index merged with the user's documents. Pure: the
 * worker and the tests share it; storage and the UI are elsewhere.
 */
import type { Embedder } from '../embedding/embedder.js';
import type { Bm25Doc } from '../index/bm25.js';
import { toBm25Doc } from '../index/bm25.js';
import { documentIndex, type LoadedIndex } from '../index/load.js';
import type { ManifestSource } from '../index/manifest.js';
import { type DocumentUnit, documentNodeText, sectionNodeText } from '../ingest/documents.js';
import { passageWindows } from '../ingest/enrich/windows.js';
import type { Chunk } from '../model/chunk.js';
import { dot } from '../embedding/similarity.js';
import type { DenseBackend } from '../retrieval/dense.js';
import type { Scored } from '../retrieval/types.js';
import { collapseWhitespace } from '../text/sentences.js';
import type { UserDocumentVectors } from './vectors.js';
import type MiniSearch from 'minisearch';

/** A user document ready for the index: its chunks, its logical document and its vectors. */
export interface IndexedUserDocument {
  chunks: Chunk[];
  document: DocumentUnit;
  vectors: UserDocumentVectors;
}

export interface EmbedProgress {
  done: number;
  total: number;
}

/** The texts embedded for a document, in the order of UserDocumentVectors (as the build derives them). */
export function userDocumentTexts(chunks: readonly Chunk[], document: DocumentUnit) {
  const windows = chunks.flatMap((c, chunk) =>
    passageWindows(c.text, c.kind).map((w) => ({ chunk, start: w.start, end: w.end, text: `${c.title}. ${collapseWhitespace(c.text.slice(w.start, w.end))}` })),
  );
  return {
    retrieval: chunks.map((c) => c.retrieval),
    summary: chunks.map((c) => c.summary || c.title),
    windows,
    nodes: [documentNodeText(document), ...document.sections.map((s) => sectionNodeText(document, s))],
  };
}

/** Embed a document's texts in batches, reporting how many of all its texts are done. */
export async function embedUserDocument(
  chunks: readonly Chunk[],
  document: DocumentUnit,
  embedder: Pick<Embedder, 'embed' | 'modelId' | 'dimension'>,
  onProgress: (p: EmbedProgress) => void = () => undefined,
  batch = 16,
): Promise<UserDocumentVectors> {
  const t = userDocumentTexts(chunks, document);
  const lists = [t.retrieval, t.summary, t.windows.map((w) => w.text), t.nodes];
  const total = lists.reduce((n, l) => n + l.length, 0);
  let done = 0;
  onProgress({ done, total });
  const dim = embedder.dimension;
  const packed: Float32Array[] = [];
  for (const texts of lists) {
    const out = new Float32Array(texts.length * dim);
    for (let i = 0; i < texts.length; i += batch) {
      const vs = await embedder.embed(texts.slice(i, i + batch));
      vs.forEach((v, k) => out.set(v, (i + k) * dim));
      done += vs.length;
      onProgress({ done, total });
    }
    packed.push(out);
  }
  const [retrieval, summary, windowVectors, nodes] = packed as [Float32Array, Float32Array, Float32Array, Float32Array];
  return {
    modelId: embedder.modelId,
    dimension: dim,
    retrieval,
    summary,
    windows: { chunk: t.windows.map((w) => w.chunk), start: t.windows.map((w) => w.start), end: t.windows.map((w) => w.end), vectors: windowVectors },
    nodes,
  };
}

const concat = (parts: Float32Array[]): Float32Array => {
  const out = new Float32Array(parts.reduce((n, p) => n + p.length, 0));
  let o = 0;
  for (const p of parts) {
    out.set(p, o);
    o += p.length;
  }
  return out;
};

/** What the Library and the passage viewer say about a user's document. */
export const USER_DOCUMENT_NOTICE = 'Your own document: stored in this browser only, never sent anywhere.';

/** A user document as a source of the merged manifest (the Library outline, citations, drafting). */
export const userSource = (d: Pick<IndexedUserDocument, 'chunks' | 'document'>): ManifestSource => ({
  id: d.document.id,
  title: d.document.title,
  edition: d.document.edition,
  jurisdiction: d.document.jurisdiction,
  sha256: '',
  via: 'your device',
  verbatim: true,
  chunkCount: d.chunks.length,
  reuseNotice: USER_DOCUMENT_NOTICE,
  editionNote: '',
});

/**
 * The static index with the user's documents appended (their rows after the built-in
 * ones). The BM25 index is shared, not copied: keep it in step with `syncBm25`.
 */
export function mergeUserDocuments(base: LoadedIndex, docs: readonly IndexedUserDocument[]): LoadedIndex {
  if (!docs.length) return base;
  const dim = base.manifest.dimension;
  const chunks = [...base.chunks, ...docs.flatMap((d) => d.chunks)];
  const offsets: number[] = [];
  let row = base.chunks.length;
  for (const d of docs) {
    offsets.push(row);
    row += d.chunks.length;
  }
  const windowRows = docs.flatMap((d, i) => d.vectors.windows.chunk.map((c) => c + offsets[i]!));
  const units = [...base.documents.units, ...docs.map((d) => d.document)];
  return {
    ...base,
    manifest: { ...base.manifest, sources: [...base.manifest.sources, ...docs.map(userSource)], chunkCount: chunks.length },
    chunks,
    vectors: concat([base.vectors, ...docs.map((d) => d.vectors.retrieval)]),
    summaryVectors: concat([base.summaryVectors, ...docs.map((d) => d.vectors.summary)]),
    rowOf: new Map(chunks.map((c, i) => [c.id, i])),
    windows: {
      row: Int32Array.from([...base.windows.row, ...windowRows]),
      start: Int32Array.from([...base.windows.start, ...docs.flatMap((d) => d.vectors.windows.start)]),
      end: Int32Array.from([...base.windows.end, ...docs.flatMap((d) => d.vectors.windows.end)]),
      vectors: concat([base.windows.vectors, ...docs.map((d) => d.vectors.windows.vectors)]),
      count: base.windows.count + windowRows.length,
    },
    documents: documentIndex(units, concat([base.documents.vectors, ...docs.map((d) => d.vectors.nodes)]), dim, chunks),
  };
}

/** Add a document's passages to the BM25 index (MiniSearch `add`). */
export function addToBm25(bm25: MiniSearch<Bm25Doc>, chunks: readonly Chunk[]): void {
  for (const c of chunks) bm25.add(toBm25Doc(c));
}

/** Remove a document's passages from the BM25 index (`discard`, then `vacuum` to reclaim the space). */
export async function removeFromBm25(bm25: MiniSearch<Bm25Doc>, chunkIds: readonly string[]): Promise<void> {
  for (const id of chunkIds) if (bm25.has(id)) bm25.discard(id);
  await bm25.vacuum();
}

/**
 * The dense stage over the merged rows: the built-in backend (voy) for the first
 * `baseRows`, an exact scan of the user's rows, merged by cosine (voy rescores with
 * exact cosines, so the merge is exact).
 */
export function withUserRows(backend: DenseBackend, vectors: Float32Array, dim: number, baseRows: number): DenseBackend {
  const n = vectors.length / dim;
  if (n === baseRows) return backend;
  return {
    name: backend.name,
    search(q, k, allowed) {
      const out: Scored[] = backend.search(q, k, allowed.subarray(0, baseRows));
      for (let row = baseRows; row < n; row++) if (allowed[row]) out.push({ row, score: dot(q, vectors, row * dim, dim) });
      return out.sort((a, b) => b.score - a.score || a.row - b.row).slice(0, k);
    },
  };
}
