/**
 * The device report with a stubbed navigator.gpu (what the model recommendation reads).
 * WebGPU inference itself needs a browser (tests/e2e).
 */
import { afterEach, describe, expect, it, vi } from 'vitest';
import { getDeviceReport } from '../../src/llm/device.js';
import { recommendModel } from '../../src/llm/models.js';

afterEach(() => vi.unstubAllGlobals());

const MB = 1024 * 1024;

function fakeAdapter(opts: { features?: string[]; limits?: Record<string, number>; info?: object | undefined; legacyInfo?: boolean }) {
  const limits = Object.create({
    // GPUSupportedLimits exposes values as prototype getters, not own properties.
    get maxBufferSize() {
      return opts.limits?.['maxBufferSize'] ?? 2048 * MB;
    },
    get maxStorageBufferBindingSize() {
      return opts.limits?.['maxStorageBufferBindingSize'] ?? 1024 * MB;
    },
    get maxComputeWorkgroupStorageSize() {
      return 32768;
    },
    get maxStorageBuffersPerShaderStage() {
      return 10;
    },
    get maxComputeInvocationsPerWorkgroup() {
      return 1024;
    },
  }) as object;
  const info = { vendor: 'apple', architecture: 'common-3', device: '', description: 'Apple M2' };
  return {
    features: new Set(opts.features ?? ['shader-f16', 'timestamp-query']),
    limits,
    ...(opts.legacyInfo ? { requestAdapterInfo: async () => info } : { info: opts.info ?? info }),
  };
}

describe('getDeviceReport', () => {
  it('reports no WebGPU when navigator.gpu is absent (and in Node by default)', async () => {
    const r = await getDeviceReport({ hardwareConcurrency: 4, deviceMemory: 4 });
    expect(r.webgpu).toBe(false);
    expect(r.adapter).toBeNull();
    expect(r.reason).toMatch(/navigator\.gpu/);
    expect(r.deviceMemoryGB).toBe(4);
    const dflt = await getDeviceReport();
    expect(dflt.webgpu).toBe(false);
    expect(recommendModel(dflt.adapter, dflt.deviceMemoryGB).model).toBeNull();
  });

  it('reads adapter info, limits (prototype getters) and features from a stubbed navigator.gpu', async () => {
    const requestAdapter = vi.fn(async () => fakeAdapter({}));
    vi.stubGlobal('navigator', { gpu: { requestAdapter }, deviceMemory: 8, hardwareConcurrency: 8, userAgent: 'test' });
    const r = await getDeviceReport();
    expect(requestAdapter).toHaveBeenCalledWith({ powerPreference: 'high-performance' });
    expect(r.webgpu).toBe(true);
    expect(r.adapter).toMatchObject({
      vendor: 'apple',
      description: 'Apple M2',
      hasShaderF16: true,
      isFallbackAdapter: false,
      maxBufferSize: 2048 * MB,
      maxStorageBufferBindingSize: 1024 * MB,
      maxComputeWorkgroupStorageSize: 32768,
      maxStorageBuffersPerShaderStage: 10,
      features: ['shader-f16', 'timestamp-query'],
    });
    expect(r.adapter!.limits.maxComputeInvocationsPerWorkgroup).toBe(1024);
    expect(recommendModel(r.adapter, r.deviceMemoryGB).model?.quantization).toBe('q4f16_1');
  });

  it('uses requestAdapterInfo() on older browsers and reports missing shader-f16', async () => {
    const r = await getDeviceReport({ gpu: { requestAdapter: async () => fakeAdapter({ features: [], legacyInfo: true }) } });
    expect(r.adapter?.vendor).toBe('apple');
    expect(r.adapter?.hasShaderF16).toBe(false);
    expect(recommendModel(r.adapter, 8).model?.quantization).toBe('q4f32_1');
  });

  it('handles a null adapter and a throwing requestAdapter', async () => {
    const none = await getDeviceReport({ gpu: { requestAdapter: async () => null } });
    expect(none.webgpu).toBe(false);
    expect(none.reason).toMatch(/no GPU adapter/);
    const boom = await getDeviceReport({
      gpu: {
        requestAdapter: async () => {
          throw new Error('denied');
        },
      },
    });
    expect(boom.webgpu).toBe(false);
    expect(boom.reason).toMatch(/denied/);
  });

  it('flags a software adapter', async () => {
    const a = fakeAdapter({ info: { vendor: 'google', description: 'SwiftShader', isFallbackAdapter: true } });
    const r = await getDeviceReport({ gpu: { requestAdapter: async () => a } });
    expect(r.adapter?.isFallbackAdapter).toBe(true);
    expect(recommendModel(r.adapter, 8).model).toBeNull();
  });
});
