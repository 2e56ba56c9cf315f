/** ONNX Runtime's threads for the retrieval models: min(4, cores) when cross-origin isolated, else 1, said in one line. */
import { describe, expect, it } from 'vitest';
import { applyOrtThreads, chooseOrtThreads, MAX_ORT_THREADS, threadEnvironment } from '../../src/runtime/ort-threads.js';
import { runtimeOptionsFromUrl } from '../../src/ui/app-state.svelte.js';

const isolated = (hardwareConcurrency: number | undefined) => ({ crossOriginIsolated: true, sharedArrayBuffer: true, hardwareConcurrency });

describe('ORT thread count', () => {
  it('uses min(4, cores) when cross-origin isolated', () => {
    expect(chooseOrtThreads(isolated(2))).toMatchObject({ threads: 2, isolated: true, forced: false, line: '2 threads (cross-origin isolated)' });
    expect(chooseOrtThreads(isolated(16))).toMatchObject({ threads: MAX_ORT_THREADS, line: '4 threads (cross-origin isolated; 16 cores, at most 4 used)' });
    expect(chooseOrtThreads(isolated(1))).toMatchObject({ threads: 1, isolated: true, line: expect.stringMatching(/^single-threaded .*one core/) });
    expect(chooseOrtThreads(isolated(undefined)).threads).toBe(1);
  });

  it('stays single-threaded without isolation or SharedArrayBuffer, and says why', () => {
    const plain = chooseOrtThreads({ crossOriginIsolated: false, sharedArrayBuffer: true, hardwareConcurrency: 8 });
    expect(plain).toMatchObject({ threads: 1, isolated: false });
    expect(plain.line).toMatch(/^single-threaded — this server does not send the cross-origin isolation headers .*docs\/deployment\.md/);
    const noSab = chooseOrtThreads({ crossOriginIsolated: true, sharedArrayBuffer: false, hardwareConcurrency: 8 });
    expect(noSab).toMatchObject({ threads: 1, isolated: false, line: expect.stringMatching(/SharedArrayBuffer/) });
    // npm start --host over plain http on the network: the headers are sent, but browsers isolate only secure pages
    const http = chooseOrtThreads({ crossOriginIsolated: false, sharedArrayBuffer: false, hardwareConcurrency: 8, secureContext: false });
    expect(http).toMatchObject({ threads: 1, line: expect.stringMatching(/not served over https/) });
    // ?threads=N cannot give threads without isolation
    expect(chooseOrtThreads({ crossOriginIsolated: false, sharedArrayBuffer: false, hardwareConcurrency: 8 }, 4).threads).toBe(1);
  });

  it('obeys ?threads=N where isolation allows threads', () => {
    expect(chooseOrtThreads(isolated(2), 1)).toMatchObject({ threads: 1, forced: true, line: expect.stringMatching(/^single-threaded .*\?threads=1/) });
    expect(chooseOrtThreads(isolated(2), 3)).toMatchObject({ threads: 3, forced: true });
    expect(chooseOrtThreads(isolated(2), 0).forced).toBe(false);
    expect(runtimeOptionsFromUrl('?threads=1')).toEqual({ threads: 1 });
    expect(runtimeOptionsFromUrl('?threads=abc')).toEqual({});
    expect(runtimeOptionsFromUrl('?threads=0')).toEqual({});
  });

  it('reads the global and sets onnxruntime-web’s numThreads (no-op without its WASM backend)', () => {
    const g = { crossOriginIsolated: true, SharedArrayBuffer, navigator: { hardwareConcurrency: 6 } } as unknown as typeof globalThis;
    expect(threadEnvironment(g)).toEqual({ crossOriginIsolated: true, sharedArrayBuffer: true, hardwareConcurrency: 6, secureContext: true });
    expect(threadEnvironment({ isSecureContext: false } as unknown as typeof globalThis)).toEqual({
      crossOriginIsolated: false,
      sharedArrayBuffer: false,
      hardwareConcurrency: undefined,
      secureContext: false,
    });
    const onnx: { wasm?: { numThreads?: number } } = { wasm: {} };
    expect(applyOrtThreads(onnx, 2)).toBe(true);
    expect(onnx.wasm!.numThreads).toBe(2);
    expect(applyOrtThreads({}, 2)).toBe(false);
    expect(applyOrtThreads(undefined, 2)).toBe(false);
  });
});
