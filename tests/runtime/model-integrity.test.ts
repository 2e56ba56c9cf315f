/**
 * Every model and tokenizer file verified against its build SHA-256 before use (issue 36, item 2):
 * transformers.js' own cache and its fetch are wrapped. A damaged copy in its cache is deleted and
 * fetched again; a damaged copy the service worker answers with (its precache) is evicted, downloaded
 * again past it, put back and used; the server's copy not matching either is the host's problem,
 * no connection this device's. Fakes stand in for Cache Storage and the network.
 */
import { describe, expect, it, vi } from 'vitest';
import { INTEGRITY_FILE, sriSha256, type PrecacheIntegrityList } from '../../src/pwa/pwa-config.js';
import { precacheKey } from '../../src/pwa/repair.js';
import {
  installModelVerification,
  loadModelIntegrity,
  MODEL_CACHE,
  ModelIntegrityError,
  sriFromHex,
  verifiedModelCache,
  verifyingFetch,
  type ModelIntegrity,
} from '../../src/runtime/model-integrity.js';
import { problemSource } from '../../src/runtime/errors.js';

const BASE = 'https://skycite.example/';
const PRECACHE = 'workbox-precache-v2-https://skycite.example/';
const TOKENIZER = 'models/m/tokenizer.json';
const GOOD = new TextEncoder().encode('{"model":"tokenizer"}');
const BAD = new TextEncoder().encode('{"model":"tokenizeR"}');

class FakeCache {
  readonly entries = new Map<string, Uint8Array>();
  private key = (r: Request | string) => new URL(typeof r === 'string' ? r : r.url, BASE).href;
  async keys() {
    return [...this.entries.keys()].map((u) => new Request(u));
  }
  async match(r: Request | string) {
    const b = this.entries.get(this.key(r));
    return b ? new Response(b.slice()) : undefined;
  }
  async delete(r: Request | string) {
    return this.entries.delete(this.key(r));
  }
  async put(r: Request | string, res: Response) {
    this.entries.set(this.key(r), new Uint8Array(await res.arrayBuffer()));
  }
}
class FakeCaches {
  readonly named = new Map<string, FakeCache>();
  async keys() {
    return [...this.named.keys()];
  }
  async open(name: string) {
    if (!this.named.has(name)) this.named.set(name, new FakeCache());
    return this.named.get(name)! as unknown as Cache;
  }
  get(name: string) {
    return this.named.get(name)!;
  }
}

async function setup(served: Uint8Array = GOOD) {
  const list: PrecacheIntegrityList = { version: 1, entries: [{ url: TOKENIZER, revision: 'r1', integrity: await sriSha256(GOOD) }] };
  const integrity: ModelIntegrity = {
    byPath: new Map([[`/${TOKENIZER}`, await sriSha256(GOOD)]]),
    precached: new Map([[`/${TOKENIZER}`, list.entries[0]!]]),
    base: BASE,
  };
  const caches = new FakeCaches();
  const pre = (await caches.open(PRECACHE)) as unknown as FakeCache;
  pre.entries.set(precacheKey(list.entries[0]!, BASE), GOOD);
  // the network: the server's copy; the service worker would answer the plain URL from its precache
  const network = vi.fn(async (url: string, _init?: RequestInit) => {
    const u = new URL(url, BASE);
    if (u.pathname === `/${INTEGRITY_FILE}`) return new Response(JSON.stringify(list));
    if (u.pathname !== `/${TOKENIZER}`) return new Response('not found', { status: 404 });
    if (!u.searchParams.has('skycite-repair')) {
      const stored = await pre.match(precacheKey(list.entries[0]!, BASE));
      if (stored) return stored;
    }
    return new Response(served.slice());
  });
  const repaired: string[] = [];
  const deps = { integrity: () => integrity, caches: caches as never, onRepaired: (f: string) => repaired.push(f) };
  return { list, integrity, caches, pre, network, deps, repaired };
}

describe('transformers.js’ fetch, verified', () => {
  it('passes an intact file through', async () => {
    const s = await setup();
    const res = await verifyingFetch(s.network as never, s.deps)(`/${TOKENIZER}`);
    expect(new Uint8Array(await res.arrayBuffer())).toEqual(GOOD);
    expect(s.network).toHaveBeenCalledTimes(1);
  });

  it('replaces a damaged copy the service worker answers with: evicted, downloaded again past it, put back into the precache, used', async () => {
    const s = await setup();
    const key = precacheKey(s.list.entries[0]!, BASE);
    s.pre.entries.set(key, BAD);
    const res = await verifyingFetch(s.network as never, s.deps)(`/${TOKENIZER}`);
    expect(new Uint8Array(await res.arrayBuffer())).toEqual(GOOD);
    expect(s.pre.entries.get(key)).toEqual(GOOD);
    const [url, init] = s.network.mock.calls.at(-1)!;
    expect(url).toMatch(/tokenizer\.json\?skycite-repair=\d+$/);
    expect(init).toMatchObject({ cache: 'reload' });
    expect(s.repaired).toEqual([`/${TOKENIZER}`]);
  });

  it('refuses a file the server itself delivers damaged: the host’s problem, nothing stored', async () => {
    const s = await setup(BAD);
    s.pre.entries.clear();
    const err = await verifyingFetch(s.network as never, s.deps)(`/${TOKENIZER}`).catch((e: unknown) => e);
    expect(err).toBeInstanceOf(ModelIntegrityError);
    expect(problemSource(err)).toBe('host');
    expect((err as Error).message).toMatch(/server delivered .*tokenizer\.json/);
    expect(s.pre.entries.size).toBe(0);
  });

  it('offline with a damaged stored copy: removes it and says this device’s copy is damaged', async () => {
    const s = await setup();
    s.pre.entries.set(precacheKey(s.list.entries[0]!, BASE), BAD);
    const offline = vi.fn(async (url: string, init?: RequestInit) => {
      if (new URL(url, BASE).searchParams.has('skycite-repair')) throw new TypeError('Failed to fetch');
      return s.network(url, init);
    });
    const err = await verifyingFetch(offline as never, s.deps)(`/${TOKENIZER}`).catch((e: unknown) => e);
    expect(err).toBeInstanceOf(ModelIntegrityError);
    expect(problemSource(err)).toBe('device');
    expect(s.pre.entries.size).toBe(0);
  });

  it('leaves a HEAD request and a range alone (only a whole file is checked)', async () => {
    const s = await setup();
    s.pre.entries.set(precacheKey(s.list.entries[0]!, BASE), BAD);
    const fetch = verifyingFetch(s.network as never, s.deps);
    expect((await fetch(`/${TOKENIZER}`, { method: 'HEAD' })).ok).toBe(true);
    expect((await fetch(`/${TOKENIZER}`, { headers: { Range: 'bytes=0-3' } })).ok).toBe(true);
    expect(s.repaired).toEqual([]);
    expect(s.network).toHaveBeenCalledTimes(2);
  });

  it('uses a file the list does not name as it comes (no list: a development server)', async () => {
    const s = await setup();
    const res = await verifyingFetch(s.network as never, { ...s.deps, integrity: () => null })(`/${TOKENIZER}`);
    expect(res.ok).toBe(true);
  });
});

describe('transformers.js’ cache, verified', () => {
  it('deletes a damaged copy and reports it missing (so it is fetched again), returns an intact one', async () => {
    const s = await setup();
    const cache = verifiedModelCache({ ...s.deps, caches: s.caches as never });
    const models = (await s.caches.open(MODEL_CACHE)) as unknown as FakeCache;
    models.entries.set(`${BASE}${TOKENIZER}`, BAD);
    expect(await cache.match(`/${TOKENIZER}`)).toBeUndefined();
    expect(models.entries.size).toBe(0);
    models.entries.set(`${BASE}${TOKENIZER}`, GOOD);
    expect(new Uint8Array(await (await cache.match(`/${TOKENIZER}`))!.arrayBuffer())).toEqual(GOOD);
  });

  it('never stores a copy that fails its SHA-256', async () => {
    const s = await setup();
    const cache = verifiedModelCache({ ...s.deps, caches: s.caches as never });
    await cache.put(`/${TOKENIZER}`, new Response(BAD.slice()));
    expect(s.caches.get(MODEL_CACHE).entries.size).toBe(0);
    await cache.put(`/${TOKENIZER}`, new Response(GOOD.slice()));
    expect(s.caches.get(MODEL_CACHE).entries.get(`${BASE}${TOKENIZER}`)).toEqual(GOOD);
  });

  it('is installed once on transformers.js’ env: its cache and its fetch', async () => {
    const s = await setup();
    const env = { fetch: s.network as never, useCustomCache: false, customCache: null as unknown };
    installModelVerification(env, s.deps);
    const wrapped = env.fetch;
    installModelVerification(env, s.deps);
    expect(env.fetch).toBe(wrapped);
    expect(env.useCustomCache).toBe(true);
    expect(env.customCache).not.toBeNull();
  });
});

describe('the build’s list', () => {
  it('is read from the service worker’s copy, or from the server when that copy is not a list', async () => {
    const s = await setup();
    const fetchImpl = vi.fn(async (url: string) =>
      new URL(url).searchParams.has('skycite-repair') ? new Response(JSON.stringify(s.list)) : new Response('{"broken'),
    );
    const got = await loadModelIntegrity(BASE, fetchImpl as never);
    expect(got?.byPath.get(`/${TOKENIZER}`)).toBe(await sriSha256(GOOD));
    expect(got?.precached.get(`/${TOKENIZER}`)).toMatchObject({ revision: 'r1' });
    expect(fetchImpl).toHaveBeenCalledTimes(2);
  });

  it('converts the index manifest’s hex SHA-256 to SRI', async () => {
    const hex = [...new Uint8Array(await crypto.subtle.digest('SHA-256', GOOD))].map((b) => b.toString(16).padStart(2, '0')).join('');
    expect(sriFromHex(hex)).toBe(await sriSha256(GOOD));
  });
});
