/**
 * Self-healing offline copy. Every precached file carries its SHA-256 (src/pwa/pwa-config.ts,
 * integrityTransform; the list is INTEGRITY_FILE), and so does every model file the build serves.
 * Here the page checks what Cache Storage really holds against that list — the precache and every
 * other cache that holds a copy of a listed file (transformers.js' own model cache, the runtime
 * caches) — evicts a damaged copy and, online, downloads a precached file again with its integrity
 * checked by the browser and puts it back where the service worker looks for it. Nothing here
 * touches IndexedDB: the user's documents, settings and audit log are never affected.
 */
import { INTEGRITY_FILE, sriSha256, type PrecacheIntegrityEntry, type PrecacheIntegrityList } from './pwa-config';
import { WORKBOX_PRECACHE_PREFIX } from './storage';
import { schemaErrors } from '../core/schema/check';
import * as generated from '../core/schema/validators.generated';

export interface CacheLike {
  keys(): Promise<readonly Request[]>;
  match(request: Request | string): Promise<Response | undefined>;
  delete(request: Request | string): Promise<boolean>;
  put(request: Request | string, response: Response): Promise<void>;
}

export interface CachesLike {
  keys(): Promise<string[]>;
  open(name: string): Promise<CacheLike>;
}

export interface RepairEnv {
  caches?: CachesLike | undefined;
  fetch?: ((input: string, init?: RequestInit) => Promise<Response>) | undefined;
  /** The app's base URL (default: the document's base). */
  base?: string;
  onLine?: boolean | undefined;
}

function env(e: RepairEnv = {}): Required<Pick<RepairEnv, 'base'>> & RepairEnv {
  const g = globalThis as {
    caches?: CachesLike;
    fetch?: typeof fetch;
    document?: { baseURI?: string };
    location?: { href?: string };
    navigator?: { onLine?: boolean };
  };
  return {
    caches: 'caches' in e ? e.caches : g.caches,
    fetch: e.fetch ?? (g.fetch ? (i, init) => g.fetch!(i, init) : undefined),
    base: e.base ?? g.document?.baseURI ?? g.location?.href ?? 'http://localhost/',
    onLine: 'onLine' in e ? e.onLine : g.navigator?.onLine,
  };
}

/** The service worker's cache key of an entry (Workbox appends the revision of a file whose name carries no hash). */
export function precacheKey(entry: Pick<PrecacheIntegrityEntry, 'url' | 'revision'>, base: string): string {
  const u = new URL(entry.url, base);
  if (entry.revision) u.searchParams.set('__WB_REVISION__', entry.revision);
  return u.href;
}

/** The path of a URL without its query: the same file in any cache. */
const pathOf = (url: string, base: string): string => new URL(url, base).pathname;

/** Parse INTEGRITY_FILE; null when it is not a list this app wrote (INTEGRITY_LIST_SCHEMA). */
export function parseIntegrityList(text: string): PrecacheIntegrityList | null {
  let v: unknown;
  try {
    v = JSON.parse(text);
  } catch {
    return null;
  }
  return schemaErrors(generated.precacheIntegrityList, v).length ? null : (v as PrecacheIntegrityList);
}

/** Every file the list names (precached or a model file), by its URL path: its SHA-256 as SRI. */
export function integrityByPath(list: PrecacheIntegrityList, base: string): Map<string, string> {
  const out = new Map<string, string>();
  for (const m of list.models ?? []) out.set(pathOf(m.url, base), m.integrity);
  for (const e of list.entries) out.set(pathOf(e.url, base), e.integrity);
  return out;
}

async function precache(e: RepairEnv): Promise<CacheLike | null> {
  if (!e.caches) return null;
  const name = (await e.caches.keys()).find((n) => n.startsWith(WORKBOX_PRECACHE_PREFIX));
  return name ? e.caches.open(name) : null;
}

/** The integrity list: the precached copy when it is intact JSON, else the server's (online). */
export async function loadIntegrityList(e0: RepairEnv = {}): Promise<PrecacheIntegrityList | null> {
  const e = env(e0);
  const cache = await precache(e).catch(() => null);
  if (cache) {
    const keys = await cache.keys();
    const key = keys.find((k) => pathOf(k.url, e.base) === pathOf(INTEGRITY_FILE, e.base));
    const res = key ? await cache.match(key) : undefined;
    const list = res ? parseIntegrityList(await res.text()) : null;
    if (list) return list;
    // damaged: gone, so the service worker fetches it again (with its integrity) on the next request
    if (key && res) await cache.delete(key);
  }
  if (!e.fetch || e.onLine === false) return null;
  try {
    const res = await e.fetch(new URL(INTEGRITY_FILE, e.base).href, { cache: 'no-cache' });
    return res.ok ? parseIntegrityList(await res.text()) : null;
  } catch {
    return null;
  }
}

/** What a check of the offline copy found. */
export interface CopyCheck {
  /** Entries whose stored copy fails its SHA-256. */
  damaged: PrecacheIntegrityEntry[];
  /**
   * Copies of listed files in the other caches (transformers.js' model cache, the runtime caches)
   * that fail their SHA-256, by cache name and URL: deleted by the repair (the library fetches a
   * verified copy on its next use).
   */
  damagedElsewhere: { cache: string; url: string; file: string }[];
  /** Entries not in the precache at all. */
  missing: PrecacheIntegrityEntry[];
  checked: number;
  /** False when there is nothing to check against (no service worker cache, no list). */
  available: boolean;
}

/**
 * Check the stored copy of each precached file (all of them, or those `only` accepts) against
 * its SHA-256.
 */
export async function checkOfflineCopy(e0: RepairEnv = {}, only?: (url: string) => boolean): Promise<CopyCheck> {
  const e = env(e0);
  const none: CopyCheck = { damaged: [], damagedElsewhere: [], missing: [], checked: 0, available: false };
  const list = await loadIntegrityList(e);
  const cache = await precache(e).catch(() => null);
  if (!list || !cache) return none;
  const result: CopyCheck = { damaged: [], damagedElsewhere: [], missing: [], checked: 0, available: true };
  for (const entry of list.entries) {
    if (only && !only(entry.url)) continue;
    const res = await cache.match(precacheKey(entry, e.base));
    result.checked++;
    if (!res) {
      result.missing.push(entry);
      continue;
    }
    const bytes = new Uint8Array(await res.arrayBuffer());
    if ((await sriSha256(bytes)) !== entry.integrity) result.damaged.push(entry);
  }
  // every other cache's copies of the listed files (transformers.js keeps its own copy of each model file)
  const expected = integrityByPath(list, e.base);
  const basePath = new URL(e.base).pathname;
  const precacheName = (await e.caches!.keys()).find((n) => n.startsWith(WORKBOX_PRECACHE_PREFIX));
  for (const name of await e.caches!.keys()) {
    if (name === precacheName) continue;
    const other = await e.caches!.open(name);
    for (const req of await other.keys()) {
      const path = new URL(req.url).pathname;
      const integrity = expected.get(path);
      // the file as the list names it (relative to the app's base)
      const file = path.startsWith(basePath) ? path.slice(basePath.length) : path;
      if (!integrity || (only && !only(file))) continue;
      const res = await other.match(req);
      if (!res) continue;
      result.checked++;
      if ((await sriSha256(new Uint8Array(await res.arrayBuffer()))) !== integrity) result.damagedElsewhere.push({ cache: name, url: req.url, file });
    }
  }
  return result;
}

/** Delete every stored copy of these files from every cache (precache and runtime caches); the number of copies deleted. */
export async function evictEverywhere(urls: readonly string[], e0: RepairEnv = {}): Promise<number> {
  const e = env(e0);
  if (!e.caches || !urls.length) return 0;
  const paths = new Set(urls.map((u) => pathOf(u, e.base)));
  let n = 0;
  for (const name of await e.caches.keys()) {
    const cache = await e.caches.open(name);
    for (const req of await cache.keys()) {
      if (paths.has(new URL(req.url).pathname) && (await cache.delete(req))) n++;
    }
  }
  return n;
}

export interface RefetchResult {
  restored: string[];
  /** Files the server did not deliver intact (or at all), with the reason. */
  failed: { url: string; reason: string }[];
}

/**
 * Download these files again (bypassing the HTTP cache, integrity checked by the browser) and
 * store them under the service worker's keys. Nothing is stored unless it matches.
 */
export async function refetch(
  entries: readonly PrecacheIntegrityEntry[],
  e0: RepairEnv = {},
  onProgress?: (done: number, total: number) => void,
): Promise<RefetchResult> {
  const e = env(e0);
  const out: RefetchResult = { restored: [], failed: [] };
  const cache = await precache(e).catch(() => null);
  if (!e.fetch || !cache) {
    for (const entry of entries) out.failed.push({ url: entry.url, reason: 'no offline copy to repair (service worker cache missing)' });
    return out;
  }
  let done = 0;
  for (const entry of entries) {
    try {
      // a query the service worker's routes do not match: straight to the network, never its cached copy
      const url = new URL(entry.url, e.base);
      url.searchParams.set('skycite-repair', String(Date.now()));
      const res = await e.fetch(url.href, { cache: 'reload', integrity: entry.integrity, credentials: 'same-origin' });
      const bytes = res.ok ? new Uint8Array(await res.arrayBuffer()) : null;
      // the browser checked the integrity; checked again here where a fake or older fetch does not
      const problem = !bytes ? `HTTP ${res.status}` : (await sriSha256(bytes)) !== entry.integrity ? 'the download does not match its SHA-256' : null;
      if (problem || !bytes) out.failed.push({ url: entry.url, reason: problem ?? '' });
      else {
        const headers = new Headers(res.headers);
        headers.delete('content-encoding');
        headers.delete('content-length');
        await cache.put(precacheKey(entry, e.base), new Response(bytes, { status: 200, statusText: 'OK', headers }));
        out.restored.push(entry.url);
      }
    } catch (err) {
      out.failed.push({ url: entry.url, reason: err instanceof Error ? err.message : String(err) });
    }
    onProgress?.(++done, entries.length);
  }
  return out;
}

export interface HealResult {
  check: CopyCheck;
  /** Copies deleted from the caches. */
  evicted: number;
  /** null when offline (nothing downloaded yet). */
  refetched: RefetchResult | null;
}

/**
 * Check, evict what is damaged and, online, download it again. `full`: download every file
 * again (Settings → Repair offline copy), not only the damaged and missing ones.
 */
export async function healOfflineCopy(
  options: { full?: boolean; only?: (url: string) => boolean; onProgress?: (done: number, total: number) => void } = {},
  e0: RepairEnv = {},
): Promise<HealResult> {
  const e = env(e0);
  const check = await checkOfflineCopy(e, options.only);
  const bad = [...check.damaged, ...check.missing];
  let evicted = await evictEverywhere(
    check.damaged.map((d) => d.url),
    e,
  );
  for (const copy of check.damagedElsewhere) {
    if (await (await e.caches!.open(copy.cache)).delete(copy.url).catch(() => false)) evicted++;
  }
  if (e.onLine === false) return { check, evicted, refetched: null };
  let todo = bad;
  if (options.full) {
    const list = await loadIntegrityList(e);
    todo = list ? list.entries.filter((x) => !options.only || options.only(x.url)) : bad;
  }
  const refetched = await refetch(todo, e, options.onProgress);
  return { check, evicted, refetched };
}

/** A damaged file in words a user understands (what it is, not its path). */
export function describeAsset(url: string): string {
  const path = url.replace(/^\.?\//, '');
  if (path.startsWith('static-index/')) return 'the regulation index';
  if (path.startsWith('models/')) return 'the search model';
  if (path.startsWith('ort/') || /\.wasm$/.test(path)) return 'the search engine';
  if (path.startsWith('icons/') || /\.(?:png|svg|ico)$/.test(path)) return 'the app icons';
  if (path === INTEGRITY_FILE) return 'the list of stored files';
  return 'the app itself';
}

/** "the regulation index and the search model" */
export function describeAssets(urls: readonly string[]): string {
  const parts = [...new Set(urls.map(describeAsset))];
  if (parts.length <= 1) return parts[0] ?? 'nothing';
  return `${parts.slice(0, -1).join(', ')} and ${parts[parts.length - 1]}`;
}
