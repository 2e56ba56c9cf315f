/**
 * A second set of index vectors, made with another embedder (EmbeddingGemma) over the
 * same chunks, windows, synthetic questions and summary index as the static index.
 * It lives in `static-index/vectors/<model slug>/` with its own manifest, is listed
 * in `static-index/vector-sets.json`, and is fetched only when the user has chosen
 * that model. A set is bound to the index it was built for: the SHA-256s of the
 * index's text artifacts are recorded, so a rebuilt index refuses a stale set.
 */
import { dequantizeInt8, type LoadedIndex } from './load.js';
import { ARTIFACTS, IndexIntegrityError, verifyArtifacts } from './manifest.js';
import { schemaErrors } from '../schema/check.js';
import * as generated from '../schema/validators.generated.js';

export const VECTOR_SET_FORMAT_VERSION = 1;
/** The list of vector sets, beside manifest.json. Absent: the index has none. */
export const VECTOR_SETS_FILE = 'vector-sets.json';
export const VECTOR_SET_MANIFEST = 'vectorset.json';

/** The artifacts a vector set replaces, by the index artifact they stand for (same names, same layout). */
export const VECTOR_SET_ARTIFACTS = [
  ARTIFACTS.vectors,
  ARTIFACTS.summaryVectors,
  ARTIFACTS.windowVectors,
  ARTIFACTS.questionVectors,
  ARTIFACTS.documentVectors,
] as const;

/** The index artifacts whose rows the set's vectors follow. */
export const BOUND_ARTIFACTS = [ARTIFACTS.chunks, ARTIFACTS.windows, ARTIFACTS.questions, ARTIFACTS.documents] as const;

export interface VectorSetManifest {
  formatVersion: number;
  builtAt: string;
  /**
   * The model the vectors were made with: SHA-256 of its ONNX file and (sets built since the
   * vocabulary was trimmed) of its tokenizer.json, whose token ids the ONNX file's rows follow.
   */
  model: { id: string; dtype: string; sha256: string; tokenizerSha256?: string; output: 'mean' | 'sentence_embedding' };
  dimension: number;
  /** SHA-256 of each bound index artifact at build time. */
  boundTo: Record<string, string>;
  artifacts: Record<string, { sha256: string; bytes: number }>;
  parameters: Record<string, unknown>;
}

export interface VectorSetEntry {
  /** The embedder's model id (models.ts). */
  id: string;
  /** Folder under static-index/, e.g. "vectors/google--embeddinggemma-300m". */
  dir: string;
  /** Bytes of the set's artifacts (what the app downloads besides the model). */
  bytes: number;
}

export const vectorSetDir = (modelId: string): string => `vectors/${modelId.replace(/[^A-Za-z0-9._-]+/g, '--')}`;

const rebuild = (id: string) => `Rebuild it with \`npm run index:vectors -- --model ${id}\`.`;

// the shapes of the three files, compiled by tools/generate-validators.ts

/** VECTOR_SETS_FILE: the list of vector sets. */
export const VECTOR_SETS_SCHEMA = {
  $id: 'skycite/vector-sets',
  type: 'object',
  required: ['sets'],
  properties: {
    sets: {
      type: 'array',
      items: { type: 'object', required: ['id', 'dir', 'bytes'], properties: { id: { type: 'string' }, dir: { type: 'string' }, bytes: { type: 'number' } } },
    },
  },
} as const;

/** A vector set's VECTOR_SET_MANIFEST: this app's format, with the model it was made with and every artifact it replaces. */
export const VECTOR_SET_MANIFEST_SCHEMA = {
  $id: 'skycite/vector-set-manifest',
  type: 'object',
  required: ['formatVersion', 'artifacts', 'boundTo', 'model'],
  properties: {
    formatVersion: { const: VECTOR_SET_FORMAT_VERSION },
    boundTo: { type: 'object' },
    model: { type: 'object', required: ['id'], properties: { id: { type: 'string' } } },
    artifacts: {
      type: 'object',
      required: [...VECTOR_SET_ARTIFACTS],
      properties: Object.fromEntries(VECTOR_SET_ARTIFACTS.map((a) => [a, { type: 'object' }])),
    },
  },
} as const;

/** A model folder's MODEL_FOLDER_MANIFEST (tools/models/prepare_embedder.py): its files. */
export const MODEL_FOLDER_MANIFEST_SCHEMA = {
  $id: 'skycite/model-folder-manifest',
  type: 'object',
  required: ['files'],
  properties: { files: { type: 'object' } },
} as const;

/** Parse vector-sets.json; a malformed list is an error (an absent one is the caller's "none"). */
export function parseVectorSets(json: string): VectorSetEntry[] {
  let v: unknown;
  try {
    v = JSON.parse(json);
  } catch (e) {
    throw new IndexIntegrityError(`${VECTOR_SETS_FILE} is not valid JSON (${(e as Error).message}). Rebuild it with \`npm run index:vectors\`.`);
  }
  if (schemaErrors(generated.vectorSets, v).length) {
    throw new IndexIntegrityError(`${VECTOR_SETS_FILE} has no valid "sets" list. Rebuild it with \`npm run index:vectors\`.`);
  }
  return (v as { sets: VectorSetEntry[] }).sets;
}

export function parseVectorSetManifest(json: string, expectedModel: string): VectorSetManifest {
  let v: unknown;
  try {
    v = JSON.parse(json);
  } catch (e) {
    throw new IndexIntegrityError(
      `The vector set of ${expectedModel} has an invalid ${VECTOR_SET_MANIFEST} (${(e as Error).message}). ${rebuild(expectedModel)}`,
    );
  }
  const errors = schemaErrors(generated.vectorSetManifest, v);
  // an artifact the set does not list, when that is all that is wrong with it; anything else: not this app's format
  const unlisted =
    errors.length && errors.every((e) => e.instancePath === '/artifacts' && e.keyword === 'required') ? errors[0]!.params['missingProperty'] : null;
  if (errors.length && unlisted === null) {
    const format = typeof v === 'object' && v !== null ? (v as { formatVersion?: unknown }).formatVersion : undefined;
    throw new IndexIntegrityError(
      `The vector set of ${expectedModel} has format ${String(format)}; this app reads ${VECTOR_SET_FORMAT_VERSION}. ${rebuild(expectedModel)}`,
    );
  }
  const m = v as VectorSetManifest;
  if (m.model.id !== expectedModel) {
    throw new IndexIntegrityError(`The vector set in the folder of ${expectedModel} was built with ${m.model.id}. ${rebuild(expectedModel)}`);
  }
  if (unlisted !== null) throw new IndexIntegrityError(`The vector set of ${expectedModel} does not list ${String(unlisted)}. ${rebuild(expectedModel)}`);
  return m;
}

/** A model folder's manifest.json (tools/models/prepare_embedder.py): every file's size and SHA-256. */
export interface ModelFolderManifest {
  model: string;
  files: Record<string, { bytes: number; sha256: string }>;
}

export const MODEL_FOLDER_MANIFEST = 'manifest.json';

/** Parse a model folder's manifest.json; null when it is not one (the check is then skipped, not failed). */
export function parseModelFolderManifest(json: string): ModelFolderManifest | null {
  let m: unknown;
  try {
    m = JSON.parse(json);
  } catch {
    return null;
  }
  return schemaErrors(generated.modelFolderManifest, m).length ? null : (m as ModelFolderManifest);
}

/**
 * Why a vector set does not fit the model folder the site serves (null: it fits, or the set or
 * folder records no hash to compare). A trimmed vocabulary renumbers the tokens, so a set made
 * with another build of the model would be searched with vectors from a different space.
 */
export function modelFolderMismatch(set: Pick<VectorSetManifest, 'model'>, folder: ModelFolderManifest, onnxFile: string): string | null {
  const want: [string, string | undefined][] = [
    [onnxFile, set.model.sha256],
    ['tokenizer.json', set.model.tokenizerSha256],
  ];
  for (const [file, expected] of want) {
    const got = folder.files[file]?.sha256;
    if (!expected || !got || got === expected) continue;
    return (
      `its vector set was made with ${file} SHA-256 ${expected.slice(0, 16)}…, but this site's models/${set.model.id}/${file} has ${got.slice(0, 16)}…: ` +
      `rebuild the vector set for the model served (\`npm run index:vectors -- --model ${set.model.id}\`) or serve the model it was made with`
    );
  }
  return null;
}

/** Bytes of the listed files according to a model folder's manifest, or null when one is not listed. */
export function modelFilesBytes(folder: ModelFolderManifest, files: readonly string[]): number | null {
  let total = 0;
  for (const f of files) {
    const b = folder.files[f]?.bytes;
    if (typeof b !== 'number') return null;
    total += b;
  }
  return total;
}

function floats(bytes: Uint8Array, name: string, rows: number, dim: number, model: string): Float32Array {
  if (bytes.byteLength !== rows * dim * 4) {
    throw new IndexIntegrityError(
      `${name} of the ${model} vector set holds ${bytes.byteLength} bytes; ${rows} rows × ${dim} need ${rows * dim * 4}. ${rebuild(model)}`,
    );
  }
  const copy = new Uint8Array(bytes.byteLength);
  copy.set(bytes);
  return new Float32Array(copy.buffer);
}

function int8(bytes: Uint8Array, name: string, rows: number, dim: number, model: string): Float32Array {
  if (bytes.byteLength !== rows * dim) {
    throw new IndexIntegrityError(
      `${name} of the ${model} vector set holds ${bytes.byteLength} bytes; ${rows} rows × ${dim} need ${rows * dim}. ${rebuild(model)}`,
    );
  }
  return dequantizeInt8(bytes);
}

/**
 * The index as seen through the set's vectors: same chunks, BM25, windows, questions and
 * documents; every vector (and the manifest's model and dimension) from the set. Verifies
 * the set's artifacts and that it was built for this index.
 */
export async function applyVectorSet(index: LoadedIndex, manifestJson: string, files: Record<string, Uint8Array>, modelId: string): Promise<LoadedIndex> {
  const set = parseVectorSetManifest(manifestJson, modelId);
  for (const name of BOUND_ARTIFACTS) {
    if (set.boundTo[name] !== index.manifest.artifacts[name]?.sha256) {
      throw new IndexIntegrityError(
        `The vector set of ${modelId} was built for another index: it names ${name} SHA-256 ${set.boundTo[name] ?? '(none)'}, the index loaded has ${index.manifest.artifacts[name]?.sha256 ?? '(none)'}. ${rebuild(modelId)}`,
      );
    }
  }
  try {
    await verifyArtifacts(set, files);
  } catch (e) {
    throw new IndexIntegrityError(`${(e as Error).message.replace(/ Rebuild it with .*$/, '')} (vector set of ${modelId}). ${rebuild(modelId)}`);
  }
  const dim = set.dimension;
  const nodes = index.documents.nodeRow.length ? index.documents.vectors.length / index.manifest.dimension : 0;
  return {
    ...index,
    manifest: {
      ...index.manifest,
      model: { ...set.model, pooling: set.model.output === 'mean' ? 'mean' : 'sentence_embedding', normalized: true },
      dimension: dim,
    },
    vectors: floats(files[ARTIFACTS.vectors]!, ARTIFACTS.vectors, index.chunks.length, dim, modelId),
    summaryVectors: floats(files[ARTIFACTS.summaryVectors]!, ARTIFACTS.summaryVectors, index.chunks.length, dim, modelId),
    windows: { ...index.windows, vectors: int8(files[ARTIFACTS.windowVectors]!, ARTIFACTS.windowVectors, index.windows.count, dim, modelId) },
    questions: { ...index.questions, vectors: int8(files[ARTIFACTS.questionVectors]!, ARTIFACTS.questionVectors, index.questions.count, dim, modelId) },
    documents: { ...index.documents, vectors: floats(files[ARTIFACTS.documentVectors]!, ARTIFACTS.documentVectors, nodes, dim, modelId) },
  };
}
