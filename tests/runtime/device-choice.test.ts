/** The embedding device: WASM on a software adapter or when WebGPU is slower; ?device= forces. */
import { describe, expect, it, vi } from 'vitest';
import type { Embedder } from '../../src/core/embedding/embedder.js';
import {
  chooseDevice,
  probeAdapter,
  retrievalModelDevice,
  timeWarmEmbedding,
  type AdapterProbe,
  type EmbeddingDevice,
} from '../../src/runtime/device-choice.js';

const SOFTWARE: AdapterProbe = { available: true, software: true, name: 'google · swiftshader', unavailableReason: null };
const HARDWARE: AdapterProbe = { available: true, software: false, name: 'nvidia · ampere', unavailableReason: null };

function fakeEmbedder(device: EmbeddingDevice): Embedder & { device: EmbeddingDevice; dispose: ReturnType<typeof vi.fn> } {
  return { device, modelId: 'm', dimension: 2, embed: async (t: readonly string[]) => t.map(() => new Float32Array(2)), dispose: vi.fn() } as never;
}

function setup(timings: Record<EmbeddingDevice, number> = { webgpu: 5, wasm: 20 }) {
  const made: EmbeddingDevice[] = [];
  const make = vi.fn(async (d: EmbeddingDevice) => {
    made.push(d);
    return fakeEmbedder(d);
  });
  const time = async (e: Embedder) => timings[(e as unknown as { device: EmbeddingDevice }).device];
  return { made, make, time };
}

describe('device choice', () => {
  it('takes WASM on a software (SwiftShader) adapter without loading the model on WebGPU', async () => {
    const { made, make, time } = setup();
    const { choice } = await chooseDevice({ requested: 'auto', probe: async () => SOFTWARE, make, time });
    expect(choice).toMatchObject({ device: 'wasm', forced: false, adapter: 'google · swiftshader' });
    expect(choice.reason).toMatch(/software/);
    expect(made).toEqual(['wasm']);
  });

  it('recognises a software adapter by the fallback flag or by its name', async () => {
    const flagged = await probeAdapter({ gpu: { requestAdapter: async () => ({ info: { vendor: 'x', isFallbackAdapter: true } }) } });
    expect(flagged.software).toBe(true);
    const named = await probeAdapter({ gpu: { requestAdapter: async () => ({ info: { vendor: 'google', architecture: 'swiftshader' } }) } });
    expect(named.software).toBe(true);
    const real = await probeAdapter({ gpu: { requestAdapter: async () => ({ info: { vendor: 'apple', architecture: 'metal-3' } }) } });
    expect(real).toMatchObject({ available: true, software: false });
    expect(await probeAdapter({})).toMatchObject({ available: false });
    expect(await probeAdapter({ gpu: { requestAdapter: async () => null } })).toMatchObject({ available: false });
  });

  it('keeps the faster device on a hardware adapter, measured on a warm embedding, and disposes the other', async () => {
    const slowGpu = setup({ webgpu: 40, wasm: 12 });
    const a = await chooseDevice({ requested: 'auto', probe: async () => HARDWARE, make: slowGpu.make, time: slowGpu.time });
    expect(a.choice).toMatchObject({ device: 'wasm', warmupMs: { webgpu: 40, wasm: 12 } });
    expect(a.choice.reason).toMatch(/12 ms vs 40 ms on WebGPU/);
    const gpuEmbedder = (await slowGpu.make.mock.results[0]!.value) as ReturnType<typeof fakeEmbedder>;
    expect(gpuEmbedder.dispose).toHaveBeenCalled();

    const fastGpu = setup({ webgpu: 4, wasm: 30 });
    const b = await chooseDevice({ requested: 'auto', probe: async () => HARDWARE, make: fastGpu.make, time: fastGpu.time });
    expect(b.choice.device).toBe('webgpu');
    expect((b.embedder as unknown as { device: string }).device).toBe('webgpu');
  });

  it('obeys ?device= whatever the adapter', async () => {
    const s = setup();
    const forcedGpu = await chooseDevice({ requested: 'webgpu', probe: async () => SOFTWARE, make: s.make, time: s.time });
    expect(forcedGpu.choice).toMatchObject({ device: 'webgpu', forced: true });
    expect(forcedGpu.choice.detail).toMatch(/software fallback/);
    const forcedWasm = await chooseDevice({ requested: 'wasm', probe: async () => HARDWARE, make: s.make, time: s.time });
    expect(forcedWasm.choice).toMatchObject({ device: 'wasm', forced: true });
  });

  it('falls back to WASM when the model fails on WebGPU (auto), and says so', async () => {
    const make = vi.fn(async (d: EmbeddingDevice) => {
      if (d === 'webgpu') throw new Error('device lost');
      return fakeEmbedder(d);
    });
    const { choice } = await chooseDevice({ requested: 'auto', probe: async () => HARDWARE, make, time: async () => 1 });
    expect(choice).toMatchObject({ device: 'wasm', reason: 'WebGPU failed to load' });
    expect(choice.detail).toMatch(/device lost/);
  });

  it('times the median of warm runs after an untimed first run', async () => {
    let t = 0;
    const durations = [1000, 30, 10, 20];
    let call = 0;
    const e = {
      embed: async () => {
        t += durations[call++]!;
        return [];
      },
    };
    expect(await timeWarmEmbedding(e, 3, () => t)).toBe(20);
  });
});

describe('the device of a downloaded retrieval model (EmbeddingGemma)', () => {
  it('is WebGPU only on a real, non-fallback adapter with the WebGPU build of ONNX Runtime loaded', () => {
    expect(retrievalModelDevice({ requested: 'auto', probe: HARDWARE, ortBuild: 'webgpu' })).toEqual({
      device: 'webgpu',
      reason: 'hardware WebGPU adapter (nvidia · ampere)',
    });
    expect(retrievalModelDevice({ requested: 'auto', probe: SOFTWARE, ortBuild: 'wasm' }).device).toBe('wasm');
    expect(retrievalModelDevice({ requested: 'auto', probe: SOFTWARE, ortBuild: 'webgpu' })).toMatchObject({
      device: 'wasm',
      reason: expect.stringMatching(/software/),
    });
    expect(retrievalModelDevice({ requested: 'auto', probe: null, ortBuild: 'wasm' }).device).toBe('wasm');
    const none: AdapterProbe = { available: false, software: false, name: '', unavailableReason: 'this browser offers no WebGPU' };
    expect(retrievalModelDevice({ requested: 'auto', probe: none, ortBuild: null })).toEqual({ device: 'wasm', reason: 'this browser offers no WebGPU' });
    // a real adapter, but the worker's ONNX Runtime started with the WASM-only build (cannot change later)
    expect(retrievalModelDevice({ requested: 'auto', probe: HARDWARE, ortBuild: 'wasm' })).toMatchObject({
      device: 'wasm',
      reason: expect.stringMatching(/without WebGPU/),
    });
  });

  it('obeys ?device=', () => {
    expect(retrievalModelDevice({ requested: 'wasm', probe: HARDWARE, ortBuild: 'webgpu' }).device).toBe('wasm');
    expect(retrievalModelDevice({ requested: 'webgpu', probe: SOFTWARE, ortBuild: 'webgpu' }).device).toBe('webgpu');
  });

  it('reads the fallback flag where older browsers put it (adapter.isFallbackAdapter) as well as adapter.info', async () => {
    const old = await probeAdapter({ gpu: { requestAdapter: async () => ({ isFallbackAdapter: true, info: { vendor: 'x' } }) } });
    expect(old.software).toBe(true);
    expect(retrievalModelDevice({ requested: 'auto', probe: old, ortBuild: 'webgpu' }).device).toBe('wasm');
    const real = await probeAdapter({ gpu: { requestAdapter: async () => ({ isFallbackAdapter: false, info: { vendor: 'amd', isFallbackAdapter: false } }) } });
    expect(retrievalModelDevice({ requested: 'auto', probe: real, ortBuild: 'webgpu' }).device).toBe('webgpu');
  });
});
