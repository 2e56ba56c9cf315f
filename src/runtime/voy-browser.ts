/**
 * The browser's voy loader: voy's .wasm file is emitted by Vite as an asset of the app (same
 * origin, precached by the service worker) and fetched from there.
 */
import voyWasmUrl from 'voy-search/voy_search_bg.wasm?url';
import type { VoyConstructor } from '../core/retrieval/dense.js';
import { IndexFetchError } from './fetch-bytes.js';
import { instantiateVoy } from './voy.js';

export function loadVoyInBrowser(fetchImpl: typeof fetch = globalThis.fetch.bind(globalThis)): Promise<VoyConstructor> {
  return instantiateVoy(async () => {
    const res = await fetchImpl(voyWasmUrl);
    if (!res.ok)
      throw new IndexFetchError(`Fetching ${voyWasmUrl} failed with HTTP ${res.status}; the deployment is incomplete (redeploy the build).`, res.status);
    return res.arrayBuffer();
  });
}
