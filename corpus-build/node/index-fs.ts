/**
 * Reading the static index from disk (Node: CLI, eval, bench) and deciding
 * whether it is stale.
 */
import { existsSync, readFileSync } from 'node:fs';
import { readFile } from 'node:fs/promises';
import { join, resolve } from 'node:path';
import { createHash } from 'node:crypto';
import { loadIndexFromBytes, type LoadedIndex } from '../../src/core/index/load.js';
import { INDEX_FORMAT_VERSION, IndexIntegrityError, type IndexManifest, parseManifest } from '../../src/core/index/manifest.js';
import { applyVectorSet, VECTOR_SET_ARTIFACTS, VECTOR_SET_MANIFEST, vectorSetDir } from '../../src/core/index/vector-set.js';
import { builderFingerprint } from '../build/fingerprint.js';
import { SOURCES } from '../sources/registry.js';

export const DEFAULT_INDEX_DIR = resolve(process.env.SKYCITE_INDEX_DIR ?? 'static-index');

export async function loadIndexFromDir(dir = DEFAULT_INDEX_DIR): Promise<LoadedIndex> {
  const manifestPath = join(dir, 'manifest.json');
  if (!existsSync(manifestPath)) {
    throw new IndexIntegrityError(`No static index at ${dir} (manifest.json missing). Build it with \`npm run index\`.`);
  }
  const manifestJson = await readFile(manifestPath, 'utf8');
  const manifest = parseManifest(manifestJson);
  const files: Record<string, Uint8Array> = {};
  for (const name of Object.keys(manifest.artifacts ?? {})) {
    const p = join(dir, name);
    if (existsSync(p)) files[name] = new Uint8Array(await readFile(p));
  }
  return loadIndexFromBytes(manifestJson, files);
}

/** The index seen through the vector set of another embedder (`npm run index:vectors -- --model <id>`). */
export async function loadVectorSetFromDir(index: LoadedIndex, modelId: string, dir = DEFAULT_INDEX_DIR): Promise<LoadedIndex> {
  const setDir = join(dir, vectorSetDir(modelId));
  const manifestPath = join(setDir, VECTOR_SET_MANIFEST);
  if (!existsSync(manifestPath)) {
    throw new IndexIntegrityError(
      `No vector set of ${modelId} in ${dir} (${vectorSetDir(modelId)}/${VECTOR_SET_MANIFEST} missing). Build it with \`npm run index:vectors -- --model ${modelId}\`.`,
    );
  }
  const files: Record<string, Uint8Array> = {};
  for (const name of VECTOR_SET_ARTIFACTS) {
    const p = join(setDir, name);
    if (existsSync(p)) files[name] = new Uint8Array(await readFile(p));
  }
  return applyVectorSet(index, await readFile(manifestPath, 'utf8'), files, modelId);
}

/** Why the index must be rebuilt, or null when it is current. */
export function staleReason(dir: string, modelFile: string, repoRoot = '.'): string | null {
  const manifestPath = join(dir, 'manifest.json');
  if (!existsSync(manifestPath)) return 'no static index yet';
  let m: IndexManifest;
  try {
    m = JSON.parse(readFileSync(manifestPath, 'utf8')) as IndexManifest;
  } catch {
    return 'manifest.json is unreadable';
  }
  if (m.formatVersion !== INDEX_FORMAT_VERSION) return `format version ${m.formatVersion} ≠ ${INDEX_FORMAT_VERSION}`;
  for (const s of SOURCES) {
    const got = m.sources?.find((x) => x.id === s.id);
    if (!got) return `source ${s.id} is not in the index`;
    if (got.via !== 'download' && got.sha256 !== s.file.sha256) return `source ${s.id} changed`;
  }
  const modelSha = createHash('sha256').update(readFileSync(modelFile)).digest('hex');
  if (m.model?.sha256 !== modelSha) return 'the embedding model changed';
  if (m.builderFingerprint !== builderFingerprint(resolve(repoRoot))) return 'the build code changed';
  for (const name of Object.keys(m.artifacts ?? {})) if (!existsSync(join(dir, name))) return `${name} is missing`;
  return null;
}
