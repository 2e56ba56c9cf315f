/**
 * Find a registered source's bytes: `$CORPUS_DIR/<id>/<file>`, then the local
 * download cache, then the official URL (downloaded into the cache). Verifies the
 * SHA-256 against the registry before anything is parsed.
 */
import { createHash } from 'node:crypto';
import { existsSync } from 'node:fs';
import { mkdir, readFile, writeFile } from 'node:fs/promises';
import { dirname, join, resolve } from 'node:path';
import { ChecksumMismatchError, SourceMissingError } from '../errors.js';
import type { SourceEntry } from './registry.js';

export interface ResolveOptions {
  /** `CORPUS_DIR` (default: env CORPUS_DIR, else ../shared/corpus relative to the working directory). */
  corpusDir?: string;
  /** Download cache (default `.cache/sources`). */
  cacheDir?: string;
  /** Allow downloading from the official URL (default true unless SKYCITE_OFFLINE=1). */
  allowDownload?: boolean;
  /** Injected for tests. */
  fetchImpl?: typeof fetch;
}

export interface ResolvedSource {
  entry: SourceEntry;
  bytes: Uint8Array;
  sha256: string;
  /** Where the bytes came from. */
  origin: string;
  /** 'mirror' (CORPUS_DIR), 'cache' or 'download'. */
  via: 'mirror' | 'cache' | 'download';
  /** Format of the bytes (the official download may be a PDF where the mirror holds layout text). */
  format: SourceEntry['format'];
  warnings: string[];
}

export const sha256Hex = (bytes: Uint8Array): string => createHash('sha256').update(bytes).digest('hex');

export const defaultCorpusDir = (): string => resolve(process.env.CORPUS_DIR ?? '../shared/corpus');

export async function resolveSource(entry: SourceEntry, opts: ResolveOptions = {}): Promise<ResolvedSource> {
  const corpusDir = opts.corpusDir ?? defaultCorpusDir();
  const cacheDir = resolve(opts.cacheDir ?? '.cache/sources');
  const allowDownload = opts.allowDownload ?? process.env.SKYCITE_OFFLINE !== '1';
  const tried: string[] = [];

  const verify = (bytes: Uint8Array, origin: string, expected: string): string => {
    const actual = sha256Hex(bytes);
    if (actual !== expected) throw new ChecksumMismatchError(entry.id, origin, expected, actual);
    return actual;
  };

  for (const [dir, via] of [
    [corpusDir, 'mirror'],
    [cacheDir, 'cache'],
  ] as const) {
    const path = join(dir, entry.id, entry.file.name);
    tried.push(`${via === 'mirror' ? 'CORPUS_DIR' : 'download cache'}: ${path}`);
    if (existsSync(path)) {
      const bytes = new Uint8Array(await readFile(path));
      return { entry, bytes, sha256: verify(bytes, path, entry.file.sha256), origin: path, via, format: entry.format, warnings: [] };
    }
  }

  if (entry.officialUrl && allowDownload) {
    tried.push(`official URL: ${entry.officialUrl}`);
    const f = opts.fetchImpl ?? fetch;
    try {
      const res = await f(entry.officialUrl);
      if (res.ok) {
        const bytes = new Uint8Array(await res.arrayBuffer());
        const format = entry.officialFormat ?? entry.format;
        const expected = entry.officialSha256 ?? (format === entry.format ? entry.file.sha256 : null);
        const warnings: string[] = [];
        let sha: string;
        if (expected) sha = verify(bytes, entry.officialUrl, expected);
        else {
          sha = sha256Hex(bytes);
          warnings.push(
            `No registered SHA-256 for ${entry.officialUrl}; accepted on first use with SHA-256 ${sha}. ` +
              `Record it as officialSha256 in corpus-build/sources/registry.ts after checking the document.`,
          );
        }
        const path = join(cacheDir, entry.id, format === entry.format ? entry.file.name : `official.${format}`);
        await mkdir(dirname(path), { recursive: true });
        await writeFile(path, bytes);
        return { entry, bytes, sha256: sha, origin: entry.officialUrl, via: 'download', format, warnings };
      }
      tried[tried.length - 1] += ` (HTTP ${res.status})`;
    } catch (e) {
      if (e instanceof ChecksumMismatchError) throw e;
      tried[tried.length - 1] += ` (${(e as Error).message})`;
    }
  } else if (entry.officialUrl) {
    tried.push(`official URL: ${entry.officialUrl} — not tried: downloads are disabled (SKYCITE_OFFLINE=1)`);
  } else {
    tried.push('official URL: none registered');
  }
  throw new SourceMissingError(
    entry.id,
    tried,
    `put ${entry.file.name} in ${join(corpusDir, entry.id)}/ (set CORPUS_DIR to the folder that holds ` +
      `"${entry.id}/"), or place it in ${join(cacheDir, entry.id)}/. Expected SHA-256 ${entry.file.sha256}.`,
  );
}
