import { describe, expect, it } from 'vitest';
import { ORT_BUILDS, ORT_FILES, ortWasmPaths } from './ort-files.js';

describe('ONNX Runtime builds per device', () => {
  it('gives the WASM device the plain build and WebGPU the asyncify build, resolved on the app origin', () => {
    expect(ortWasmPaths('wasm', 'ort/', 'https://app.example/skycite/')).toEqual({
      mjs: 'https://app.example/skycite/ort/ort-wasm-simd-threaded.mjs',
      wasm: 'https://app.example/skycite/ort/ort-wasm-simd-threaded.wasm',
    });
    expect(ortWasmPaths('webgpu', 'ort/', 'https://app.example/')).toEqual({
      mjs: 'https://app.example/ort/ort-wasm-simd-threaded.asyncify.mjs',
      wasm: 'https://app.example/ort/ort-wasm-simd-threaded.asyncify.wasm',
    });
  });

  it('lists the loader and the wasm of every build, each file once, all present in onnxruntime-web', async () => {
    const { existsSync } = await import('node:fs');
    expect(ORT_FILES).toHaveLength(Object.keys(ORT_BUILDS).length * 2);
    expect(new Set(ORT_FILES).size).toBe(ORT_FILES.length);
    for (const f of ORT_FILES) expect(existsSync(`node_modules/onnxruntime-web/dist/${f}`), f).toBe(true);
  });
});
