/**
 * What can run in Node: the device report with stubbed navigator.gpu, progress mapping,
 * error mapping, and the engine wrapper against a fake web-llm module. The real worker
 * (src/llm/worker.ts) and WebGPU inference need a browser with WebGPU.
 */
import type { AppConfig, MLCEngineConfig, MLCEngineInterface } from '@mlc-ai/web-llm';
import { afterEach, describe, expect, it, vi } from 'vitest';
import {
  createLlmEngine,
  deleteModelCache,
  describeLlmError,
  getDeviceReport,
  isModelCached,
  LlmError,
  webLlmStorePresent,
  mapProgress,
  type LoadProgress,
  type WebLlmModule,
} from '../../src/llm/engine.js';
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

describe('mapProgress', () => {
  it('maps WebLLM reports to {progress, text, bytesLoaded?}', () => {
    expect(mapProgress({ progress: 0.2, text: 'Fetching param cache[3/20]: 120MB fetched. 20% completed, 4 secs elapsed.' })).toEqual({
      progress: 0.2,
      text: 'Fetching param cache[3/20]: 120MB fetched. 20% completed, 4 secs elapsed.',
      bytesLoaded: 120 * MB,
    });
    expect(mapProgress({ progress: 0.5, text: 'Loading model from cache[1/2]: 300MB loaded. 50% completed' }).bytesLoaded).toBe(300 * MB);
    expect(mapProgress({ progress: 1.2, text: 'Finish loading on WebGPU - apple' })).toEqual({
      progress: 1,
      text: 'Finish loading on WebGPU - apple',
    });
    expect(mapProgress({ progress: Number.NaN, text: '' }).progress).toBe(0);
  });
});

describe('describeLlmError', () => {
  it('maps web-llm errors (Error objects or worker strings) to actionable kinds', () => {
    expect(describeLlmError('WebGPUNotAvailableError: WebGPU is not supported').kind).toBe('no-webgpu');
    expect(describeLlmError('ShaderF16SupportError: This model requires WebGPU extension shader-f16').kind).toBe('shader-f16');
    expect(describeLlmError(Object.assign(new Error('The WebGPU device was lost'), { name: 'DeviceLostError' })).kind).toBe('device-lost');
    expect(describeLlmError(new TypeError('Failed to fetch')).kind).toBe('network');
    expect(describeLlmError(new DOMException('full', 'QuotaExceededError')).kind).toBe('storage');
    expect(describeLlmError('weird').kind).toBe('other');
  });
});

/** A fake MLCEngine that streams the given pieces and honours interruptGenerate(). */
function fakeEngine(pieces: string[]) {
  let interrupted = false;
  const engine = {
    reload: vi.fn(async () => undefined),
    unload: vi.fn(async () => undefined),
    setInitProgressCallback: vi.fn(),
    interruptGenerate: vi.fn(() => {
      interrupted = true;
    }),
    chat: {
      completions: {
        create: vi.fn(async () => {
          interrupted = false;
          return (async function* () {
            for (const p of pieces) {
              await new Promise((r) => setTimeout(r, 1));
              if (interrupted) {
                yield { choices: [{ delta: {}, finish_reason: 'abort' }] };
                return;
              }
              yield { choices: [{ delta: { content: p }, finish_reason: null }] };
            }
            yield { choices: [{ delta: {}, finish_reason: 'stop' }] };
            yield { choices: [], usage: { prompt_tokens: 10, completion_tokens: pieces.length } };
          })();
        }),
      },
    },
  };
  return engine;
}

function fakeWebLlm(engine: ReturnType<typeof fakeEngine>) {
  const calls: { worker?: unknown; modelId: string; config?: MLCEngineConfig }[] = [];
  const mod: WebLlmModule = {
    async CreateWebWorkerMLCEngine(worker, modelId, config) {
      calls.push({ worker, modelId, config });
      config?.initProgressCallback?.({ progress: 0.5, timeElapsed: 1, text: 'Fetching param cache[1/2]: 10MB fetched.' });
      return engine as unknown as MLCEngineInterface;
    },
    async CreateMLCEngine(modelId, config) {
      calls.push({ modelId, config });
      return engine as unknown as MLCEngineInterface;
    },
    hasModelInCache: vi.fn(async (id: string, cfg?: AppConfig) => id === 'Llama-3.2-1B-Instruct-q4f16_1-MLC' && cfg?.cacheBackend === 'indexeddb'),
    deleteModelAllInfoInCache: vi.fn(async () => undefined),
    deleteModelWasmInCache: vi.fn(async () => undefined),
    deleteChatConfigInCache: vi.fn(async () => undefined),
  };
  return { mod, calls };
}

describe('createLlmEngine (fake web-llm)', () => {
  it('does nothing until load(); then starts the worker with the AppConfig and reports progress', async () => {
    const engine = fakeEngine(['a']);
    const { mod, calls } = fakeWebLlm(engine);
    const worker = { terminate: vi.fn() } as unknown as Worker;
    const createWorker = vi.fn(() => worker);
    const webllm = vi.fn(async () => mod);
    const llm = createLlmEngine({ inWorker: true, createWorker, webllm, baseUrl: 'https://mirror.example/m' });
    expect(webllm).not.toHaveBeenCalled();
    expect(createWorker).not.toHaveBeenCalled();
    expect(llm.engine).toBeNull();
    const progress: LoadProgress[] = [];
    await llm.load('Llama-3.2-1B-Instruct-q4f16_1-MLC', { onProgress: (p) => progress.push(p) });
    expect(llm.modelId).toBe('Llama-3.2-1B-Instruct-q4f16_1-MLC');
    expect(llm.engine).toBe(engine);
    expect(calls[0]!.worker).toBe(worker);
    expect(calls[0]!.config?.appConfig?.cacheBackend).toBe('indexeddb');
    expect(calls[0]!.config?.appConfig?.model_list[0]!.model).toMatch(/^https:\/\/mirror\.example\/m\/mlc-ai\//);
    expect(progress).toEqual([{ progress: 0.5, text: 'Fetching param cache[1/2]: 10MB fetched.', bytesLoaded: 10 * MB }]);
    // A second load reuses the engine.
    await llm.load('Qwen2.5-0.5B-Instruct-q4f16_1-MLC');
    expect(engine.reload).toHaveBeenCalledWith('Qwen2.5-0.5B-Instruct-q4f16_1-MLC');
    expect(createWorker).toHaveBeenCalledTimes(1);
    await llm.dispose();
    expect((worker.terminate as ReturnType<typeof vi.fn>)).toHaveBeenCalled();
    expect(llm.modelId).toBeNull();
  });

  it('streams tokens and returns text, finish reason and usage (same interface in-process)', async () => {
    const engine = fakeEngine(['The ', 'SAIL ', 'is II.']);
    const { mod, calls } = fakeWebLlm(engine);
    const llm = createLlmEngine({ inWorker: false, webllm: async () => mod });
    await llm.load('Llama-3.2-1B-Instruct-q4f16_1-MLC');
    expect(calls[0]!.worker).toBeUndefined();
    const seen: string[] = [];
    const res = await llm.generate([{ role: 'user', content: 'q' }], { temperature: 0, max_tokens: 64 }, { onToken: (d) => seen.push(d) });
    expect(res).toEqual({ text: 'The SAIL is II.', finishReason: 'stop', aborted: false, usage: { promptTokens: 10, completionTokens: 3 } });
    expect(seen).toEqual(['The ', 'SAIL ', 'is II.']);
    expect(engine.chat.completions.create).toHaveBeenCalledWith(
      expect.objectContaining({ stream: true, temperature: 0, max_tokens: 64, stream_options: { include_usage: true } }),
    );
  });

  it('aborts through interruptGenerate() and keeps the partial text', async () => {
    const engine = fakeEngine(['one ', 'two ', 'three ', 'four']);
    const { mod } = fakeWebLlm(engine);
    const llm = createLlmEngine({ inWorker: false, webllm: async () => mod });
    await llm.load('Llama-3.2-1B-Instruct-q4f16_1-MLC');
    const ac = new AbortController();
    const res = await llm.generate([{ role: 'user', content: 'q' }], {}, {
      signal: ac.signal,
      onToken: (_d, text) => {
        if (text === 'one two ') ac.abort();
      },
    });
    expect(engine.interruptGenerate).toHaveBeenCalled();
    expect(res.aborted).toBe(true);
    expect(res.finishReason).toBe('abort');
    expect(res.text).toBe('one two ');
  });

  it('refuses to generate before a model is loaded, and maps load errors', async () => {
    const mod: WebLlmModule = {
      ...fakeWebLlm(fakeEngine([])).mod,
      async CreateMLCEngine() {
        throw 'ShaderF16SupportError: This model requires WebGPU extension shader-f16';
      },
    };
    const llm = createLlmEngine({ inWorker: false, webllm: async () => mod });
    await expect(llm.generate([{ role: 'user', content: 'q' }])).rejects.toBeInstanceOf(LlmError);
    const err = await llm.load('SmolLM2-1.7B-Instruct-q4f16_1-MLC').catch((e: unknown) => e);
    expect(err).toBeInstanceOf(LlmError);
    expect((err as LlmError).kind).toBe('shader-f16');
    expect((err as Error).message).toMatch(/q4f32_1/);
    expect(llm.modelId).toBeNull();
  });

  it('isModelCached / deleteModelCache go through web-llm with the AppConfig', async () => {
    const { mod } = fakeWebLlm(fakeEngine([]));
    expect(await isModelCached('Llama-3.2-1B-Instruct-q4f16_1-MLC', undefined, async () => mod)).toBe(true);
    expect(await isModelCached('Qwen2.5-0.5B-Instruct-q4f16_1-MLC', undefined, async () => mod)).toBe(false);
    expect(await deleteModelCache('Llama-3.2-1B-Instruct-q4f16_1-MLC', undefined, async () => mod)).toEqual({ deletedWeights: true });
    expect(mod.deleteModelAllInfoInCache).toHaveBeenCalledWith(
      'Llama-3.2-1B-Instruct-q4f16_1-MLC',
      expect.objectContaining({ cacheBackend: 'indexeddb' }),
    );
    // Not fully cached: never let web-llm fetch tensor-cache.json to delete weights.
    expect(await deleteModelCache('Qwen2.5-0.5B-Instruct-q4f16_1-MLC', undefined, async () => mod)).toEqual({ deletedWeights: false });
    expect(mod.deleteModelAllInfoInCache).toHaveBeenCalledTimes(1);
    expect(mod.deleteModelWasmInCache).toHaveBeenCalledWith('Qwen2.5-0.5B-Instruct-q4f16_1-MLC', expect.anything());
    expect(mod.deleteChatConfigInCache).toHaveBeenCalledWith('Qwen2.5-0.5B-Instruct-q4f16_1-MLC', expect.anything());
  });

  it('isModelCached answers no without loading web-llm when no WebLLM store exists', async () => {
    const { mod } = fakeWebLlm(fakeEngine([]));
    const load = vi.fn(async () => mod);
    expect(await isModelCached('Llama-3.2-1B-Instruct-q4f16_1-MLC', undefined, load, async () => false)).toBe(false);
    expect(load).not.toHaveBeenCalled();
    // a store exists, or the browser cannot tell: web-llm decides
    expect(await isModelCached('Llama-3.2-1B-Instruct-q4f16_1-MLC', undefined, load, async () => true)).toBe(true);
    expect(await isModelCached('Llama-3.2-1B-Instruct-q4f16_1-MLC', undefined, load, async () => null)).toBe(true);
    expect(load).toHaveBeenCalledTimes(2);
  });

  it("webLlmStorePresent reads the databases' and caches' names", async () => {
    const env = (dbs: string[], caches: string[]) => ({
      indexedDB: { databases: async () => dbs.map((name) => ({ name })) },
      caches: { keys: async () => caches },
    });
    expect(await webLlmStorePresent(env([], ['workbox-precache-v2-x', 'webllm/js']))).toBe(false);
    expect(await webLlmStorePresent(env(['skycite-audit', 'webllm/model'], []))).toBe(true);
    expect(await webLlmStorePresent(env([], ['webllm/config']))).toBe(true);
    expect(await webLlmStorePresent({ indexedDB: {}, caches: { keys: async () => [] } })).toBeNull();
    expect(await webLlmStorePresent({})).toBeNull();
    expect(await webLlmStorePresent({ indexedDB: { databases: async () => Promise.reject(new Error('blocked')) }, caches: { keys: async () => [] } })).toBeNull();
  });
});
