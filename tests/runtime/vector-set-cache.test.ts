/** The runtime keeps a downloaded model's vector set in Cache Storage itself, so an offline start finds it even when the service worker did not control the page that downloaded it. */
import { describe, expect, it } from 'vitest';
import { cachingFetch, VECTOR_SET_CACHE } from '../../src/runtime/vector-set-cache.js';

function fakeCacheStorage() {
  const stores = new Map<string, Map<string, Response>>();
  const storage = {
    async open(name: string) {
      const m = stores.get(name) ?? new Map<string, Response>();
      stores.set(name, m);
      return {
        async put(url: string, res: Response) {
          m.set(url, res);
        },
        async match(url: string) {
          return m.get(url)?.clone();
        },
      } as unknown as Cache;
    },
  } as unknown as CacheStorage;
  return { storage, stores };
}

const URL_ = 'http://localhost/static-index/vectors/google--embeddinggemma-300m/vectors.f32';

describe('the vector-set cache', () => {
  it('stores what the network returns and answers from it when the network fails', async () => {
    const { storage, stores } = fakeCacheStorage();
    let online = true;
    const net = (async () => {
      if (!online) throw new TypeError('Failed to fetch');
      return new Response('vectors');
    }) as typeof fetch;
    const f = cachingFetch(net, storage);
    expect(await (await f(URL_)).text()).toBe('vectors');
    expect([...stores.get(VECTOR_SET_CACHE)!.keys()]).toEqual([URL_]);
    online = false;
    expect(await (await f(URL_)).text()).toBe('vectors');
    await expect(f('http://localhost/static-index/vectors/x/other.f32')).rejects.toThrow(/Failed to fetch/);
  });

  it('does not store an error response, and is the plain fetch without Cache Storage', async () => {
    const { storage, stores } = fakeCacheStorage();
    const f = cachingFetch((async () => new Response('missing', { status: 404 })) as typeof fetch, storage);
    expect((await f(URL_)).status).toBe(404);
    expect(stores.get(VECTOR_SET_CACHE)!.size).toBe(0);
    const plain = (async () => new Response('x')) as typeof fetch;
    expect(cachingFetch(plain, undefined)).toBe(plain);
  });
});
