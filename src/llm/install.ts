/**
 * Verified installation of a self-hosted model into the caches WebLLM reads
 * (cache.ts): from the base URL ("download") or from files the user chose ("import",
 * for closed networks). Every file WebLLM reads is checked against the manifest's size
 * and SHA-256 *before* it is stored, so WebLLM only ever reads verified bytes (web-llm
 * 0.2.79's ModelRecord has no `integrity` field, so WebLLM cannot check them itself).
 *
 * Failure behaviour:
 * - each file is stored whole (one `cache.put` per file, after its hash matched): an
 *   interrupted download or import leaves only complete, verified files, which a retry
 *   keeps and does not fetch again; nothing already cached is changed;
 * - a wrong hash or size → ModelFilesCorruptError (download) / ModelImportError
 *   (import), naming the file; nothing of that file is stored;
 * - not enough storage (checked with navigator.storage.estimate() before starting, and
 *   QuotaExceededError while writing) → ModelStorageQuotaError;
 * - an incomplete or unmatched set of import files → ModelImportError listing what is missing.
 */
import { ModelDownloadError, ModelFilesCorruptError, ModelImportError, ModelStorageQuotaError, type AnswerError } from '../core/llm/errors.js';
import { browserCaches, cacheTargets, type CacheStorageLike, type CacheTarget } from './cache.js';
import type { CuratedModel } from './models.js';
import { isQuotaError } from '../storage/errors.js';

export interface InstallProgress {
  /** 0–1 over the bytes still to install. */
  progress: number;
  bytesDone: number;
  bytesTotal: number;
  /** The file being fetched / read / verified. */
  file: string;
  text: string;
}

/** A file the user chose: a File (name, webkitRelativePath) or a stand-in. */
export interface ChosenFile {
  readonly name: string;
  readonly size: number;
  readonly webkitRelativePath?: string;
  arrayBuffer(): Promise<ArrayBuffer>;
}

export interface InstallDeps {
  caches?: CacheStorageLike;
  fetchImpl?: typeof fetch;
  /** navigator.storage.estimate (absent: no pre-check). */
  estimate?: () => Promise<{ usage?: number; quota?: number }>;
  digest?: (bytes: ArrayBuffer) => Promise<string>;
}

export interface InstallOptions extends InstallDeps {
  baseUrl: string | null | undefined;
  onProgress?: (p: InstallProgress) => void;
  signal?: AbortSignal;
}

export async function sha256Hex(bytes: ArrayBuffer): Promise<string> {
  const d = await crypto.subtle.digest('SHA-256', bytes);
  return [...new Uint8Array(d)].map((b) => b.toString(16).padStart(2, '0')).join('');
}

const fileName = (path: string): string => path.slice(path.lastIndexOf('/') + 1);
const mb = (n: number): string => `${(n / 1e6).toFixed(1)} MB`;

function abortError(): DOMException {
  return new DOMException('The model download was stopped.', 'AbortError');
}

async function missingTargets(targets: CacheTarget[], caches: CacheStorageLike): Promise<CacheTarget[]> {
  const out: CacheTarget[] = [];
  for (const t of targets) if (!(await (await caches.open(t.cache)).match(t.url))) out.push(t);
  return out;
}

async function checkQuota(need: number, estimate: InstallDeps['estimate']): Promise<void> {
  if (!estimate || need <= 0) return;
  let e: { usage?: number; quota?: number };
  try {
    e = await estimate();
  } catch {
    return;
  }
  if (typeof e.quota !== 'number' || typeof e.usage !== 'number') return;
  const free = e.quota - e.usage;
  if (free < need) {
    throw new ModelStorageQuotaError(
      `needs ${mb(need)} more; the browser allows ${mb(Math.max(0, free))} more for this site (quota ${mb(e.quota)}, used ${mb(e.usage)})`,
    );
  }
}

async function store(t: CacheTarget, bytes: ArrayBuffer, caches: CacheStorageLike): Promise<void> {
  const type = t.file.path.endsWith('.json') ? 'application/json' : t.file.path.endsWith('.wasm') ? 'application/wasm' : 'application/octet-stream';
  try {
    await (await caches.open(t.cache)).put(t.url, new Response(bytes, { headers: { 'Content-Type': type, 'Content-Length': String(bytes.byteLength) } }));
  } catch (e) {
    if (isQuotaError(e)) throw new ModelStorageQuotaError(`while storing ${fileName(t.file.path)} (${mb(t.file.size)})`, { cause: e });
    throw e;
  }
}

/** Install the model's files from `source` (one call per file), verifying each. */
async function install(
  model: CuratedModel,
  opts: InstallOptions,
  read: (t: CacheTarget) => Promise<ArrayBuffer>,
  onMismatch: (t: CacheTarget, why: string) => AnswerError,
): Promise<{ installedBytes: number; skippedBytes: number }> {
  const caches = opts.caches ?? browserCaches();
  const digest = opts.digest ?? sha256Hex;
  const targets = cacheTargets(model, opts.baseUrl);
  if (!targets.length) throw new ModelImportError(`${model.id} lists no files WebLLM reads.`, 'Use the manifest.json written by npm run models:prepare.');
  const todo = await missingTargets(targets, caches);
  const total = todo.reduce((n, t) => n + t.file.size, 0);
  const skippedBytes = targets.reduce((n, t) => n + t.file.size, 0) - total;
  await checkQuota(total, opts.estimate);
  let done = 0;
  const report = (file: string, text: string) => opts.onProgress?.({ progress: total ? done / total : 1, bytesDone: done, bytesTotal: total, file, text });
  for (const t of todo) {
    if (opts.signal?.aborted) throw abortError();
    const name = fileName(t.file.path);
    report(name, `${name}: ${mb(done)} of ${mb(total)}`);
    const bytes = await read(t);
    if (opts.signal?.aborted) throw abortError();
    if (bytes.byteLength !== t.file.size) throw onMismatch(t, `${name} has ${bytes.byteLength} bytes, the manifest says ${t.file.size}`);
    report(name, `verifying ${name}`);
    const hash = await digest(bytes);
    if (hash !== t.file.sha256) throw onMismatch(t, `${name}: SHA-256 ${hash.slice(0, 16)}… does not match the manifest's ${t.file.sha256.slice(0, 16)}…`);
    await store(t, bytes, caches);
    done += t.file.size;
    report(name, `${mb(done)} of ${mb(total)} verified and stored`);
  }
  return { installedBytes: total, skippedBytes };
}

/**
 * Download a self-hosted model from the base URL into WebLLM's caches, verified.
 * Files already cached are kept (a retry resumes).
 */
export async function downloadModel(model: CuratedModel, opts: InstallOptions): Promise<{ installedBytes: number; skippedBytes: number }> {
  const fetchImpl = opts.fetchImpl ?? globalThis.fetch.bind(globalThis);
  return install(
    model,
    opts,
    async (t) => {
      let res: Response;
      try {
        res = await fetchImpl(t.url, { ...(opts.signal ? { signal: opts.signal } : {}), cache: 'no-store' });
      } catch (e) {
        if (opts.signal?.aborted) throw abortError();
        throw new ModelDownloadError(`${t.url}: ${(e as Error).message}`, { cause: e });
      }
      if (!res.ok) throw new ModelDownloadError(`${t.url}: HTTP ${res.status}`);
      try {
        return await res.arrayBuffer();
      } catch (e) {
        if (opts.signal?.aborted) throw abortError();
        throw new ModelDownloadError(`${t.url}: the transfer was interrupted (${(e as Error).message})`, { cause: e });
      }
    },
    (t, why) =>
      new ModelFilesCorruptError(`${why} (${t.url}). The server's copy differs from its manifest.json: redeploy the folder written by npm run models:prepare.`),
  );
}

/** Where a chosen file sits: its folder-relative path (folder import) or its name. */
const chosenPath = (f: ChosenFile): string => (f.webkitRelativePath && f.webkitRelativePath.length ? f.webkitRelativePath : f.name);

export interface ImportMatch {
  model: CuratedModel;
  /** manifest path → the chosen file. */
  files: Map<string, ChosenFile>;
  /** Files WebLLM reads that were not among the chosen ones. */
  missing: string[];
  /** Chosen files whose size differs from the manifest. */
  wrongSize: string[];
}

/**
 * Match chosen files to a model's manifest entries: by the end of the folder-relative
 * path (a folder import: "…/Qwen…/resolve/main/params_shard_0.bin"), else by file name
 * when exactly one chosen file has that name.
 */
export function matchImport(model: CuratedModel, chosen: readonly ChosenFile[], baseUrl: string | null | undefined): ImportMatch {
  const files = new Map<string, ChosenFile>();
  const missing: string[] = [];
  const wrongSize: string[] = [];
  for (const t of cacheTargets(model, baseUrl)) {
    const p = t.file.path;
    let f = chosen.find((c) => chosenPath(c) === p || chosenPath(c).endsWith(`/${p}`));
    if (!f) {
      const byName = chosen.filter((c) => c.name === fileName(p));
      if (byName.length === 1) f = byName[0];
    }
    if (!f) missing.push(p);
    else if (f.size !== t.file.size) wrongSize.push(`${p} (${f.size} bytes, expected ${t.file.size})`);
    else files.set(p, f);
  }
  return { model, files, missing, wrongSize };
}

/**
 * The model the chosen files are a complete set of, from `models` (the known catalog,
 * plus the manifest.json among the chosen files if any). Throws ModelImportError with
 * what is missing or wrong when no model's set is complete.
 */
export function pickImport(models: readonly CuratedModel[], chosen: readonly ChosenFile[], baseUrl: string | null | undefined): ImportMatch {
  if (!chosen.length) throw new ModelImportError('No files were chosen.', 'Choose the model folder written by npm run models:prepare (or all of its files).');
  const matches = models.filter((m) => m.source === 'self-hosted').map((m) => matchImport(m, chosen, baseUrl));
  if (!matches.length) {
    throw new ModelImportError(
      'No model manifest is known, so the files cannot be checked.',
      'Include manifest.json (written by npm run models:prepare) in the folder or the chosen files.',
    );
  }
  const complete = matches.filter((m) => !m.missing.length && !m.wrongSize.length);
  // a folder with several complete models: the one with the most matched files (a subfolder choice picks one)
  if (complete.length) return complete.sort((a, b) => b.files.size - a.files.size)[0]!;
  const best = matches.sort((a, b) => b.files.size - a.files.size || a.missing.length - b.missing.length)[0]!;
  if (best.files.size === 0 && !best.wrongSize.length) {
    throw new ModelImportError(
      'The chosen files are not the files of any model this app knows.',
      'Choose the folder written by npm run models:prepare (with its manifest.json), or the files of one model folder and its library (.wasm).',
    );
  }
  const problems = [
    ...(best.wrongSize.length ? [`wrong size: ${best.wrongSize.map(fileName).join(', ')}`] : []),
    ...(best.missing.length ? [`missing: ${best.missing.map(fileName).join(', ')}`] : []),
  ].join('; ');
  throw new ModelImportError(
    `The chosen files are an incomplete or wrong set for ${best.model.id} (${problems}).`,
    'Choose the whole model folder (or all of its files and its library .wasm) as written by npm run models:prepare, then import again. Nothing was stored.',
  );
}

/** Import the matched files into WebLLM's caches, verified. Files already cached are kept. */
export async function importModel(match: ImportMatch, opts: InstallOptions): Promise<{ installedBytes: number; skippedBytes: number }> {
  return install(
    match.model,
    opts,
    async (t) => {
      const f = match.files.get(t.file.path);
      if (!f) throw new ModelImportError(`${t.file.path} was not among the chosen files.`, 'Choose the whole model folder and import again.');
      return f.arrayBuffer();
    },
    (_t, why) =>
      new ModelImportError(
        `A chosen file does not match the manifest: ${why}.`,
        'The file is damaged or belongs to another build. Copy the model folder again from its source (npm run models:prepare output) and import again; files already verified are kept.',
      ),
  );
}
