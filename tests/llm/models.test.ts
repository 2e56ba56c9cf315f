import { prebuiltAppConfig, modelLibURLPrefix, modelVersion } from '@mlc-ai/web-llm';
import { describe, expect, it } from 'vitest';
import {
  buildAppConfig,
  downloadSizeText,
  isOfferableModelId,
  parseModelsManifest,
  CURATED_MODELS,
  describeModel,
  estimateDownloadMB,
  findModel,
  formatApproxSize,
  modelsBaseUrl,
  modelUrls,
  recommendModel,
  resolveBaseUrl,
  WEBLLM_LIB_PREFIX,
  WEBLLM_MODEL_VERSION,
  type AdapterLimitsInfo,
} from '../../src/llm/models.js';
import { FIXTURE_MANIFEST } from './manifest-fixture.js';

const MB = 1024 * 1024;
const GB = 1024 * MB;

describe('curated models match the installed web-llm', () => {
  it('uses the same model version and library prefix', () => {
    expect(WEBLLM_MODEL_VERSION).toBe(modelVersion);
    expect(WEBLLM_LIB_PREFIX).toBe(modelLibURLPrefix);
  });

  it.each(CURATED_MODELS.map((m) => [m.id, m] as const))('%s exists with the same record', (id, m) => {
    const rec = prebuiltAppConfig.model_list.find((r) => r.model_id === id);
    expect(rec, `${id} is not in prebuiltAppConfig`).toBeDefined();
    expect(rec!.model).toBe(m.modelUrl);
    expect(rec!.model_lib).toBe(WEBLLM_LIB_PREFIX + m.modelLibPath);
    expect(rec!.vram_required_MB).toBe(m.vramMB);
    expect(rec!.low_resource_required ?? false).toBe(m.lowResource);
    expect(rec!.required_features ?? []).toEqual(m.requiredFeatures);
    expect(rec!.overrides?.context_window_size).toBe(m.contextWindow);
    expect(rec!.buffer_size_required_bytes).toBeUndefined();
  });

  it('only offers 4-bit models of 3B class or smaller, both quantizations per family', () => {
    for (const m of CURATED_MODELS) {
      expect(m.paramsB).toBeLessThanOrEqual(3.3);
      expect(m.id).toMatch(/q4f(16|32)_1/);
      expect(m.needsShaderF16).toBe(m.quantization === 'q4f16_1');
    }
    const f16 = CURATED_MODELS.filter((m) => m.quantization === 'q4f16_1').map((m) => m.id.replace('q4f16_1', 'X'));
    const f32 = CURATED_MODELS.filter((m) => m.quantization === 'q4f32_1').map((m) => m.id.replace('q4f32_1', 'X'));
    expect(new Set(f16)).toEqual(new Set(f32));
  });
});

describe('download size estimate', () => {
  it('is parameters × bits plus a small overhead, and labelled approx.', () => {
    const llama1 = findModel('Llama-3.2-1B-Instruct-q4f16_1-MLC')!;
    const mb = estimateDownloadMB(llama1);
    expect(mb).toBeGreaterThan(600);
    expect(mb).toBeLessThan(720);
    expect(estimateDownloadMB(findModel('Llama-3.2-1B-Instruct-q4f32_1-MLC')!)).toBeGreaterThan(mb);
    expect(formatApproxSize(mb)).toMatch(/^approx\. \d+ MB$/);
    expect(formatApproxSize(1800)).toBe('approx. 1.8 GB');
    expect(describeModel(llama1)).toMatch(/download approx\./);
    // Below the VRAM figure, which includes the KV cache.
    for (const m of CURATED_MODELS) expect(estimateDownloadMB(m)).toBeLessThan(m.vramMB);
  });
});

function adapter(over: Partial<AdapterLimitsInfo> = {}): AdapterLimitsInfo {
  return {
    maxBufferSize: 2 * GB,
    maxStorageBufferBindingSize: 2 * GB,
    maxComputeWorkgroupStorageSize: 32 * 1024,
    maxStorageBuffersPerShaderStage: 10,
    features: ['shader-f16'],
    ...over,
  };
}

describe('recommendModel', () => {
  it('desktop-class GPU with shader-f16 and 8 GB: the largest f16 model', () => {
    const r = recommendModel(adapter(), 8);
    expect(r.model?.id).toBe('Llama-3.2-3B-Instruct-q4f16_1-MLC');
    expect(r.budgetMB).toBe(4096);
    expect(r.fitting.every((m) => m.quantization === 'q4f16_1')).toBe(true);
    expect(r.reason).toMatch(/largest model that fits \(not measured by SkyCite\)/);
  });

  it('without shader-f16: only q4f32_1 models', () => {
    const r = recommendModel(adapter({ features: [] }), 8);
    expect(r.model?.id).toBe('Llama-3.2-3B-Instruct-q4f32_1-MLC');
    expect(r.fitting.length).toBeGreaterThan(0);
    expect(r.fitting.every((m) => m.quantization === 'q4f32_1')).toBe(true);
  });

  it('tablet: 128 MB bindings, 4 GB RAM, f16 → a low-resource model within 2 GB', () => {
    const r = recommendModel(adapter({ maxBufferSize: 256 * MB, maxStorageBufferBindingSize: 128 * MB }), 4);
    expect(r.model).not.toBeNull();
    expect(r.model!.lowResource).toBe(true);
    expect(r.model!.vramMB).toBeLessThanOrEqual(2048);
    expect(r.model!.id).toBe('SmolLM2-1.7B-Instruct-q4f16_1-MLC');
    expect(r.fitting.some((m) => m.family === 'gemma-2')).toBe(false);
  });

  it('small device with 2 GB RAM: a 1B f16 model; without f16 nothing fits the 1 GB budget', () => {
    const small = { maxBufferSize: 256 * MB, maxStorageBufferBindingSize: 128 * MB };
    expect(recommendModel(adapter(small), 2).model?.id).toBe('Llama-3.2-1B-Instruct-q4f16_1-MLC');
    const noF16 = recommendModel(adapter({ ...small, features: [] }), 2);
    expect(noF16.model).toBeNull();
    expect(noF16.reason).toMatch(/1024 MB/);
    expect(recommendModel(adapter({ ...small, features: [] }), 4).model?.id).toBe('Qwen2.5-1.5B-Instruct-q4f32_1-MLC');
  });

  it('full limits with unknown memory assume 4 GB; reduced limits 2 GB', () => {
    expect(recommendModel(adapter()).budgetMB).toBe(4096);
    expect(recommendModel(adapter({ maxStorageBufferBindingSize: 512 * MB })).budgetMB).toBe(2048);
    expect(recommendModel(adapter({ maxStorageBufferBindingSize: 512 * MB })).model?.id).toBe('SmolLM2-1.7B-Instruct-q4f16_1-MLC');
  });

  it('includes gemma-2 (not low-resource) only on adapters with full limits', () => {
    const r = recommendModel(adapter(), 4);
    expect(r.model?.id).toBe('gemma-2-2b-it-q4f16_1-MLC');
  });

  it('nothing when there is no adapter, a software adapter, limits below WebLLM floors, or too little memory', () => {
    expect(recommendModel(null).model).toBeNull();
    expect(recommendModel(null).reason).toMatch(/evidence-only/);
    expect(recommendModel(adapter({ isFallbackAdapter: true }), 8).model).toBeNull();
    expect(recommendModel(adapter({ maxStorageBufferBindingSize: 64 * MB }), 8).model).toBeNull();
    expect(recommendModel(adapter({ maxBufferSize: 128 * MB }), 8).model).toBeNull();
    expect(recommendModel(adapter({ maxComputeWorkgroupStorageSize: 16 * 1024 }), 8).model).toBeNull();
    expect(recommendModel(adapter({ maxStorageBuffersPerShaderStage: 8 }), 8).model).toBeNull();
    expect(recommendModel(adapter(), 1).model).toBeNull();
    expect(recommendModel(adapter(), 1).reason).toMatch(/512 MB/);
  });

  it('prefers a fitting self-hosted (verified) model over larger remote ones, the smallest self-hosted first (the larger one measured no better)', () => {
    const [tiny] = parseModelsManifest(FIXTURE_MANIFEST);
    const bigger = { ...tiny!, id: 'Tiny-1B-Instruct-q4f32_1-SkyCite', label: 'Tiny 1B Instruct', paramsB: 1 };
    const r = recommendModel(adapter({ features: [] }), 8, [bigger, ...CURATED_MODELS, tiny!]);
    expect(r.fitting[0]?.source).toBe('remote'); // a larger remote model fits too
    expect(r.model?.id).toBe(tiny!.id);
    expect(r.reason).toMatch(/self-hosted model measured best/);
    // only the larger one fits the budget: it is the one recommended
    expect(recommendModel(adapter({ features: [] }), 8, [{ ...bigger }, { ...tiny!, vramMB: 1e9 }]).model?.id).toBe(bigger.id);
  });
});

describe('AppConfig and self-hosted base URL', () => {
  it('default: WebLLM hosts, the Cache API (the caches the verified installer writes), curated models only', () => {
    const cfg = buildAppConfig();
    expect(cfg.useIndexedDBCache).toBe(false);
    expect(cfg.model_list.map((r) => r.model_id)).toEqual(CURATED_MODELS.map((m) => m.id));
    const rec = cfg.model_list.find((r) => r.model_id === 'Qwen2.5-1.5B-Instruct-q4f16_1-MLC')!;
    const orig = prebuiltAppConfig.model_list.find((r) => r.model_id === rec.model_id)!;
    expect(rec.model).toBe(orig.model);
    expect(rec.model_lib).toBe(orig.model_lib);
    expect(rec.overrides).toEqual({ context_window_size: 4096 });
  });

  it('self-hosted models from a manifest: URLs under the base URL, exact size, every file with its SHA-256', () => {
    const [m] = parseModelsManifest(FIXTURE_MANIFEST);
    expect(m).toMatchObject({ id: 'Tiny-0.5B-Instruct-q4f32_1-SkyCite', source: 'self-hosted', paramsB: 0.5, quantization: 'q4f32_1', totalBytes: 30 });
    expect(m!.files!.map((f) => f.sha256)).toEqual(['a'.repeat(64), 'b'.repeat(64)]);
    expect(downloadSizeText(m!)).toBe('0.0 MB');
    const cfg = buildAppConfig({ baseUrl: 'https://llm.authority.example/mirror/', models: [m!, ...CURATED_MODELS] });
    const rec = cfg.model_list.find((r) => r.model_id === m!.id)!;
    expect(rec.model).toBe('https://llm.authority.example/mirror/Tiny-0.5B-Instruct-q4f32_1-SkyCite/resolve/main/');
    expect(rec.model_lib).toBe('https://llm.authority.example/mirror/libs/Tiny-q4f32_1-webgpu.wasm');
    // remote models keep their upstream URLs whatever the base URL
    const remote = cfg.model_list.find((r) => r.model_id === 'Llama-3.2-1B-Instruct-q4f16_1-MLC')!;
    expect(remote.model).toMatch(/^https:\/\/huggingface\.co\/mlc-ai\//);
    // default base: the app's own llm/ folder
    expect(modelsBaseUrl(null, 'https://skycite.example/app/index.html')).toBe('https://skycite.example/app/llm');
    expect(modelsBaseUrl('https://mirror.example/m/', 'https://skycite.example/app/')).toBe('https://mirror.example/m');
  });

  it('refuses a manifest that is not one models:prepare wrote, saying what is wrong', () => {
    const entry = FIXTURE_MANIFEST.models[0]!;
    expect(() => parseModelsManifest({ ...FIXTURE_MANIFEST, format: 'x' })).toThrow(/format is "x"/);
    expect(() => parseModelsManifest({ format: FIXTURE_MANIFEST.format, models: [{ ...entry, model_url: '../etc/' }] })).toThrow(/relative paths/);
    expect(() =>
      parseModelsManifest({ format: FIXTURE_MANIFEST.format, models: [{ ...entry, files: [{ path: 'x.bin', size: 1, sha256: 'nothex' }] }] }),
    ).toThrow(/SHA-256/);
    expect(() => parseModelsManifest({ format: FIXTURE_MANIFEST.format, models: [{ ...entry, files: [] }] })).toThrow(/no files/);
  });

  it('Settings keeps remote ids and self-hosted ids as models:prepare names them, nothing else', () => {
    expect(isOfferableModelId('Qwen2.5-3B-Instruct-q4f32_1-MLC')).toBe(true);
    expect(isOfferableModelId('Qwen2.5-Coder-0.5B-Instruct-q4f32_1-SkyCite')).toBe(true);
    expect(isOfferableModelId('GPT-17-Ultra')).toBe(false);
    expect(isOfferableModelId('../x-SkyCite')).toBe(false);
  });

  it('resolves a same-origin path against the page location and rejects bad URLs', () => {
    expect(resolveBaseUrl('/llm/', 'https://skycite.example/app/')).toBe('https://skycite.example/llm');
    expect(resolveBaseUrl('https://a.example/x?y=1#z')).toBe('https://a.example/x');
    expect(() => resolveBaseUrl('')).toThrow(/empty/);
    expect(() => resolveBaseUrl('ftp://a.example/x')).toThrow(/https/);
    expect(() => resolveBaseUrl('not a url')).toThrow(/not a valid URL/);
    const m = findModel('Qwen2.5-3B-Instruct-q4f32_1-MLC')!;
    expect(modelUrls(m, null).model).toBe('https://huggingface.co/mlc-ai/Qwen2.5-3B-Instruct-q4f32_1-MLC');
    expect(modelUrls(m, '  ').model_lib).toBe(WEBLLM_LIB_PREFIX + m.modelLibPath);
  });
});
