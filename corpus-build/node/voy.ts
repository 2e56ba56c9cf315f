/** voy in Node: the same instantiation as the browser worker (src/runtime/voy.ts), from the installed .wasm file. */
import { readFile } from 'node:fs/promises';
import { createRequire } from 'node:module';
import type { VoyConstructor } from '../../src/core/retrieval/dense.js';
import { instantiateVoy } from '../../src/runtime/voy.js';

export function loadVoyInNode(): Promise<VoyConstructor> {
  const file = createRequire(import.meta.url).resolve('voy-search/voy_search_bg.wasm');
  return instantiateVoy(() => readFile(file));
}
