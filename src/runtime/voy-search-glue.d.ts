/** Types of voy-search's wasm-bindgen glue module (the package types only its entry file, which re-exports it). */
declare module 'voy-search/voy_search_bg.js' {
  export * from 'voy-search';
  /** Hands the instantiated wasm module's exports to the glue. */
  export function __wbg_set_wasm(exports: WebAssembly.Exports): void;
}
