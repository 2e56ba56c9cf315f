/**
 * The language models SkyCite offers: a short list of WebLLM prebuilt models that fit a
 * tablet (3B-class or smaller, 4-bit weights), with an honest download-size estimate, a
 * recommendation from the GPU's limits, and an AppConfig whose artifact URLs can point at
 * a self-hosted mirror.
 *
 * The table is a copy of entries of `prebuiltAppConfig.model_list` of @mlc-ai/web-llm
 * 0.2.86 (ids, URLs, `vram_required_MB`, `low_resource_required`, `required_features`,
 * overrides). It is kept here, rather than read from web-llm at run time, so the main
 * bundle does not pull in web-llm (6.8 MB) just to show the list;
 * tests/llm/models.test.ts fails when it drifts from the installed web-llm.
 *
 * Nothing here fetches anything.
 */
import type { AppConfig, ModelRecord } from '@mlc-ai/web-llm';

/** web-llm's `modelVersion` for the prebuilt model libraries of 0.2.86. */
export const WEBLLM_MODEL_VERSION = 'v0_2_86/base';
/** web-llm's `modelLibURLPrefix`. */
export const WEBLLM_LIB_PREFIX = 'https://raw.githubusercontent.com/mlc-ai/binary-mlc-llm-libs/main/web-llm-models/';
const HF_PREFIX = 'https://huggingface.co/';

export type Quantization = 'q4f16_1' | 'q4f32_1';

export interface CuratedModel {
  /** WebLLM model_id. */
  id: string;
  /** Human label. */
  label: string;
  family: string;
  /** Parameters in billions, from the model card (for the size estimate and ranking). */
  paramsB: number;
  quantization: Quantization;
  /** True for q4f16_1: the WGSL kernels use f16, which needs the `shader-f16` feature. */
  needsShaderF16: boolean;
  /** web-llm's `required_features` (declared only for some models). */
  requiredFeatures: string[];
  /** web-llm's `vram_required_MB`. */
  vramMB: number;
  /** web-llm's `low_resource_required` (true: meant to run on limited devices). */
  lowResource: boolean;
  contextWindow: number;
  /** web-llm's `model` URL (Hugging Face repository). */
  modelUrl: string;
  /** web-llm's `model_lib`, relative to WEBLLM_LIB_PREFIX. */
  modelLibPath: string;
}

interface Row {
  id: string;
  label: string;
  family: string;
  paramsB: number;
  vramMB: number;
  lowResource: boolean;
  requiredFeatures?: string[];
  lib: string;
}

const ROWS: Row[] = [
  { id: 'Qwen2.5-0.5B-Instruct-q4f16_1-MLC', label: 'Qwen2.5 0.5B Instruct', family: 'Qwen2.5', paramsB: 0.49, vramMB: 944.62, lowResource: true, lib: 'Qwen2-0.5B-Instruct-q4f16_1_cs1k-webgpu.wasm' },
  { id: 'Qwen2.5-0.5B-Instruct-q4f32_1-MLC', label: 'Qwen2.5 0.5B Instruct', family: 'Qwen2.5', paramsB: 0.49, vramMB: 1060.2, lowResource: true, lib: 'Qwen2-0.5B-Instruct-q4f32_1_cs1k-webgpu.wasm' },
  { id: 'Llama-3.2-1B-Instruct-q4f16_1-MLC', label: 'Llama 3.2 1B Instruct', family: 'Llama-3.2', paramsB: 1.24, vramMB: 879.04, lowResource: true, lib: 'Llama-3.2-1B-Instruct-q4f16_1_cs1k-webgpu.wasm' },
  { id: 'Llama-3.2-1B-Instruct-q4f32_1-MLC', label: 'Llama 3.2 1B Instruct', family: 'Llama-3.2', paramsB: 1.24, vramMB: 1128.82, lowResource: true, lib: 'Llama-3.2-1B-Instruct-q4f32_1_cs1k-webgpu.wasm' },
  { id: 'Qwen2.5-1.5B-Instruct-q4f16_1-MLC', label: 'Qwen2.5 1.5B Instruct', family: 'Qwen2.5', paramsB: 1.54, vramMB: 1629.75, lowResource: true, lib: 'Qwen2-1.5B-Instruct-q4f16_1_cs1k-webgpu.wasm' },
  { id: 'Qwen2.5-1.5B-Instruct-q4f32_1-MLC', label: 'Qwen2.5 1.5B Instruct', family: 'Qwen2.5', paramsB: 1.54, vramMB: 1888.97, lowResource: true, lib: 'Qwen2-1.5B-Instruct-q4f32_1_cs1k-webgpu.wasm' },
  { id: 'SmolLM2-1.7B-Instruct-q4f16_1-MLC', label: 'SmolLM2 1.7B Instruct', family: 'SmolLM2', paramsB: 1.71, vramMB: 1774.19, lowResource: true, requiredFeatures: ['shader-f16'], lib: 'SmolLM2-1.7B-Instruct-q4f16_1_cs1k-webgpu.wasm' },
  { id: 'SmolLM2-1.7B-Instruct-q4f32_1-MLC', label: 'SmolLM2 1.7B Instruct', family: 'SmolLM2', paramsB: 1.71, vramMB: 2692.38, lowResource: true, lib: 'SmolLM2-1.7B-Instruct-q4f32_1_cs1k-webgpu.wasm' },
  { id: 'gemma-2-2b-it-q4f16_1-MLC', label: 'Gemma 2 2B IT', family: 'gemma-2', paramsB: 2.61, vramMB: 1895.3, lowResource: false, requiredFeatures: ['shader-f16'], lib: 'gemma-2-2b-it-q4f16_1_cs1k-webgpu.wasm' },
  { id: 'gemma-2-2b-it-q4f32_1-MLC', label: 'Gemma 2 2B IT', family: 'gemma-2', paramsB: 2.61, vramMB: 2508.75, lowResource: false, lib: 'gemma-2-2b-it-q4f32_1_cs1k-webgpu.wasm' },
  { id: 'Qwen2.5-3B-Instruct-q4f16_1-MLC', label: 'Qwen2.5 3B Instruct', family: 'Qwen2.5', paramsB: 3.09, vramMB: 2504.76, lowResource: true, lib: 'Qwen2.5-3B-Instruct-q4f16_1_cs1k-webgpu.wasm' },
  { id: 'Qwen2.5-3B-Instruct-q4f32_1-MLC', label: 'Qwen2.5 3B Instruct', family: 'Qwen2.5', paramsB: 3.09, vramMB: 2893.64, lowResource: true, lib: 'Qwen2.5-3B-Instruct-q4f32_1_cs1k-webgpu.wasm' },
  { id: 'Llama-3.2-3B-Instruct-q4f16_1-MLC', label: 'Llama 3.2 3B Instruct', family: 'Llama-3.2', paramsB: 3.21, vramMB: 2263.69, lowResource: true, lib: 'Llama-3.2-3B-Instruct-q4f16_1_cs1k-webgpu.wasm' },
  { id: 'Llama-3.2-3B-Instruct-q4f32_1-MLC', label: 'Llama 3.2 3B Instruct', family: 'Llama-3.2', paramsB: 3.21, vramMB: 2951.51, lowResource: true, lib: 'Llama-3.2-3B-Instruct-q4f32_1_cs1k-webgpu.wasm' },
];

function toModel(r: Row): CuratedModel {
  const quantization: Quantization = r.id.includes('q4f16_1') ? 'q4f16_1' : 'q4f32_1';
  return {
    id: r.id,
    label: r.label,
    family: r.family,
    paramsB: r.paramsB,
    quantization,
    needsShaderF16: quantization === 'q4f16_1',
    requiredFeatures: r.requiredFeatures ?? [],
    vramMB: r.vramMB,
    lowResource: r.lowResource,
    contextWindow: 4096,
    modelUrl: `${HF_PREFIX}mlc-ai/${r.id}`,
    modelLibPath: `${WEBLLM_MODEL_VERSION}/${r.lib}`,
  };
}

/** The curated models, smallest first. */
export const CURATED_MODELS: readonly CuratedModel[] = Object.freeze(ROWS.map(toModel));
export const CURATED_MODEL_IDS: readonly string[] = Object.freeze(CURATED_MODELS.map((m) => m.id));

export function findModel(id: string): CuratedModel | undefined {
  return CURATED_MODELS.find((m) => m.id === id);
}

// ---------------------------------------------------------------------------------------
// Download size (approx.)

/**
 * Bits stored per weight: 4-bit codes plus one scale per group of 32 weights
 * (f16 scale: +0.5 bit; f32 scale: +1 bit).
 */
const BITS_PER_WEIGHT: Record<Quantization, number> = { q4f16_1: 4.5, q4f32_1: 5 };
/** Tokenizer files, chat config and the compiled WebGPU library (a few MB together). */
const FIXED_OVERHEAD_MB = 8;

/**
 * Estimated download in MB: parameters × bits per weight, plus tokenizer and library.
 * WebLLM publishes no download size (the exact figure is only known from the model's
 * tensor-cache.json, which is on the network); this is an estimate and must be shown as
 * "approx.". `vram_required_MB` is not used: it includes the KV cache and working buffers.
 */
export function estimateDownloadMB(model: Pick<CuratedModel, 'paramsB' | 'quantization'>): number {
  const weightsMB = (model.paramsB * 1e9 * BITS_PER_WEIGHT[model.quantization]) / 8 / (1024 * 1024);
  return Math.round(weightsMB + FIXED_OVERHEAD_MB);
}

/** "approx. 0.7 GB" / "approx. 280 MB". */
export function formatApproxSize(mb: number): string {
  if (mb >= 1000) return `approx. ${(mb / 1024).toFixed(1)} GB`;
  return `approx. ${Math.round(mb / 10) * 10} MB`;
}

/** One line per model for the chooser: label, quantization, approx. download, VRAM. */
export function describeModel(model: CuratedModel): string {
  const needs = model.needsShaderF16 ? ', needs shader-f16' : '';
  return (
    `${model.label} (${model.quantization}${needs}) — download ${formatApproxSize(estimateDownloadMB(model))}, ` +
    `GPU memory about ${(model.vramMB / 1024).toFixed(1)} GB`
  );
}

// ---------------------------------------------------------------------------------------
// Recommendation

/** What the recommender needs from a WebGPU adapter (see device.ts, AdapterReport). */
export interface AdapterLimitsInfo {
  maxBufferSize: number;
  maxStorageBufferBindingSize: number;
  maxComputeWorkgroupStorageSize?: number;
  maxStorageBuffersPerShaderStage?: number;
  features: string[];
  /** A software (CPU) adapter: far too slow for a language model. */
  isFallbackAdapter?: boolean;
  vendor?: string;
  architecture?: string;
  description?: string;
}

export interface Recommendation {
  /** The largest model that fits, or null (use evidence-only mode). */
  model: CuratedModel | null;
  /** Every model that fits, largest first. */
  fitting: CuratedModel[];
  /** GPU memory budget assumed, in MB. */
  budgetMB: number;
  reason: string;
}

const MB = 1024 * 1024;
/** WebLLM's floors when it creates the device (it falls back to these from 1 GB). */
const MIN_MAX_BUFFER = 256 * MB;
const MIN_STORAGE_BINDING = 128 * MB;
const MIN_WORKGROUP_STORAGE = 32 * 1024;
const MIN_STORAGE_BUFFERS_PER_STAGE = 10;
const FULL_LIMIT = 1024 * MB;

/**
 * Pick the largest curated model the adapter can run.
 *
 * - No adapter, a software adapter, or limits below WebLLM's floors: no model.
 * - Without `shader-f16` only q4f32_1 models; with it, q4f16_1 (smaller, faster).
 * - Adapters with small binding limits (< 1 GB, typical of phones and tablets) only get
 *   models web-llm marks `low_resource_required`.
 * - GPU memory is not exposed to the web: the budget is half of `deviceMemoryGB`
 *   (navigator.deviceMemory, capped at 8 by browsers; memory is shared on tablets), or,
 *   when unknown, 4 GB for adapters with full limits and 2 GB otherwise.
 */
export function recommendModel(adapterInfo: AdapterLimitsInfo | null | undefined, deviceMemoryGB?: number | null): Recommendation {
  const none = (reason: string, budgetMB = 0): Recommendation => ({ model: null, fitting: [], budgetMB, reason });
  if (!adapterInfo) return none('WebGPU is not available: answers are given in evidence-only mode.');
  if (adapterInfo.isFallbackAdapter) {
    return none('Only a software (CPU) WebGPU adapter is available, too slow for a language model: evidence-only mode.');
  }
  const a = adapterInfo;
  if (a.maxBufferSize < MIN_MAX_BUFFER || a.maxStorageBufferBindingSize < MIN_STORAGE_BINDING) {
    return none('The GPU buffer limits are below what WebLLM needs (256 MB buffers, 128 MB bindings): evidence-only mode.');
  }
  if (a.maxComputeWorkgroupStorageSize !== undefined && a.maxComputeWorkgroupStorageSize < MIN_WORKGROUP_STORAGE) {
    return none('The GPU workgroup storage limit is below what WebLLM needs (32 KB): evidence-only mode.');
  }
  if (a.maxStorageBuffersPerShaderStage !== undefined && a.maxStorageBuffersPerShaderStage < MIN_STORAGE_BUFFERS_PER_STAGE) {
    return none('The GPU allows too few storage buffers per shader stage for WebLLM (10 needed): evidence-only mode.');
  }
  const hasF16 = a.features.includes('shader-f16');
  const fullLimits = a.maxBufferSize >= FULL_LIMIT && a.maxStorageBufferBindingSize >= FULL_LIMIT;
  const memOk = typeof deviceMemoryGB === 'number' && Number.isFinite(deviceMemoryGB) && deviceMemoryGB > 0;
  const budgetMB = memOk ? deviceMemoryGB * 1024 * 0.5 : fullLimits ? 4096 : 2048;

  const fitting = CURATED_MODELS.filter((m) => {
    if (m.needsShaderF16 !== hasF16) return false; // f16 when available, f32 otherwise
    if (m.requiredFeatures.some((f) => !a.features.includes(f))) return false;
    if (!fullLimits && !m.lowResource) return false;
    return m.vramMB <= budgetMB;
  }).sort((x, y) => y.paramsB - x.paramsB || y.vramMB - x.vramMB);

  const model = fitting[0] ?? null;
  if (model === null) {
    return none(`No model fits the assumed GPU memory budget of about ${Math.round(budgetMB)} MB: evidence-only mode.`, budgetMB);
  }
  const why = [
    hasF16 ? 'shader-f16 available (q4f16_1)' : 'no shader-f16 (q4f32_1)',
    fullLimits ? 'full buffer limits' : 'reduced buffer limits (low-resource models only)',
    memOk ? `device memory ${deviceMemoryGB} GB` : 'device memory unknown',
  ].join(', ');
  return { model, fitting, budgetMB, reason: `${model.label} (${model.quantization}) is the largest model that fits: ${why}.` };
}

// ---------------------------------------------------------------------------------------
// AppConfig, with optional self-hosted artifacts

export type CacheBackend = NonNullable<AppConfig['cacheBackend']>;

/** Normalise a base URL: absolute, no trailing slash; a path is resolved against `locationHref`. */
export function resolveBaseUrl(baseUrl: string, locationHref?: string): string {
  const trimmed = baseUrl.trim();
  if (trimmed === '') throw new Error('The model base URL is empty.');
  const here = locationHref ?? (globalThis as { location?: { href?: string } }).location?.href;
  let url: URL;
  try {
    url = here ? new URL(trimmed, here) : new URL(trimmed);
  } catch {
    throw new Error(`The model base URL "${baseUrl}" is not a valid URL.`);
  }
  if (url.protocol !== 'https:' && url.protocol !== 'http:') {
    throw new Error(`The model base URL must use https (got ${url.protocol}).`);
  }
  url.search = '';
  url.hash = '';
  return url.href.replace(/\/+$/, '');
}

/** The model's artifact URLs, at WebLLM's defaults or under a self-hosted base URL. */
export function modelUrls(model: CuratedModel, baseUrl?: string | null): { model: string; model_lib: string } {
  if (baseUrl === undefined || baseUrl === null || baseUrl.trim() === '') {
    return { model: model.modelUrl, model_lib: WEBLLM_LIB_PREFIX + model.modelLibPath };
  }
  const base = resolveBaseUrl(baseUrl);
  return {
    // Same relative layout as the sources: <base>/mlc-ai/<id>/resolve/main/<files> (WebLLM
    // appends resolve/main/ itself) and <base>/web-llm-models/<version>/<lib>.wasm.
    model: `${base}/${model.modelUrl.slice(HF_PREFIX.length)}`,
    model_lib: `${base}/web-llm-models/${model.modelLibPath}`,
  };
}

export interface AppConfigOptions {
  /** Self-hosted artifacts; null/undefined/'' keeps WebLLM's default hosts. */
  baseUrl?: string | null;
  /** Defaults to 'indexeddb' (web-llm 0.2.86's replacement for `useIndexedDBCache: true`). */
  cacheBackend?: CacheBackend;
  models?: readonly CuratedModel[];
}

/** The AppConfig handed to WebLLM: the curated models only. Building it fetches nothing. */
export function buildAppConfig(options: AppConfigOptions = {}): AppConfig {
  const models = options.models ?? CURATED_MODELS;
  const model_list: ModelRecord[] = models.map((m) => {
    const record: ModelRecord = {
      ...modelUrls(m, options.baseUrl),
      model_id: m.id,
      vram_required_MB: m.vramMB,
      low_resource_required: m.lowResource,
      overrides: { context_window_size: m.contextWindow },
    };
    if (m.requiredFeatures.length > 0) record.required_features = [...m.requiredFeatures];
    return record;
  });
  return { model_list, cacheBackend: options.cacheBackend ?? 'indexeddb' };
}
