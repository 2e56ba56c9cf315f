/**
 * voy-search (a WASM k-d tree) instantiated from its .wasm bytes, in the browser worker and in
 * Node alike. voy's package entry imports the .wasm file as an ES module, which browsers and
 * Vite do not support and Node only behind --experimental-wasm-modules; its JavaScript glue
 * (`voy_search_bg.js`) is plain ESM, so the module is instantiated here with the glue as its
 * import object and handed to the glue (`__wbg_set_wasm`), which is all the entry file does.
 */
import * as glue from 'voy-search/voy_search_bg.js';
import type { VoyConstructor } from '../core/retrieval/dense.js';

/** The module name the wasm imports its glue functions under (wasm-bindgen's bundler target). */
const GLUE_MODULE = './voy_search_bg.js';

let ready: Promise<VoyConstructor> | null = null;

/**
 * Instantiate voy once per realm (the glue keeps the instance in a module variable); later
 * calls return the same constructor. `bytes` is the content of voy_search_bg.wasm.
 */
export function instantiateVoy(bytes: () => Promise<BufferSource>): Promise<VoyConstructor> {
  ready ??= (async () => {
    const { instance } = await WebAssembly.instantiate(await bytes(), { [GLUE_MODULE]: glue as unknown as WebAssembly.ModuleImports });
    glue.__wbg_set_wasm(instance.exports);
    return glue.Voy as unknown as VoyConstructor;
  })().catch((e: unknown) => {
    ready = null;
    throw e;
  });
  return ready;
}
