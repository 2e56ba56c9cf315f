/**
 * The vector sets of a downloaded retrieval model, kept in Cache Storage by the runtime itself:
 * the page that downloads them is not always controlled by the service worker yet (first visit,
 * no clientsClaim), so its runtime route alone would leave them uncached and an offline start
 * without them. Network first (a redeployed index brings its new set), the cache when offline.
 */

/** Cache of the vector sets; the "models/" prefix makes Settings' storage clearing treat it as model data. */
export const VECTOR_SET_CACHE = 'models/vector-sets';

/** A fetch that stores successful responses in VECTOR_SET_CACHE and answers from it when the network fails. */
export function cachingFetch(fetchImpl: typeof fetch, cacheStorage: CacheStorage | undefined = globalThis.caches): typeof fetch {
  if (!cacheStorage) return fetchImpl;
  return (async (input: RequestInfo | URL, init?: RequestInit) => {
    const url = String(input instanceof Request ? input.url : input);
    let cache: Cache | null = null;
    try {
      cache = await cacheStorage.open(VECTOR_SET_CACHE);
    } catch {
      // no Cache Storage here (private mode, quota): network only
    }
    try {
      const res = await fetchImpl(input, init);
      if (res.ok && cache) await cache.put(url, res.clone()).catch(() => undefined);
      return res;
    } catch (e) {
      const hit = cache ? await cache.match(url) : undefined;
      if (hit) return hit;
      throw e;
    }
  }) as typeof fetch;
}
