/**
 * The static index's manifest: what was built, from what, with which model, and
 * the SHA-256 of every artifact. Readers refuse an index whose artifacts do not
 * match it.
 */
import { SkyCiteError } from '../errors.js';
export const INDEX_FORMAT_VERSION = 5;

/** What each format version added, so an old index's error can say what is missing. */
export const FORMAT_HISTORY: Record<number, string> = {
  3: 'passage windows and synthetic questions',
  4: 'logical documents with their summary index (documents.json, document-vectors.f32)',
  5: 'quotable units with their vectors (units.json, unit-vectors.i8)',
};

export const ARTIFACTS = {
  chunks: 'chunks.json',
  vectors: 'vectors.f32',
  summaryVectors: 'summary-vectors.f32',
  bm25: 'bm25.json',
  windows: 'windows.json',
  windowVectors: 'window-vectors.i8',
  questions: 'questions.json',
  questionVectors: 'question-vectors.i8',
  documents: 'documents.json',
  documentVectors: 'document-vectors.f32',
  units: 'units.json',
  unitVectors: 'unit-vectors.i8',
} as const;

export type ArtifactName = (typeof ARTIFACTS)[keyof typeof ARTIFACTS];

export interface ManifestSource {
  id: string;
  title: string;
  edition: string;
  jurisdiction: string;
  sha256: string;
  /** Where the build read it: CORPUS_DIR mirror, download cache or official URL. */
  via: string;
  verbatim: boolean;
  chunkCount: number;
  reuseNotice: string;
  editionNote: string;
}

export interface IndexManifest {
  formatVersion: number;
  builtAt: string;
  /** SHA-256 over the build code, so a changed chunker makes the index stale. */
  builderFingerprint: string;
  sources: ManifestSource[];
  model: { id: string; dtype: string; sha256: string; pooling: 'mean' | 'sentence_embedding'; normalized: true };
  chunkCount: number;
  dimension: number;
  /** Byte order of the .f32 artifacts. */
  endianness: 'little';
  artifacts: Record<string, { sha256: string; bytes: number }>;
  /** Build parameters (chunking, keyword count ...), for audit. */
  parameters: Record<string, unknown>;
}

export class IndexIntegrityError extends SkyCiteError {
  override name = 'IndexIntegrityError';
  override readonly code = 'index-integrity';
}

const REBUILD = 'Rebuild it with `npm run index` (or redeploy the static-index/ folder as built).';

export async function sha256Hex(bytes: Uint8Array): Promise<string> {
  const digest = await globalThis.crypto.subtle.digest('SHA-256', bytes as Uint8Array<ArrayBuffer>);
  return [...new Uint8Array(digest)].map((b) => b.toString(16).padStart(2, '0')).join('');
}

/** Check the manifest's shape; throws IndexIntegrityError naming the problem. */
export function parseManifest(json: string): IndexManifest {
  let m: IndexManifest;
  try {
    m = JSON.parse(json) as IndexManifest;
  } catch (e) {
    throw new IndexIntegrityError(`The static index manifest is not valid JSON (${(e as Error).message}). ${REBUILD}`);
  }
  if (typeof m !== 'object' || m === null || typeof m.artifacts !== 'object') {
    throw new IndexIntegrityError(`The static index manifest has no artifact list. ${REBUILD}`);
  }
  if (m.formatVersion !== INDEX_FORMAT_VERSION) {
    const older = typeof m.formatVersion === 'number' && m.formatVersion < INDEX_FORMAT_VERSION;
    const missing = older
      ? Object.entries(FORMAT_HISTORY)
          .filter(([v]) => Number(v) > (m.formatVersion as number))
          .map(([, what]) => what)
      : [];
    throw new IndexIntegrityError(
      `The static index has format version ${String(m.formatVersion)}; this app reads version ${INDEX_FORMAT_VERSION}${missing.length ? ` (the older index lacks ${missing.join('; ')})` : ''}. ${REBUILD}`,
    );
  }
  for (const name of Object.values(ARTIFACTS)) {
    if (!m.artifacts[name]) throw new IndexIntegrityError(`The static index manifest does not list ${name}. ${REBUILD}`);
  }
  return m;
}

/** Verify every artifact against the manifest (size and SHA-256). */
export async function verifyArtifacts(manifest: Pick<IndexManifest, 'artifacts'>, files: Record<string, Uint8Array>): Promise<void> {
  for (const [name, expected] of Object.entries(manifest.artifacts)) {
    const bytes = files[name];
    if (!bytes) throw new IndexIntegrityError(`The static index is missing ${name}. ${REBUILD}`);
    if (bytes.byteLength !== expected.bytes) {
      throw new IndexIntegrityError(
        `The static index file ${name} has ${bytes.byteLength} bytes; the manifest says ${expected.bytes}. It is truncated or corrupted. ${REBUILD}`,
      );
    }
    const actual = await sha256Hex(bytes);
    if (actual !== expected.sha256) {
      throw new IndexIntegrityError(`The static index file ${name} does not match its manifest (SHA-256 ${actual}, expected ${expected.sha256}). ${REBUILD}`);
    }
  }
}
