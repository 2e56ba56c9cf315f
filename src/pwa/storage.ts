/**
 * Persistent storage and the browser caches: ask that SkyCite's data not be evicted,
 * report usage and quota, and clear caches (app caches and WebLLM's model caches).
 * Every function degrades to a safe answer where an API is missing.
 */
import { isQuotaError } from '../storage/errors.js';

export interface StorageManagerLike {
  persist?(): Promise<boolean>;
  persisted?(): Promise<boolean>;
  estimate?(): Promise<{ usage?: number; quota?: number }>;
}

export interface CacheStorageLike {
  keys(): Promise<string[]>;
  delete(name: string): Promise<boolean>;
}

export interface IdbFactoryLike {
  deleteDatabase(name: string): IDBOpenDBRequest | { onsuccess: unknown; onerror: unknown; onblocked: unknown };
}

export interface StorageEnv {
  storage?: StorageManagerLike | undefined;
  caches?: CacheStorageLike | undefined;
  indexedDB?: IdbFactoryLike | undefined;
}

function env(e?: StorageEnv): StorageEnv {
  if (e) return e;
  const g = globalThis as { navigator?: { storage?: StorageManagerLike }; caches?: CacheStorageLike; indexedDB?: IdbFactoryLike };
  return { storage: g.navigator?.storage, caches: g.caches, indexedDB: g.indexedDB };
}

/**
 * Ask the browser to keep SkyCite's storage (models, index, audit log) under storage
 * pressure. true: granted; false: refused; null: not supported.
 */
export async function requestPersistence(e?: StorageEnv): Promise<boolean | null> {
  const s = env(e).storage;
  if (!s || typeof s.persist !== 'function') return null;
  try {
    return await s.persist();
  } catch {
    return false;
  }
}

/** Whether storage is already persistent; null when unknown. */
export async function isPersisted(e?: StorageEnv): Promise<boolean | null> {
  const s = env(e).storage;
  if (!s || typeof s.persisted !== 'function') return null;
  try {
    return await s.persisted();
  } catch {
    return null;
  }
}

export interface StorageEstimate {
  /** Bytes used by this origin; null when unknown. */
  usage: number | null;
  /** Bytes this origin may use; null when unknown. */
  quota: number | null;
  persisted: boolean | null;
}

export async function estimateStorage(e?: StorageEnv): Promise<StorageEstimate> {
  const s = env(e).storage;
  const persisted = await isPersisted(e);
  if (!s || typeof s.estimate !== 'function') return { usage: null, quota: null, persisted };
  try {
    const est = await s.estimate();
    const num = (v: unknown) => (typeof v === 'number' && Number.isFinite(v) && v >= 0 ? v : null);
    return { usage: num(est.usage), quota: num(est.quota), persisted };
  } catch {
    return { usage: null, quota: null, persisted };
  }
}

/** Cache and database names WebLLM uses (one per scope, for both the Cache API and IndexedDB backends). */
export const WEBLLM_CACHE_NAMES = ['webllm/model', 'webllm/config', 'webllm/wasm'] as const;
export const WORKBOX_PRECACHE_PREFIX = 'workbox-precache-v2-';

export interface ClearOptions {
  /** Keep the service worker's precache (the offline app shell and index). Default true. */
  keepPrecache?: boolean;
  /** Full name of the current precache; default: every `workbox-precache-v2-*` cache counts as current. */
  precacheName?: string;
  /** Also delete downloaded language models (WebLLM caches and databases). Default true. */
  includeModels?: boolean;
}

export interface ClearResult {
  deletedCaches: string[];
  deletedDatabases: string[];
  /** Human-readable problems (e.g. a database blocked by another tab). */
  problems: string[];
}

function deleteDb(factory: IdbFactoryLike, name: string): Promise<'deleted' | 'blocked' | 'error'> {
  return new Promise((resolve) => {
    let req: ReturnType<IdbFactoryLike['deleteDatabase']>;
    try {
      req = factory.deleteDatabase(name);
    } catch {
      resolve('error');
      return;
    }
    const r = req as { onsuccess: unknown; onerror: unknown; onblocked: unknown };
    r.onsuccess = () => resolve('deleted');
    r.onerror = () => resolve('error');
    // Another tab holds the database open: the deletion completes when it closes.
    r.onblocked = () => resolve('blocked');
  });
}

/** Clear Cache Storage (except the precache, if asked) and WebLLM's model caches. */
export async function clearCaches(options: ClearOptions = {}, e?: StorageEnv): Promise<ClearResult> {
  const { keepPrecache = true, includeModels = true, precacheName } = options;
  const { caches, indexedDB } = env(e);
  const result: ClearResult = { deletedCaches: [], deletedDatabases: [], problems: [] };
  // WebLLM's caches, transformers.js's model cache (a downloaded retrieval model) and the vector sets
  const isModelCache = (name: string) => name.startsWith('webllm/') || name.startsWith('models/') || name === 'transformers-cache';
  const isKeptPrecache = (name: string) => keepPrecache && (precacheName !== undefined ? name === precacheName : name.startsWith(WORKBOX_PRECACHE_PREFIX));

  if (caches) {
    let names: string[] = [];
    try {
      names = await caches.keys();
    } catch (err) {
      result.problems.push(`Could not list the caches: ${String(err)}`);
    }
    for (const name of names) {
      if (isKeptPrecache(name)) continue;
      if (isModelCache(name) && !includeModels) continue;
      try {
        if (await caches.delete(name)) result.deletedCaches.push(name);
      } catch (err) {
        result.problems.push(`Could not delete the cache "${name}": ${String(err)}`);
      }
    }
  }
  if (includeModels && indexedDB) {
    for (const name of WEBLLM_CACHE_NAMES) {
      const outcome = await deleteDb(indexedDB, name);
      if (outcome === 'deleted') result.deletedDatabases.push(name);
      else if (outcome === 'blocked') {
        result.problems.push(`The model store "${name}" is in use in another SkyCite tab; it is deleted when that tab closes.`);
      } else result.problems.push(`Could not delete the model store "${name}".`);
    }
  }
  return result;
}

/** "1.2 GB of 10 GB used" style summary; "unknown" parts when the browser does not say. */
export function describeEstimate(est: StorageEstimate): string {
  const fmt = (b: number | null) => {
    if (b === null) return 'unknown';
    if (b >= 1024 ** 3) return `${(b / 1024 ** 3).toFixed(1)} GB`;
    if (b >= 1024 ** 2) return `${Math.round(b / 1024 ** 2)} MB`;
    return `${Math.round(b / 1024)} KB`;
  };
  const persistence =
    est.persisted === true
      ? 'protected from automatic clean-up'
      : est.persisted === false
        ? 'may be cleared by the browser when space runs low'
        : 'persistence unknown';
  return `${fmt(est.usage)} of ${fmt(est.quota)} used; ${persistence}.`;
}

/**
 * Whether `bytes` more fit into this origin's storage, tried for real: a cache entry of that size is
 * written and deleted at once (the browser's estimate does not always show a quota it enforces).
 * true: it fits; false: the quota refused it; null: unknown (no Cache Storage, another error).
 */
export async function hasRoomFor(
  bytes: number,
  e?: { caches?: { open(name: string): Promise<{ put(k: string, r: Response): Promise<void> }>; delete(name: string): Promise<boolean> } },
): Promise<boolean | null> {
  const c = e?.caches ?? (globalThis as { caches?: NonNullable<typeof e>['caches'] }).caches;
  if (!c) return null;
  const name = 'skycite-space-probe';
  try {
    const cache = await c.open(name);
    await cache.put('https://skycite.invalid/space-probe', new Response(new Uint8Array(bytes)));
    return true;
  } catch (err) {
    return isQuotaError(err) ? false : null;
  } finally {
    await c.delete(name).catch(() => false);
  }
}
