/**
 * The caches WebLLM reads model files from — Cache Storage `webllm/model` (weights,
 * `ndarray-cache.json`, tokenizer), `webllm/config` (`mlc-chat-config.json`) and
 * `webllm/wasm` (the model library), keyed by the files' URLs (web-llm 0.2.79 with
 * `useIndexedDBCache: false`). The verified installer (install.ts) writes there, and this
 * module answers "is it all there?" and deletes a model, without importing web-llm and
 * without any network access.
 */
import { modelUrls, type CuratedModel, type ModelFile } from './models.js';
import { ModelCacheUnavailableError } from '../core/llm/errors.js';

export const WEBLLM_CACHE = { model: 'webllm/model', config: 'webllm/config', wasm: 'webllm/wasm' } as const;
export type WebLlmCacheName = (typeof WEBLLM_CACHE)[keyof typeof WEBLLM_CACHE];

/** The parts of the Cache API used here (the browser's `caches`; tests pass an in-memory one). */
export interface CacheLike {
  match(request: string): Promise<Response | undefined>;
  put(request: string, response: Response): Promise<void>;
  delete(request: string): Promise<boolean>;
  keys(): Promise<readonly { url: string }[]>;
}
export interface CacheStorageLike {
  open(name: string): Promise<CacheLike>;
}

export function browserCaches(): CacheStorageLike {
  const c = (globalThis as { caches?: CacheStorageLike }).caches;
  if (!c) throw new ModelCacheUnavailableError('globalThis.caches is missing');
  return c;
}

/** One file WebLLM reads: where it is cached and under which URL. */
export interface CacheTarget {
  file: ModelFile;
  url: string;
  cache: WebLlmCacheName;
}

/** Which cache WebLLM reads a model file from; null for files it never reads (LICENSE, ORIGIN.md…). */
export function cacheFor(path: string): WebLlmCacheName | null {
  const name = path.slice(path.lastIndexOf('/') + 1);
  if (name === 'mlc-chat-config.json') return WEBLLM_CACHE.config;
  if (name.endsWith('.wasm')) return WEBLLM_CACHE.wasm;
  if (name === 'ndarray-cache.json' || /^params_shard_\d+\.bin$/.test(name) || name === 'tokenizer.json' || name === 'tokenizer.model')
    return WEBLLM_CACHE.model;
  return null;
}

/**
 * The files of a self-hosted model that WebLLM reads, with the URLs it asks for: files
 * under the model folder relative to the model URL, the library at the model_lib URL.
 */
export function cacheTargets(model: CuratedModel, baseUrl: string | null | undefined): CacheTarget[] {
  if (!model.files) return [];
  const urls = modelUrls(model, baseUrl);
  const out: CacheTarget[] = [];
  for (const file of model.files) {
    const cache = cacheFor(file.path);
    if (!cache) continue;
    const url =
      cache === WEBLLM_CACHE.wasm
        ? urls.model_lib
        : file.path.startsWith(model.modelUrl)
          ? new URL(file.path.slice(model.modelUrl.length), urls.model).href
          : null;
    if (url) out.push({ file, url, cache });
  }
  return out;
}

async function has(caches: CacheStorageLike, cache: string, url: string): Promise<boolean> {
  return (await (await caches.open(cache)).match(url)) !== undefined;
}

/** Urls of a remote model's weight shards, read from its cached ndarray-cache.json (no network). */
async function remoteShardUrls(caches: CacheStorageLike, modelUrl: string): Promise<string[] | null> {
  const base = modelUrl.endsWith('/') ? modelUrl : `${modelUrl}/`;
  const folder = /\/resolve\/[^/]+\/$/.test(base) ? base : `${base}resolve/main/`;
  const res = await (await caches.open(WEBLLM_CACHE.model)).match(new URL('ndarray-cache.json', folder).href);
  if (!res) return null;
  try {
    const list = (await res.json()) as { records?: { dataPath?: string }[] };
    return [
      new URL('ndarray-cache.json', folder).href,
      ...(list.records ?? []).map((r) => new URL(String(r.dataPath), folder).href),
      new URL('tokenizer.json', folder).href,
    ];
  } catch {
    return null;
  }
}

/** Whether every file WebLLM needs for the model is cached (no network access). */
export async function isModelCached(model: CuratedModel, baseUrl: string | null | undefined, caches: CacheStorageLike = browserCaches()): Promise<boolean> {
  if (model.source === 'self-hosted') {
    const targets = cacheTargets(model, baseUrl);
    if (!targets.length) return false;
    for (const t of targets) if (!(await has(caches, t.cache, t.url))) return false;
    return true;
  }
  const urls = modelUrls(model, baseUrl);
  const shards = await remoteShardUrls(caches, urls.model);
  if (!shards) return false;
  for (const u of shards) if (!(await has(caches, WEBLLM_CACHE.model, u))) return false;
  return true;
}

/**
 * Delete everything of the model from WebLLM's caches. Returns the number of entries
 * deleted. Other models' files are untouched (entries are per URL).
 */
export async function deleteModelFromCache(
  model: CuratedModel,
  baseUrl: string | null | undefined,
  caches: CacheStorageLike = browserCaches(),
): Promise<number> {
  let n = 0;
  const del = async (cache: string, url: string) => {
    if (await (await caches.open(cache)).delete(url)) n++;
  };
  const urls = modelUrls(model, baseUrl);
  if (model.source === 'self-hosted') {
    for (const t of cacheTargets(model, baseUrl)) await del(t.cache, t.url);
  } else {
    for (const u of (await remoteShardUrls(caches, urls.model)) ?? []) await del(WEBLLM_CACHE.model, u);
    const base = urls.model.endsWith('/') ? urls.model : `${urls.model}/`;
    const folder = /\/resolve\/[^/]+\/$/.test(base) ? base : `${base}resolve/main/`;
    await del(WEBLLM_CACHE.config, new URL('mlc-chat-config.json', folder).href);
  }
  await del(WEBLLM_CACHE.wasm, urls.model_lib);
  return n;
}
