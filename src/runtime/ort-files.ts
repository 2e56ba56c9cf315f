/**
 * onnxruntime-web's wasm runtimes, served from `ort/` on the app's own origin (vite.config.ts
 * copies them from node_modules; the service worker precaches both).
 *
 * Two builds, one per device:
 *  - `wasm`: the plain SIMD build (14.3 MB, 3.7 MB gzipped). On the WASM device it creates the
 *    embedding model's session in about 1.0–1.3 s in headless Chromium on this machine's 2 cores,
 *    against 1.6–1.9 s for the asyncify build, whose every function carries the instrumentation
 *    WebGPU needs (timed in the retrieval worker during start-up; docs/architecture.md, "Start-up").
 *  - `webgpu`: the asyncify build (26.9 MB, 6.7 MB gzipped), required by the WebGPU execution
 *    provider.
 * onnxruntime-web initialises once per worker, with the build named by the first session created
 * there; later sessions (the reranker, a downloaded retrieval model) share it, whatever their device.
 */
export const ORT_BUILDS = {
  wasm: 'ort-wasm-simd-threaded',
  webgpu: 'ort-wasm-simd-threaded.asyncify',
} as const;

export type OrtDevice = keyof typeof ORT_BUILDS;

/** Every file of both builds (the loader script and its wasm), as served under `ort/`. */
export const ORT_FILES: readonly string[] = Object.values(ORT_BUILDS).flatMap((b) => [`${b}.mjs`, `${b}.wasm`]);

/** The loader and wasm URLs of the build for `device`, under `ortBaseUrl` resolved against `base`. */
export function ortWasmPaths(device: OrtDevice, ortBaseUrl: string, base: string): { mjs: string; wasm: string } {
  const stem = ORT_BUILDS[device];
  return { mjs: new URL(`${ortBaseUrl}${stem}.mjs`, base).href, wasm: new URL(`${ortBaseUrl}${stem}.wasm`, base).href };
}
