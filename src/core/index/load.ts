/**
 * Turn verified static-index bytes into the in-memory index the retrieval core
 * uses. Works on bytes, so the same code runs in Node (files) and in the browser
 * worker (fetch responses).
 */
import type MiniSearch from 'minisearch';
import type { Chunk } from '../model/chunk.js';
import type { DocumentUnit } from '../ingest/documents.js';
import { type Bm25Doc, loadBm25 } from './bm25.js';
import { ARTIFACTS, IndexIntegrityError, type IndexManifest, parseManifest, verifyArtifacts } from './manifest.js';

export interface LoadedIndex {
  manifest: IndexManifest;
  chunks: Chunk[];
  /** Row-major N × dimension, L2-normalised embeddings of the retrieval strings. */
  vectors: Float32Array;
  /** Row-major N × dimension, embeddings of the chunk summaries (post-scoring). */
  summaryVectors: Float32Array;
  bm25: MiniSearch<Bm25Doc>;
  /** chunk id → row. */
  rowOf: Map<string, number>;
  /** Passage windows: chunk row, character span in the chunk text, and embedding (dequantized). */
  windows: { row: Int32Array; start: Int32Array; end: Int32Array; vectors: Float32Array; count: number };
  /** Synthetic questions (corpus-build/data): chunk row and embedding (dequantized); count 0 when built without them. */
  questions: MultiVectors;
  /** Logical documents and their summary index. */
  documents: DocumentIndex;
  /**
   * The quotable units of the static index's chunks (core/text/units.ts) and their embeddings: chunk row,
   * unit number within the chunk, the unit text's length (a segmentation that no longer matches is
   * detected per unit), row-major vectors. User documents' rows have none (their units are embedded when ranked).
   */
  units: UnitVectors;
}

export interface UnitVectors {
  row: Int32Array;
  n: Int32Array;
  len: Int32Array;
  vectors: Float32Array;
  count: number;
}

/**
 * The summary index: one vector per document (its title and extractive summary),
 * then one per section, in the order documents[0], its sections, documents[1], ...
 */
export interface DocumentIndex {
  units: DocumentUnit[];
  /** Row-major (documents + sections) × dimension. */
  vectors: Float32Array;
  /** Vector row of each document's own node; its sections follow it. */
  nodeRow: Int32Array;
  /** Chunk row → document index. */
  docOfRow: Int32Array;
  /** Document id → index. */
  indexOf: Map<string, number>;
}

/** Build the document index from the units and their node vectors (the loader and the tests). */
export function documentIndex(units: DocumentUnit[], vectors: Float32Array, dim: number, chunks: Pick<Chunk, 'id'>[]): DocumentIndex {
  const nodes = units.reduce((n, d) => n + 1 + d.sections.length, 0);
  if (vectors.length !== nodes * dim) {
    throw new IndexIntegrityError(
      `document-vectors.f32 holds ${vectors.length / dim} vectors; ${units.length} documents and their sections need ${nodes}. Rebuild it with \`npm run index\`.`,
    );
  }
  const nodeRow = new Int32Array(units.length);
  let r = 0;
  units.forEach((d, i) => {
    nodeRow[i] = r;
    r += 1 + d.sections.length;
  });
  const rowOf = new Map(chunks.map((c, i) => [c.id, i]));
  const docOfRow = new Int32Array(chunks.length).fill(-1);
  units.forEach((d, i) => {
    for (const id of d.chunkIds) {
      const row = rowOf.get(id);
      if (row === undefined)
        throw new IndexIntegrityError(`documents.json lists chunk ${id} (document ${d.id}), which is not in chunks.json. Rebuild it with \`npm run index\`.`);
      if (docOfRow[row] !== -1)
        throw new IndexIntegrityError(`Chunk ${id} is in two documents (${units[docOfRow[row]!]!.id}, ${d.id}). Rebuild it with \`npm run index\`.`);
      docOfRow[row] = i;
    }
  });
  const orphan = docOfRow.indexOf(-1);
  if (orphan >= 0) throw new IndexIntegrityError(`Chunk ${chunks[orphan]!.id} is in no document of documents.json. Rebuild it with \`npm run index\`.`);
  return { units, vectors, nodeRow, docOfRow, indexOf: new Map(units.map((d, i) => [d.id, i])) };
}

/** Several vectors per chunk, grouped by chunk in row order (passage windows, synthetic questions). */
export interface MultiVectors {
  row: Int32Array;
  vectors: Float32Array;
  count: number;
}

/** int8 window vectors are stored as round(v × WINDOW_SCALE). */
export const WINDOW_SCALE = 127;

const decoder = new TextDecoder();

function asFloat32(bytes: Uint8Array, name: string, rows: number, dim: number): Float32Array {
  if (bytes.byteLength !== rows * dim * 4) {
    throw new IndexIntegrityError(
      `${name} holds ${bytes.byteLength} bytes; ${rows} rows × ${dim} dimensions need ${rows * dim * 4}. Rebuild it with \`npm run index\`.`,
    );
  }
  // copy to an aligned buffer (little-endian as written by the build)
  const copy = new Uint8Array(bytes.byteLength);
  copy.set(bytes);
  return new Float32Array(copy.buffer);
}

/** Verify and parse. `files` maps artifact file names to their bytes. */
export async function loadIndexFromBytes(manifestJson: string, files: Record<string, Uint8Array>): Promise<LoadedIndex> {
  const manifest = parseManifest(manifestJson);
  await verifyArtifacts(manifest, files);
  let chunks: Chunk[];
  try {
    chunks = JSON.parse(decoder.decode(files[ARTIFACTS.chunks])) as Chunk[];
  } catch (e) {
    throw new IndexIntegrityError(`chunks.json is not valid JSON (${(e as Error).message}). Rebuild it with \`npm run index\`.`);
  }
  if (chunks.length !== manifest.chunkCount) {
    throw new IndexIntegrityError(`chunks.json holds ${chunks.length} chunks; the manifest says ${manifest.chunkCount}. Rebuild it with \`npm run index\`.`);
  }
  const dim = manifest.dimension;
  const vectors = asFloat32(files[ARTIFACTS.vectors]!, ARTIFACTS.vectors, chunks.length, dim);
  const summaryVectors = asFloat32(files[ARTIFACTS.summaryVectors]!, ARTIFACTS.summaryVectors, chunks.length, dim);
  const bm25 = loadBm25(decoder.decode(files[ARTIFACTS.bm25]));
  const rowOf = new Map(chunks.map((c, i) => [c.id, i]));
  const windows = parseWindows(files[ARTIFACTS.windows]!, files[ARTIFACTS.windowVectors]!, dim, chunks.length);
  const questions = parseQuestions(files[ARTIFACTS.questions]!, files[ARTIFACTS.questionVectors]!, dim, chunks.length);
  let units: DocumentUnit[] | undefined;
  try {
    units = (JSON.parse(decoder.decode(files[ARTIFACTS.documents])) as { documents?: DocumentUnit[] } | null)?.documents;
  } catch (e) {
    throw new IndexIntegrityError(`documents.json is not valid (${(e as Error).message}). Rebuild it with \`npm run index\`.`);
  }
  if (!Array.isArray(units)) throw new IndexIntegrityError('documents.json is not valid (no "documents" array). Rebuild it with `npm run index`.');
  const docBytes = files[ARTIFACTS.documentVectors]!;
  const nodes = units.reduce((n, d) => n + 1 + (d.sections?.length ?? 0), 0);
  const documents = documentIndex(units, asFloat32(docBytes, ARTIFACTS.documentVectors, nodes, dim), dim, chunks);
  const unitVectors = parseUnits(files[ARTIFACTS.units]!, files[ARTIFACTS.unitVectors]!, dim, chunks.length);
  return { manifest, chunks, vectors, summaryVectors, bm25, rowOf, windows, questions, documents, units: unitVectors };
}

function parseUnits(json: Uint8Array, vectorBytes: Uint8Array, dim: number, chunkCount: number): UnitVectors {
  let u: { row: number[]; n: number[]; len: number[] };
  try {
    u = JSON.parse(decoder.decode(json)) as typeof u;
  } catch (e) {
    throw new IndexIntegrityError(`units.json is not valid JSON (${(e as Error).message}). Rebuild it with \`npm run index\`.`);
  }
  const count = u.row?.length ?? -1;
  if (count < 0 || u.n?.length !== count || u.len?.length !== count || vectorBytes.byteLength !== count * dim || u.row.some((r) => r < 0 || r >= chunkCount)) {
    throw new IndexIntegrityError(`The unit vectors do not match their units or the chunks. Rebuild it with \`npm run index\`.`);
  }
  return { row: Int32Array.from(u.row), n: Int32Array.from(u.n), len: Int32Array.from(u.len), vectors: dequantizeInt8(vectorBytes), count };
}

export const dequantizeInt8 = (bytes: Uint8Array): Float32Array => {
  const q = new Int8Array(bytes.buffer, bytes.byteOffset, bytes.byteLength);
  const out = new Float32Array(q.length);
  for (let i = 0; i < out.length; i++) out[i] = q[i]! / WINDOW_SCALE;
  return out;
};

function parseQuestions(json: Uint8Array, vectorBytes: Uint8Array, dim: number, chunkCount: number): MultiVectors {
  let q: { row: number[] };
  try {
    q = JSON.parse(decoder.decode(json)) as typeof q;
  } catch (e) {
    throw new IndexIntegrityError(`questions.json is not valid JSON (${(e as Error).message}). Rebuild it with \`npm run index\`.`);
  }
  const count = q.row?.length ?? -1;
  const sorted = q.row?.every((r, i) => r >= 0 && r < chunkCount && (i === 0 || r >= q.row[i - 1]!));
  if (count < 0 || vectorBytes.byteLength !== count * dim || !sorted) {
    throw new IndexIntegrityError(`The synthetic-question vectors do not match their rows or the chunks. Rebuild it with \`npm run index\`.`);
  }
  return { row: Int32Array.from(q.row), vectors: dequantizeInt8(vectorBytes), count };
}

function parseWindows(json: Uint8Array, vectorBytes: Uint8Array, dim: number, chunkCount: number): LoadedIndex['windows'] {
  let w: { row: number[]; start: number[]; end: number[] };
  try {
    w = JSON.parse(decoder.decode(json)) as typeof w;
  } catch (e) {
    throw new IndexIntegrityError(`windows.json is not valid JSON (${(e as Error).message}). Rebuild it with \`npm run index\`.`);
  }
  const count = w.row.length;
  if (vectorBytes.byteLength !== count * dim || w.start.length !== count || w.end.length !== count || w.row.some((r) => r < 0 || r >= chunkCount)) {
    throw new IndexIntegrityError(`The passage windows do not match their vectors or the chunks. Rebuild it with \`npm run index\`.`);
  }
  return { row: Int32Array.from(w.row), start: Int32Array.from(w.start), end: Int32Array.from(w.end), vectors: dequantizeInt8(vectorBytes), count };
}
