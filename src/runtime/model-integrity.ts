/**
 * Every model and tokenizer file verified against its build SHA-256 before use, wherever it comes
 * from (issue 36, item 2). The build lists the SHA-256 of every file it serves under models/
 * (precache-integrity.json: `entries` for the precached files, `models` for every model file,
 * src/pwa/pwa-config.ts); transformers.js reads a model file from its own cache
 * ('transformers-cache') or fetches it — through the service worker, which answers from its
 * precache. Both ways are wrapped here:
 *  - its cache (transformers.js' `customCache`): a copy that does not match is deleted and treated as
 *    missing (transformers.js then fetches it); a copy that does not match is never stored;
 *  - its fetch (`env.fetch`): a file that does not match is deleted from every cache (the precache
 *    included), downloaded again from the server past the service worker and the HTTP cache, checked,
 *    put back into the precache, and used; the server's copy not matching either is the host's
 *    problem (ModelIntegrityError, source 'host'); no connection, this device's (source 'device').
 * A file the list does not name (a development server without the list) is used as it comes.
 * Nothing here touches IndexedDB.
 */
import { INTEGRITY_FILE, sriSha256, type PrecacheIntegrityEntry } from '../pwa/pwa-config.js';
import { evictEverywhere, integrityByPath, parseIntegrityList, precacheKey, type CachesLike } from '../pwa/repair.js';
import { WORKBOX_PRECACHE_PREFIX } from '../pwa/storage.js';
import { RuntimeError, type ProblemSource } from './errors.js';

/** transformers.js' own cache of model files (its `env.cacheKey`): the name Settings' clearing knows. */
export const MODEL_CACHE = 'transformers-cache';

/** A model file failed its SHA-256 and no verified copy could be had: where the problem is, and what to do. */
export class ModelIntegrityError extends RuntimeError {
  override name = 'ModelIntegrityError';
  override readonly code = 'model-integrity';
  constructor(
    readonly file: string,
    source: ProblemSource,
  ) {
    super(
      source === 'device'
        ? `The copy of ${file} stored on this device is damaged (it does not match the SHA-256 of this version's build) and was removed. ` +
            'SkyCite downloads a verified copy the next time this device is online.'
        : `The server delivered ${file} with a SHA-256 that is not the one of this version's build, so it is not used. ` +
            'Reload later; if it persists, the site’s files are damaged or from another version: tell whoever hosts SkyCite.',
    );
    this.source = source;
  }
}

/** The SHA-256 of the files the build serves, by URL path, and the precached ones' service-worker keys. */
export interface ModelIntegrity {
  byPath: Map<string, string>;
  precached: Map<string, Pick<PrecacheIntegrityEntry, 'url' | 'revision'>>;
  /** The app's base URL (the list's URLs are relative to it). */
  base: string;
}

/**
 * The build's list (precache-integrity.json), from the service worker's copy or, when that is not a
 * list, from the server past the service worker; null where there is none (development server, offline
 * with a damaged list). `extra`: further files by URL path with their SRI (the index manifest's model).
 */
export async function loadModelIntegrity(appBase: string, fetchImpl: typeof fetch, extra: Record<string, string> = {}): Promise<ModelIntegrity | null> {
  const url = new URL(INTEGRITY_FILE, appBase).href;
  for (const [attempt, init] of [
    [url, {}],
    [`${url}?skycite-repair=${Date.now()}`, { cache: 'reload' }],
  ] as const) {
    try {
      const res = await fetchImpl(attempt, init);
      if (!res.ok) continue;
      const list = parseIntegrityList(await res.text());
      if (!list) continue;
      const byPath = new Map([...Object.entries(extra), ...integrityByPath(list, appBase)]);
      const precached = new Map(list.entries.map((e) => [new URL(e.url, appBase).pathname, e] as const));
      return { byPath, precached, base: appBase };
    } catch {
      // offline or refused: the next attempt, or none
    }
  }
  return Object.keys(extra).length ? { byPath: new Map(Object.entries(extra)), precached: new Map(), base: appBase } : null;
}

/** `sha256-<base64>` from a hex SHA-256 (the index manifest's form). */
export function sriFromHex(hex: string): string {
  let bin = '';
  for (let i = 0; i + 1 < hex.length; i += 2) bin += String.fromCharCode(parseInt(hex.slice(i, i + 2), 16));
  return `sha256-${btoa(bin)}`;
}

const urlOf = (input: RequestInfo | URL | string): string => (typeof input === 'string' ? input : input instanceof URL ? input.href : input.url);

/** The same response with these bytes as its body (no transfer encoding or length of the original). */
function withBody(res: Response, bytes: Uint8Array): Response {
  const headers = new Headers(res.headers);
  headers.delete('content-encoding');
  headers.set('content-length', String(bytes.byteLength));
  return new Response(bytes as Uint8Array<ArrayBuffer>, { status: 200, statusText: 'OK', headers });
}

export interface VerifyDeps {
  integrity: () => ModelIntegrity | null;
  caches: (CachesLike & { open(name: string): Promise<Cache> }) | undefined;
  /** Called with the file (its path) each time a damaged copy was replaced or removed. */
  onRepaired?: (file: string) => void;
}

type Fetch = (input: RequestInfo | URL, init?: RequestInit) => Promise<Response>;

/**
 * transformers.js' fetch, verified: a model file that fails its SHA-256 is deleted from every cache,
 * downloaded again past the service worker and the HTTP cache, checked, put back into the precache and
 * returned; ModelIntegrityError when no verified copy can be had.
 */
export function verifyingFetch(inner: Fetch, deps: VerifyDeps): Fetch {
  return async (input, init) => {
    const integrity = deps.integrity();
    const res = await inner(input, init);
    // a whole file only: not a HEAD request, a range or an error
    const method = (init?.method ?? (input instanceof Request ? input.method : 'GET')).toUpperCase();
    const ranged = new Headers(init?.headers ?? (input instanceof Request ? input.headers : undefined)).has('range');
    if (!integrity || res.status !== 200 || method !== 'GET' || ranged) return res;
    const url = new URL(urlOf(input), integrity.base);
    const expected = integrity.byPath.get(url.pathname);
    if (!expected) return res;
    const bytes = new Uint8Array(await res.arrayBuffer());
    if ((await sriSha256(bytes)) === expected) return withBody(res, bytes);
    // damaged: this device's offline copy (the service worker answered from its precache) or the server's file
    const file = url.pathname;
    await evictEverywhere([url.href], { caches: deps.caches, base: integrity.base }).catch(() => 0);
    const again = new URL(url.href);
    again.searchParams.set('skycite-repair', String(Date.now()));
    let fresh: Response;
    try {
      fresh = await inner(again.href, { cache: 'reload', credentials: 'same-origin' });
    } catch {
      throw new ModelIntegrityError(file, 'device');
    }
    const freshBytes = fresh.ok ? new Uint8Array(await fresh.arrayBuffer()) : null;
    if (!freshBytes || (await sriSha256(freshBytes)) !== expected) throw new ModelIntegrityError(file, 'host');
    // back where the service worker looks for it, so an offline start finds a verified copy
    const entry = integrity.precached.get(url.pathname);
    const precacheName = deps.caches ? (await deps.caches.keys()).find((n) => n.startsWith(WORKBOX_PRECACHE_PREFIX)) : undefined;
    if (entry && precacheName && deps.caches) {
      const pre = await deps.caches.open(precacheName);
      await pre.put(precacheKey(entry, integrity.base), withBody(fresh, freshBytes)).catch(() => undefined);
    }
    deps.onRepaired?.(file);
    return withBody(fresh, freshBytes);
  };
}

/** The part of the Web Cache API transformers.js uses as its `customCache`. */
export interface ModelCache {
  match(request: string): Promise<Response | undefined>;
  put(request: string, response: Response): Promise<void>;
  delete(request: string): Promise<boolean>;
}

/**
 * transformers.js' cache (MODEL_CACHE), verified: a stored copy that fails its SHA-256 is deleted and
 * reported missing (transformers.js then fetches it through `verifyingFetch`); a copy that fails is
 * never stored.
 */
export function verifiedModelCache(deps: VerifyDeps & { caches: NonNullable<VerifyDeps['caches']> }): ModelCache {
  const open = () => deps.caches.open(MODEL_CACHE);
  const expectedOf = (key: string): string | undefined => {
    const integrity = deps.integrity();
    return integrity?.byPath.get(new URL(key, integrity.base).pathname);
  };
  return {
    async match(key) {
      const cache = await open();
      const res = await cache.match(key);
      const expected = res ? expectedOf(key) : undefined;
      if (!res || !expected) return res;
      const bytes = new Uint8Array(await res.arrayBuffer());
      if ((await sriSha256(bytes)) === expected) return withBody(res, bytes);
      await cache.delete(key);
      deps.onRepaired?.(new URL(key, deps.integrity()!.base).pathname);
      return undefined;
    },
    async put(key, response) {
      const cache = await open();
      const expected = expectedOf(key);
      if (!expected) return cache.put(key, response);
      const bytes = new Uint8Array(await response.arrayBuffer());
      if ((await sriSha256(bytes)) !== expected) return;
      await cache.put(key, withBody(response, bytes));
    },
    async delete(key) {
      return (await open()).delete(key);
    },
  };
}

/** transformers.js' settings this module changes (its `env`). */
export interface TransformersEnvLike {
  fetch: Fetch;
  useCustomCache: boolean;
  customCache: unknown;
}

/**
 * Verify every model file transformers.js reads: its cache and its fetch wrapped (once per `env`);
 * the list is read through `integrity()` at each use, so a later init's list applies.
 */
export function installModelVerification(env: TransformersEnvLike, deps: VerifyDeps): void {
  const marked = env as TransformersEnvLike & { skyciteVerified?: boolean };
  if (marked.skyciteVerified) return;
  marked.skyciteVerified = true;
  env.fetch = verifyingFetch(env.fetch.bind(env), deps);
  if (deps.caches) {
    env.customCache = verifiedModelCache({ ...deps, caches: deps.caches });
    env.useCustomCache = true;
  }
}
