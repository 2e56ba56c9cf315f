import { createHash } from 'node:crypto';
import { describe, expect, it, vi } from 'vitest';
import { INTEGRITY_FILE, integrityTransform, sriSha256, type PrecacheIntegrityList } from '../../src/pwa/pwa-config.js';
import {
  checkOfflineCopy,
  describeAssets,
  evictEverywhere,
  healOfflineCopy,
  parseIntegrityList,
  precacheKey,
  type CacheLike,
  type CachesLike,
} from '../../src/pwa/repair.js';
import { describeHeal, OfflineCopyStatus } from '../../src/pwa/offline-copy.svelte.js';
import { BOOT_MESSAGES, repairAppCode, type BootGuardHost } from '../../src/pwa/boot-guard.js';
import { hasRoomFor } from '../../src/pwa/storage.js';
import {
  isMissingChunkError,
  RELOAD_NOTICES,
  setReloadNotice,
  shouldReloadForChunk,
  takeReloadNotice,
  type SessionStore,
} from '../../src/pwa/reload-notice.js';

const BASE = 'https://skycite.example/';
const PRECACHE = 'workbox-precache-v2-https://skycite.example/';
const enc = (s: string) => new TextEncoder().encode(s);

class FakeCache implements CacheLike {
  readonly entries = new Map<string, Uint8Array>();
  async keys() {
    return [...this.entries.keys()].map((u) => new Request(u));
  }
  async match(r: Request | string) {
    const b = this.entries.get(typeof r === 'string' ? r : r.url);
    return b ? new Response(b.slice()) : undefined;
  }
  async delete(r: Request | string) {
    return this.entries.delete(typeof r === 'string' ? r : r.url);
  }
  async put(r: Request | string, res: Response) {
    this.entries.set(typeof r === 'string' ? r : r.url, new Uint8Array(await res.arrayBuffer()));
  }
}
class FakeCaches implements CachesLike {
  readonly named = new Map<string, FakeCache>();
  async keys() {
    return [...this.named.keys()];
  }
  async open(name: string) {
    if (!this.named.has(name)) this.named.set(name, new FakeCache());
    return this.named.get(name)!;
  }
}

/** A deployment of three files, stored as the service worker's install stores them, and its server. */
async function deployment() {
  const files: Record<string, Uint8Array> = {
    'index.html': enc('<!doctype html>'),
    'static-index/vectors.f32': new Uint8Array([1, 2, 3, 4]),
    'assets/index-abc.js': enc('console.log(1)'),
  };
  const written = new Map<string, Uint8Array>();
  const transform = integrityTransform({ read: (u) => files[u]!, write: (u, b) => void written.set(u, b) });
  const { manifest } = await transform([
    { url: 'index.html', revision: 'r1', size: 0 },
    { url: 'static-index/vectors.f32', revision: 'r2', size: 0 },
    { url: 'assets/index-abc.js', revision: null, size: 0 },
  ]);
  files[INTEGRITY_FILE] = written.get(INTEGRITY_FILE)!;
  const caches = new FakeCaches();
  const pre = await caches.open(PRECACHE);
  for (const e of manifest) pre.entries.set(precacheKey(e, BASE), files[e.url]!);
  const served = { ...files };
  const fetch = vi.fn(async (url: string, init?: RequestInit) => {
    const path = new URL(url).pathname.slice(1);
    const body = served[path];
    if (!body) return new Response('not found', { status: 404 });
    // what the browser does with `integrity`: refuse a body that does not match
    if (init?.integrity && (await sriSha256(body)) !== init.integrity) throw new TypeError('Failed to fetch (integrity)');
    return new Response(body.slice(), { status: 200 });
  });
  return { manifest, caches, pre, served, fetch, files };
}

describe('integrityTransform (build time)', () => {
  it('gives every precache entry its SHA-256 as SRI and precaches the list of them', async () => {
    const { manifest, files } = await deployment();
    expect(manifest.map((e) => e.url)).toEqual(['index.html', 'static-index/vectors.f32', 'assets/index-abc.js', INTEGRITY_FILE]);
    expect(manifest[1]!.integrity).toBe(await sriSha256(new Uint8Array([1, 2, 3, 4])));
    // the SHA-256 of [1,2,3,4] as Node computes it
    expect(manifest[1]!.integrity).toBe(
      `sha256-${createHash('sha256')
        .update(Buffer.from([1, 2, 3, 4]))
        .digest('base64')}`,
    );
    const list = parseIntegrityList(new TextDecoder().decode(files[INTEGRITY_FILE]))!;
    expect(list.entries).toHaveLength(3);
    expect(list.entries[2]).toEqual({ url: 'assets/index-abc.js', revision: null, integrity: manifest[2]!.integrity });
    expect(manifest[3]!.revision).toMatch(/^[0-9a-f]{32}$/);
  });

  it('refuses a list that is not one (damaged JSON, wrong version, no SRI)', () => {
    expect(parseIntegrityList('{"version":1,"entries":[{"url":"a","revision":null,"integrity":"md5-x"}]}')).toBeNull();
    expect(parseIntegrityList('\u0000garbage')).toBeNull();
    expect(parseIntegrityList(JSON.stringify({ version: 2, entries: [] } satisfies Omit<PrecacheIntegrityList, 'version'> & { version: number }))).toBeNull();
  });
});

describe('the offline copy repairs itself', () => {
  it('finds a damaged precached file, evicts it from every cache and, online, stores a verified copy under the service worker key', async () => {
    const d = await deployment();
    const key = precacheKey({ url: 'static-index/vectors.f32', revision: 'r2' }, BASE);
    expect(key).toBe('https://skycite.example/static-index/vectors.f32?__WB_REVISION__=r2');
    d.pre.entries.set(key, enc('garbage'));
    // a runtime cache holding a copy of the same file (another query) is cleaned too
    (await d.caches.open('transformers-cache')).entries.set(`${BASE}static-index/vectors.f32?v=1`, enc('garbage'));
    const check = await checkOfflineCopy({ caches: d.caches, fetch: d.fetch, base: BASE, onLine: true });
    expect(check.damaged.map((x) => x.url)).toEqual(['static-index/vectors.f32']);
    // the three precached files, and the other cache's copy of one of them
    expect(check.checked).toBe(4);
    expect(check.damagedElsewhere.map((c) => [c.cache, c.file])).toEqual([['transformers-cache', 'static-index/vectors.f32']]);

    const r = await healOfflineCopy({}, { caches: d.caches, fetch: d.fetch, base: BASE, onLine: true });
    expect(r.evicted).toBe(2);
    expect(r.refetched?.restored).toEqual(['static-index/vectors.f32']);
    expect([...d.pre.entries.get(key)!]).toEqual([1, 2, 3, 4]);
    expect((await d.caches.open('transformers-cache')).entries.size).toBe(0);
    // the download bypassed the service worker's routes (a query they do not match) and the HTTP cache
    const [url, init] = d.fetch.mock.calls.at(-1)!;
    expect(url).toMatch(/static-index\/vectors\.f32\?skycite-repair=\d+$/);
    expect(init).toMatchObject({ cache: 'reload', integrity: d.manifest[1]!.integrity });
    expect(describeHeal(r)).toEqual({ phase: 'done', message: 'SkyCite found the regulation index damaged on this device and downloaded a verified copy.' });
    // and a second check finds nothing
    expect((await checkOfflineCopy({ caches: d.caches, fetch: d.fetch, base: BASE })).damaged).toEqual([]);
  });

  it('offline: evicts, downloads nothing, and says in user words that it repairs itself when online', async () => {
    const d = await deployment();
    d.pre.entries.set(precacheKey({ url: 'assets/index-abc.js', revision: null }, BASE), enc('garbage'));
    const r = await healOfflineCopy({}, { caches: d.caches, fetch: d.fetch, base: BASE, onLine: false });
    expect(r.refetched).toBeNull();
    expect(d.fetch).not.toHaveBeenCalled();
    const said = describeHeal(r);
    expect(said.phase).toBe('waiting-online');
    expect(said.message).toContain('the app itself');
    expect(said.message).toContain('the next time this device is online');
    expect(said.message).not.toMatch(/npm|git|sha-?256|\.js/i);
    // evicted earlier, still offline: reported as damaged, not as fine
    const again = describeHeal(await healOfflineCopy({}, { caches: d.caches, fetch: d.fetch, base: BASE, onLine: false }));
    expect(again.phase).toBe('waiting-online');
  });

  it('does not store what the server delivers damaged, and says so', async () => {
    const d = await deployment();
    d.pre.entries.set(precacheKey({ url: 'static-index/vectors.f32', revision: 'r2' }, BASE), enc('garbage'));
    d.served['static-index/vectors.f32'] = enc('also garbage');
    const r = await healOfflineCopy({}, { caches: d.caches, fetch: d.fetch, base: BASE, onLine: true });
    expect(r.refetched?.failed.map((f) => f.url)).toEqual(['static-index/vectors.f32']);
    expect(d.pre.entries.has(precacheKey({ url: 'static-index/vectors.f32', revision: 'r2' }, BASE))).toBe(false);
    expect(describeHeal(r).phase).toBe('failed');
  });

  it('full repair downloads every file again; nothing outside Cache Storage is involved', async () => {
    const d = await deployment();
    const r = await healOfflineCopy({ full: true }, { caches: d.caches, fetch: d.fetch, base: BASE, onLine: true });
    expect(r.refetched?.restored).toEqual(['index.html', 'static-index/vectors.f32', 'assets/index-abc.js']);
    expect(d.fetch).toHaveBeenCalledTimes(3);
  });

  it('a damaged integrity list is evicted and the server copy used', async () => {
    const d = await deployment();
    const listKey = precacheKey(d.manifest[3]!, BASE);
    d.pre.entries.set(listKey, enc('{"broken'));
    const check = await checkOfflineCopy({ caches: d.caches, fetch: d.fetch, base: BASE, onLine: true });
    expect(check.available).toBe(true);
    expect(check.checked).toBe(3);
    expect(d.pre.entries.has(listKey)).toBe(false);
    expect(await evictEverywhere(['index.html'], { caches: d.caches, base: BASE })).toBe(1);
  });

  it('finds a damaged copy in transformers.js’ own cache of an intact precached model file, removes only that copy, and says so', async () => {
    const d = await deployment();
    const models = await d.caches.open('transformers-cache');
    const copy = `${BASE}static-index/vectors.f32`;
    models.entries.set(copy, enc('garbage'));
    const r = await healOfflineCopy({}, { caches: d.caches, fetch: d.fetch, base: BASE, onLine: true });
    expect(r.check.damaged).toEqual([]);
    expect(r.check.damagedElsewhere.map((c) => c.url)).toEqual([copy]);
    expect(models.entries.has(copy)).toBe(false);
    // the intact precached copy stays where it is, nothing is downloaded
    expect([...d.pre.entries.get(precacheKey({ url: 'static-index/vectors.f32', revision: 'r2' }, BASE))!]).toEqual([1, 2, 3, 4]);
    expect(d.fetch).not.toHaveBeenCalled();
    expect(describeHeal(r)).toEqual({
      phase: 'done',
      message: 'SkyCite found a damaged copy of the regulation index on this device and removed it; its verified offline copy is used instead.',
    });
    // an intact copy there is left alone
    models.entries.set(copy, new Uint8Array([1, 2, 3, 4]));
    expect((await checkOfflineCopy({ caches: d.caches, fetch: d.fetch, base: BASE })).damagedElsewhere).toEqual([]);
  });

  it('checks the copies of model files the build lists but does not precache (a library’s own cache)', async () => {
    const files = { 'index.html': enc('<!doctype html>'), 'models/r/onnx/model_quantized.onnx': new Uint8Array([9, 9, 9]) };
    const written = new Map<string, Uint8Array>();
    const { manifest } = await integrityTransform({ read: (u) => files[u as keyof typeof files]!, write: (u, b) => void written.set(u, b) }, () => [
      'models/r/onnx/model_quantized.onnx',
    ])([{ url: 'index.html', revision: 'r1', size: 0 }]);
    const list = parseIntegrityList(new TextDecoder().decode(written.get(INTEGRITY_FILE)))!;
    expect(list.models).toEqual([{ url: 'models/r/onnx/model_quantized.onnx', integrity: await sriSha256(new Uint8Array([9, 9, 9])) }]);
    const caches = new FakeCaches();
    const pre = await caches.open(PRECACHE);
    for (const e of manifest)
      pre.entries.set(precacheKey(e, BASE), e.url === INTEGRITY_FILE ? written.get(INTEGRITY_FILE)! : files[e.url as keyof typeof files]!);
    (await caches.open('transformers-cache')).entries.set(`${BASE}models/r/onnx/model_quantized.onnx`, enc('garbage'));
    const check = await checkOfflineCopy({ caches, base: BASE, onLine: false });
    expect(check.damagedElsewhere.map((c) => c.file)).toEqual(['models/r/onnx/model_quantized.onnx']);
  });

  it('names damaged files in user words', () => {
    expect(describeAssets(['static-index/vectors.f32', 'static-index/chunks.json', 'models/a/b/onnx/model_quantized.onnx', 'assets/index-x.js'])).toBe(
      'the regulation index, the search model and the app itself',
    );
  });
});

class MemoryStore implements SessionStore {
  m = new Map<string, string>();
  getItem(k: string) {
    return this.m.get(k) ?? null;
  }
  setItem(k: string, v: string) {
    this.m.set(k, v);
  }
  removeItem(k: string) {
    this.m.delete(k);
  }
}

describe('reload notices', () => {
  it('a reloaded tab says why, once', () => {
    const s = new MemoryStore();
    expect(takeReloadNotice(s)).toBeNull();
    setReloadNotice('updated-elsewhere', s);
    expect(takeReloadNotice(s)).toBe(RELOAD_NOTICES['updated-elsewhere']);
    expect(takeReloadNotice(s)).toBeNull();
  });

  it('reloads for a missing chunk at most once a minute (no reload loop)', () => {
    const s = new MemoryStore();
    expect(shouldReloadForChunk(1_000_000, s)).toBe(true);
    expect(shouldReloadForChunk(1_030_000, s)).toBe(false);
    expect(shouldReloadForChunk(1_061_000, s)).toBe(true);
  });

  it('recognises the browsers’ missing-module errors', () => {
    expect(isMissingChunkError(new TypeError('Failed to fetch dynamically imported module: https://x/assets/pdf-1.js'))).toBe(true);
    expect(isMissingChunkError(new TypeError('Importing a module script failed.'))).toBe(true);
    expect(isMissingChunkError(new Error('Index not available'))).toBe(false);
  });
});

describe('hasRoomFor (the space for the offline copy, tried for real)', () => {
  const cachesWith = (put: () => Promise<void>) => {
    const deleted: string[] = [];
    return { deleted, caches: { open: async () => ({ put }), delete: async (n: string) => (deleted.push(n), true) } };
  };
  it('false when the quota refuses the write, true when it fits; the probe is deleted either way', async () => {
    const full = cachesWith(async () => {
      throw new DOMException('quota', 'QuotaExceededError');
    });
    expect(await hasRoomFor(1024, full)).toBe(false);
    expect(full.deleted).toEqual(['skycite-space-probe']);
    const room = cachesWith(async () => undefined);
    expect(await hasRoomFor(1024, room)).toBe(true);
    expect(room.deleted).toEqual(['skycite-space-probe']);
    expect(
      await hasRoomFor(
        1024,
        cachesWith(async () => Promise.reject(new Error('other'))),
      ),
    ).toBeNull();
  });
});

describe('OfflineCopyStatus.stillStored', () => {
  it('false once the registration or the precache (or its list of files) is gone', async () => {
    const d = await deployment();
    const status = (reg: boolean) => new OfflineCopyStatus({ caches: d.caches, getRegistration: async () => (reg ? {} : undefined) });
    expect(await status(true).stillStored()).toBe(true);
    expect(await status(false).stillStored()).toBe(false);
    // a running service worker re-creates an empty precache of the same name: still gone
    d.pre.entries.clear();
    expect(await status(true).stillStored()).toBe(false);
  });
});

describe('skyCitePwaOptions and the integrity transform', () => {
  it('adds the transform only when the build output can be read', async () => {
    const { skyCitePwaOptions } = await import('../../src/pwa/pwa-config.js');
    expect(skyCitePwaOptions().workbox?.manifestTransforms).toBeUndefined();
    const io = { read: () => new Uint8Array(), write: () => undefined };
    expect(skyCitePwaOptions({ integrityIO: io }).workbox?.manifestTransforms).toHaveLength(1);
  });
});

/** The page as the boot guard sees it, recording what it did. */
function bootHost(onLine: boolean, lastRepair: number | null = null) {
  const did = { said: [] as string[], reloads: 0, remembered: null as number | null, waitsForOnline: false };
  const host: BootGuardHost = {
    say: (t) => void did.said.push(t),
    lastRepair: () => lastRepair,
    rememberRepair: (at) => void (did.remembered = at),
    now: () => 1_000_000,
    onLine: () => onLine,
    reload: () => void did.reloads++,
    whenOnline: () => void (did.waitsForOnline = true),
  };
  return { host, did };
}

describe('the boot guard (typed code, through the one repair)', () => {
  it('leaves an intact copy alone', async () => {
    const d = await deployment();
    const { host, did } = bootHost(true);
    expect(await repairAppCode(host, { caches: d.caches, fetch: d.fetch, base: BASE, onLine: true })).toBe('intact');
    expect(did).toMatchObject({ said: [], reloads: 0, remembered: null });
  });

  it('evicts damaged app code from every cache and reloads; a damaged data file is not its business', async () => {
    const d = await deployment();
    const code = precacheKey({ url: 'assets/index-abc.js', revision: null }, BASE);
    d.pre.entries.set(code, enc('garbage'));
    d.pre.entries.set(precacheKey({ url: 'static-index/vectors.f32', revision: 'r2' }, BASE), enc('garbage'));
    const { host, did } = bootHost(true);
    expect(await repairAppCode(host, { caches: d.caches, fetch: d.fetch, base: BASE, onLine: true })).toBe('repaired');
    expect(d.pre.entries.has(code)).toBe(false);
    expect(d.pre.entries.has(precacheKey({ url: 'static-index/vectors.f32', revision: 'r2' }, BASE))).toBe(true);
    expect(did).toMatchObject({ reloads: 1, remembered: 1_000_000, said: [] });
  });

  it('offline: says so in words and reloads once back online; within a minute of a repair it only says it could not repair yet', async () => {
    const d = await deployment();
    d.pre.entries.set(precacheKey({ url: 'index.html', revision: 'r1' }, BASE), enc('garbage'));
    const offline = bootHost(false);
    expect(await repairAppCode(offline.host, { caches: d.caches, fetch: d.fetch, base: BASE, onLine: false })).toBe('repaired-offline');
    expect(offline.did).toMatchObject({ said: [BOOT_MESSAGES.offline], reloads: 0, waitsForOnline: true });
    const again = bootHost(true, 1_000_000 - 30_000);
    expect(await repairAppCode(again.host, { caches: d.caches, fetch: d.fetch, base: BASE, onLine: true })).toBe('too-soon');
    expect(again.did).toMatchObject({ said: [BOOT_MESSAGES.tooSoon], reloads: 0 });
  });
});
