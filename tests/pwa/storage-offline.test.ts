import { describe, expect, it, vi } from 'vitest';
import { checkIndexReachable, classifyIndexFailure, detectOfflineBeforeFirstLoad, watchConnectivity } from '../../src/pwa/offline.js';
import {
  clearCaches,
  describeEstimate,
  estimateStorage,
  isPersisted,
  requestPersistence,
  type IdbFactoryLike,
  type StorageEnv,
} from '../../src/pwa/storage.js';

describe('storage estimate and persistence', () => {
  it('falls back safely when the Storage API is missing (and in Node by default)', async () => {
    expect(await requestPersistence({})).toBeNull();
    expect(await isPersisted({})).toBeNull();
    expect(await estimateStorage({})).toEqual({ usage: null, quota: null, persisted: null });
    expect(await estimateStorage()).toEqual({ usage: null, quota: null, persisted: null });
    expect(describeEstimate({ usage: null, quota: null, persisted: null })).toBe('unknown of unknown used; persistence unknown.');
  });

  it('reports usage, quota and persistence', async () => {
    const storage = {
      persist: vi.fn(async () => true),
      persisted: vi.fn(async () => true),
      estimate: vi.fn(async () => ({ usage: 1.5 * 1024 ** 3, quota: 10 * 1024 ** 3 })),
    };
    expect(await requestPersistence({ storage })).toBe(true);
    const est = await estimateStorage({ storage });
    expect(est).toEqual({ usage: 1.5 * 1024 ** 3, quota: 10 * 1024 ** 3, persisted: true });
    expect(describeEstimate(est)).toBe('1.5 GB of 10.0 GB used; protected from automatic clean-up.');
  });

  it('survives throwing or partial implementations', async () => {
    const storage = {
      persist: async () => {
        throw new Error('nope');
      },
      persisted: async () => {
        throw new Error('nope');
      },
      estimate: async () => ({ usage: Number.NaN }),
    };
    expect(await requestPersistence({ storage })).toBe(false);
    expect(await estimateStorage({ storage })).toEqual({ usage: null, quota: null, persisted: null });
    const failing = { estimate: async () => Promise.reject(new Error('x')), persisted: async () => false };
    expect(await estimateStorage({ storage: failing })).toEqual({ usage: null, quota: null, persisted: false });
  });
});

function fakeCaches(names: string[]) {
  const present = new Set(names);
  return {
    present,
    keys: async () => [...present],
    delete: async (n: string) => present.delete(n),
  };
}

function fakeIdb(outcomes: Record<string, 'success' | 'blocked' | 'error'> = {}): IdbFactoryLike & { deleted: string[] } {
  const deleted: string[] = [];
  return {
    deleted,
    deleteDatabase(name: string) {
      const req = { onsuccess: null as null | (() => void), onerror: null as null | (() => void), onblocked: null as null | (() => void) };
      queueMicrotask(() => {
        const o = outcomes[name] ?? 'success';
        if (o === 'success') {
          deleted.push(name);
          req.onsuccess?.();
        } else if (o === 'blocked') req.onblocked?.();
        else req.onerror?.();
      });
      return req;
    },
  };
}

describe('clearCaches', () => {
  const names = [
    'workbox-precache-v2-https://skycite.example/',
    'transformers-cache',
    'webllm/model',
    'webllm/config',
    'webllm/wasm',
    'models/vector-sets',
    'old-runtime',
  ];

  it('keeps the precache by default and deletes app caches and WebLLM caches and databases', async () => {
    const caches = fakeCaches(names);
    const indexedDB = fakeIdb();
    const r = await clearCaches({}, { caches, indexedDB });
    expect([...caches.present]).toEqual(['workbox-precache-v2-https://skycite.example/']);
    expect(r.deletedCaches.sort()).toEqual(['models/vector-sets', 'old-runtime', 'transformers-cache', 'webllm/config', 'webllm/model', 'webllm/wasm']);
    expect(r.deletedDatabases).toEqual(['webllm/model', 'webllm/config', 'webllm/wasm']);
    expect(r.problems).toEqual([]);
  });

  it('can keep the models (language models, a downloaded retrieval model and its vectors), or clear the precache too, or keep only a named precache', async () => {
    const c1 = fakeCaches(names);
    const idb1 = fakeIdb();
    await clearCaches({ includeModels: false }, { caches: c1, indexedDB: idb1 });
    expect([...c1.present].sort()).toEqual([
      'models/vector-sets',
      'transformers-cache',
      'webllm/config',
      'webllm/model',
      'webllm/wasm',
      'workbox-precache-v2-https://skycite.example/',
    ]);
    expect(idb1.deleted).toEqual([]);

    const c2 = fakeCaches(names);
    await clearCaches({ keepPrecache: false }, { caches: c2 });
    expect(c2.present.size).toBe(0);

    const c3 = fakeCaches([...names, 'workbox-precache-v2-https://old.example/']);
    await clearCaches({ precacheName: 'workbox-precache-v2-https://skycite.example/' }, { caches: c3 });
    expect([...c3.present]).toEqual(['workbox-precache-v2-https://skycite.example/']);
  });

  it('reports blocked or failed database deletions and works without Cache Storage', async () => {
    const env: StorageEnv = { indexedDB: fakeIdb({ 'webllm/model': 'blocked', 'webllm/wasm': 'error' }) };
    const r = await clearCaches({}, env);
    expect(r.deletedDatabases).toEqual(['webllm/config']);
    expect(r.problems).toHaveLength(2);
    expect(r.problems[0]).toMatch(/another SkyCite tab/);
    expect(await clearCaches({}, {})).toEqual({ deletedCaches: [], deletedDatabases: [], problems: [] });
  });
});

describe('offline before the first full load', () => {
  it('detects no controller + offline, and nothing otherwise', () => {
    const p = detectOfflineBeforeFirstLoad({ onLine: false, controlled: false });
    expect(p?.reason).toBe('offline-before-first-load');
    expect(p?.message).toMatch(/Connect to the internet/);
    expect(detectOfflineBeforeFirstLoad({ onLine: false, controlled: true })).toBeNull();
    expect(detectOfflineBeforeFirstLoad({ onLine: true, controlled: false })).toBeNull();
    expect(detectOfflineBeforeFirstLoad({})).toBeNull();
  });

  it('classifies a failed index fetch', async () => {
    const failing = async () => {
      throw new TypeError('Failed to fetch');
    };
    expect((await checkIndexReachable('static-index/manifest.json', failing, { controlled: false }))?.reason).toBe('offline-before-first-load');
    expect((await checkIndexReachable('x', failing, { controlled: false, onLine: true }))?.reason).toBe('index-unreachable');
    expect((await checkIndexReachable('x', failing, { controlled: true, onLine: false }))?.reason).toBe('index-unreachable');
    const notFound = await checkIndexReachable('x', async () => ({ ok: false, status: 404 }), { controlled: false });
    expect(notFound?.reason).toBe('index-http-error');
    expect(notFound?.message).toMatch(/HTTP 404/);
    expect(await checkIndexReachable('x', async () => ({ ok: true, status: 200 }), {})).toBeNull();
    expect(classifyIndexFailure({ error: new Error('x') }, { controlled: true, onLine: true }).message).toMatch(/Check the internet/);
  });

  it('watches connectivity events', () => {
    const target = new EventTarget();
    const cb = vi.fn();
    const stop = watchConnectivity(cb, target);
    target.dispatchEvent(new Event('offline'));
    target.dispatchEvent(new Event('online'));
    stop();
    target.dispatchEvent(new Event('offline'));
    expect(cb.mock.calls).toEqual([[false], [true]]);
  });
});
