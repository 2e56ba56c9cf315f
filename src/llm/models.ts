/**
 * The language models SkyCite offers, and nothing else:
 *
 * - **self-hosted**: the models `npm run models:prepare` writes (docs/models.md), listed in
 *   its `manifest.json` with every file's size and SHA-256, served from a base URL — by
 *   default the app's own origin at `llm/` (`npm run build` copies `.cache/models/` there
 *   when present), or any URL set in Settings — or imported from files (Settings →
 *   "Import model files"). Their files are verified against the manifest before WebLLM
 *   reads them (src/llm/install.ts).
 * - **remote**: a short list of WebLLM's prebuilt models on Hugging Face (3B-class or
 *   smaller, 4-bit), a copy of entries of `prebuiltAppConfig.model_list` of
 *   @mlc-ai/web-llm 0.2.79 (tests/llm/models.test.ts fails when it drifts). WebLLM
 *   downloads them itself; no hashes are published for them, so they are not verified.
 *   The list itself is in src/core/model-catalog.ts (re-exported here).
 *
 * Recommendation from the GPU's limits; the WebLLM AppConfig for a chosen model.
 * Nothing here fetches anything, and nothing imports web-llm's code (types only).
 */
import { SkyCiteError } from '../core/errors.js';
import { concerns, schemaErrors, type SchemaError } from '../core/schema/check.js';
import * as generated from '../core/schema/validators.generated.js';
import type { AppConfig, ModelRecord } from '@mlc-ai/web-llm';
import { CURATED_MODELS, findModel, MODEL_ID_PATTERN, WEBLLM_LIB_PREFIX, type CuratedModel, type ModelFile, type Quantization } from '../core/model-catalog.js';

// The offered models and the accepted ids live in src/core/model-catalog.ts (the settings store reads them too).
export {
  CURATED_MODEL_IDS,
  CURATED_MODELS,
  findModel,
  isOfferableModelId,
  MODEL_ID_PATTERN,
  SELF_HOSTED_SUFFIX,
  WEBLLM_LIB_PREFIX,
  WEBLLM_MODEL_VERSION,
  type CuratedModel,
  type ModelFile,
  type Quantization,
} from '../core/model-catalog.js';

// ---------------------------------------------------------------------------------------
// Self-hosted models: the manifest of npm run models:prepare

export const MODELS_MANIFEST_FORMAT = 'skycite-mlc-models/1';

export class ModelsManifestError extends SkyCiteError {
  override name = 'ModelsManifestError';
  override readonly code = 'models-manifest';
}

/** The model base URL (Settings) is not one models can be loaded from. */
export class ModelBaseUrlError extends SkyCiteError {
  override name = 'ModelBaseUrlError';
  override readonly code = 'model-base-url';
}

interface ManifestEntry {
  model_id: string;
  source_model: string;
  quantization: string;
  model_url: string;
  model_lib: string;
  required_features: string[];
  vram_required_MB: number;
  context_window_size: number;
  total_bytes: number;
  files: ModelFile[];
}

const SAFE_PATH = /^(?!\/)(?!.*(?:^|\/)\.\.(?:\/|$))[A-Za-z0-9._\/-]+$/;
const SHA256 = /^[0-9a-f]{64}$/;
const ENTRY_TEXTS = ['model_url', 'model_lib', 'source_model', 'quantization'] as const;

/** The shape of a `manifest.json` written by `npm run models:prepare` (compiled by tools/generate-validators.ts). */
export const MODELS_MANIFEST_SCHEMA = {
  $id: 'skycite/models-manifest',
  type: 'object',
  required: ['format', 'models'],
  properties: {
    format: { const: MODELS_MANIFEST_FORMAT },
    models: {
      type: 'array',
      items: {
        type: 'object',
        required: ['model_id', ...ENTRY_TEXTS, 'files'],
        properties: {
          model_id: { type: 'string', pattern: MODEL_ID_PATTERN.source },
          model_url: { type: 'string', pattern: SAFE_PATH.source },
          model_lib: { type: 'string', pattern: SAFE_PATH.source },
          source_model: { type: 'string', pattern: '.' },
          quantization: { enum: ['q4f16_1', 'q4f32_1'] },
          files: {
            type: 'array',
            minItems: 1,
            items: {
              type: 'object',
              required: ['path', 'size', 'sha256'],
              properties: {
                path: { type: 'string', pattern: SAFE_PATH.source },
                size: { type: 'integer', minimum: 0, maximum: Number.MAX_SAFE_INTEGER },
                sha256: { type: 'string', pattern: SHA256.source },
              },
            },
          },
        },
      },
    },
  },
} as const;

/** What is wrong with a manifest, in the operator's words: the first problem, in the order a reader checks it. */
function manifestProblem(m: { format?: unknown; models?: unknown }, errors: readonly SchemaError[]): string {
  if (errors.some((e) => e.instancePath === '' && e.keyword === 'type')) return 'not a JSON object';
  if (concerns(errors, '', 'format')) return `format is ${JSON.stringify(m.format)}, expected "${MODELS_MANIFEST_FORMAT}"`;
  const inEntry = errors.map((e) => /^\/models\/(\d+)/.exec(e.instancePath)?.[1]).filter((x): x is string => x !== undefined);
  if (!inEntry.length) return '"models" is not a list';
  const i = Math.min(...inEntry.map(Number));
  const at = `/models/${i}`;
  const e = (m.models as Record<string, unknown>[])[i]!;
  if (errors.some((x) => x.instancePath === at && x.keyword === 'type') || concerns(errors, at, 'model_id'))
    return `model ${i + 1}: model_id is missing or malformed`;
  const id = String(e['model_id']);
  for (const k of ENTRY_TEXTS) if (typeof e[k] !== 'string' || !e[k]) return `${id}: ${k} is missing`;
  if (concerns(errors, at, 'quantization')) return `${id}: quantization ${String(e['quantization'])} is not q4f16_1 or q4f32_1`;
  if (concerns(errors, at, 'model_url') || concerns(errors, at, 'model_lib')) return `${id}: model_url and model_lib must be relative paths inside the folder`;
  const fileAt = errors.find((x) => x.instancePath.startsWith(`${at}/files/`));
  if (concerns(errors, at, 'files') && !fileAt) return `${id}: no files listed`;
  const f = fileAt ? (e['files'] as unknown[])[Number(/^\/files\/(\d+)/.exec(fileAt.instancePath.slice(at.length))?.[1] ?? 0)] : undefined;
  return `${id}: a file entry lacks a relative path, a size or a SHA-256 (${JSON.stringify(f)?.slice(0, 120)})`;
}

/**
 * The self-hosted models of a `manifest.json` written by `npm run models:prepare` (MODELS_MANIFEST_SCHEMA).
 * Throws ModelsManifestError (what is wrong, and the fix) for anything else.
 */
export function parseModelsManifest(json: unknown): CuratedModel[] {
  const errors = schemaErrors(generated.modelsManifest, json);
  if (errors.length) {
    const why = manifestProblem(json as { format?: unknown; models?: unknown }, errors);
    throw new ModelsManifestError(`The model manifest is not usable: ${why}. Serve the manifest.json that npm run models:prepare wrote, unchanged.`);
  }
  return (json as { models: ManifestEntry[] }).models.map((e) => {
    const quantization = e.quantization as Quantization;
    const paramsB = Number(/(\d+(?:\.\d+)?)B\b/i.exec(e.source_model)?.[1] ?? 0);
    return {
      id: e.model_id,
      source: 'self-hosted' as const,
      label: e.source_model.replace(/-/g, ' '),
      family: e.source_model.replace(/-\d+(?:\.\d+)?B.*$/i, ''),
      paramsB,
      quantization,
      needsShaderF16: quantization === 'q4f16_1',
      requiredFeatures: Array.isArray(e.required_features) ? e.required_features.map(String) : [],
      vramMB: Number(e.vram_required_MB) || 0,
      // the Qwen2 0.5B/1.5B libraries are web-llm's low-resource ones (same libraries as its prebuilt list)
      lowResource: true,
      contextWindow: Number(e.context_window_size) || 4096,
      modelUrl: e.model_url,
      modelLibPath: e.model_lib,
      totalBytes: Number(e.total_bytes) || e.files.reduce((n, f) => n + f.size, 0),
      files: e.files.map((f) => ({ path: f.path, size: f.size, sha256: f.sha256 })),
    };
  });
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

/** Exact size for self-hosted models ("324.3 MB"), the estimate otherwise ("approx. 280 MB"). */
export function downloadSizeText(model: CuratedModel): string {
  if (model.totalBytes !== null) {
    const mb = model.totalBytes / 1e6;
    return mb >= 1000 ? `${(mb / 1000).toFixed(2)} GB` : `${mb.toFixed(1)} MB`;
  }
  return formatApproxSize(estimateDownloadMB(model));
}

/** One line per model for the chooser: label, quantization, download, VRAM. */
export function describeModel(model: CuratedModel): string {
  const needs = model.needsShaderF16 ? ', needs shader-f16' : '';
  return `${model.label} (${model.quantization}${needs}) — download ${downloadSizeText(model)}, GPU memory about ${(model.vramMB / 1024).toFixed(1)} GB`;
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
 * Pick the model to recommend: the smallest verified self-hosted model the adapter can run (measured:
 * docs/models.md), else the largest curated remote one.
 *
 * - No adapter, a software adapter, or limits below WebLLM's floors: no model.
 * - Without `shader-f16` only q4f32_1 models; with it, q4f16_1 (smaller, faster).
 * - Adapters with small binding limits (< 1 GB, typical of phones and tablets) only get
 *   models web-llm marks `low_resource_required`.
 * - GPU memory is not exposed to the web: the budget is half of `deviceMemoryGB`
 *   (navigator.deviceMemory, capped at 8 by browsers; memory is shared on tablets), or,
 *   when unknown, 4 GB for adapters with full limits and 2 GB otherwise.
 */
export function recommendModel(
  adapterInfo: AdapterLimitsInfo | null | undefined,
  deviceMemoryGB?: number | null,
  models: readonly CuratedModel[] = CURATED_MODELS,
): Recommendation {
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

  const fitting = models
    .filter((m) => {
      if (m.needsShaderF16 !== hasF16) return false; // f16 when available, f32 otherwise
      if (m.requiredFeatures.some((f) => !a.features.includes(f))) return false;
      if (!fullLimits && !m.lowResource) return false;
      return m.vramMB <= budgetMB;
    })
    .sort((x, y) => y.paramsB - x.paramsB || y.vramMB - x.vramMB);

  // a verified self-hosted model first, the SMALLEST that fits: measured on real answers, the 1.5B's leads were no
  // better than the 0.5B's on a strict reading and it decodes at about half the speed (docs/models.md, "Which model");
  // else the largest remote one (not measured by this project)
  const selfHosted = fitting.filter((m) => m.source === 'self-hosted').sort((x, y) => x.paramsB - y.paramsB || x.vramMB - y.vramMB);
  const model = selfHosted[0] ?? fitting[0] ?? null;
  if (model === null) {
    return none(`No model fits the assumed GPU memory budget of about ${Math.round(budgetMB)} MB: evidence-only mode.`, budgetMB);
  }
  const why = [
    hasF16 ? 'shader-f16 available (q4f16_1)' : 'no shader-f16 (q4f32_1)',
    fullLimits ? 'full buffer limits' : 'reduced buffer limits (low-resource models only)',
    memOk ? `device memory ${deviceMemoryGB} GB` : 'device memory unknown',
  ].join(', ');
  const what =
    model.source === 'self-hosted'
      ? 'the self-hosted model measured best (a larger one wrote no better summaries, more slowly)'
      : 'the largest model that fits (not measured by SkyCite)';
  return { model, fitting, budgetMB, reason: `${model.label} (${model.quantization}) is ${what}: ${why}.` };
}

/** GPU memory budget assumed for an adapter (MB): see recommendModel. */
export function memoryBudgetMB(a: AdapterLimitsInfo, deviceMemoryGB?: number | null): number {
  const fullLimits = a.maxBufferSize >= FULL_LIMIT && a.maxStorageBufferBindingSize >= FULL_LIMIT;
  const memOk = typeof deviceMemoryGB === 'number' && Number.isFinite(deviceMemoryGB) && deviceMemoryGB > 0;
  return memOk ? deviceMemoryGB * 1024 * 0.5 : fullLimits ? 4096 : 2048;
}

/**
 * Why this model cannot run on this adapter, or null when it can: a GPU feature it needs
 * is missing, its GPU memory exceeds the budget, or its largest weight buffer exceeds the
 * adapter's buffer limits (self-hosted models: the largest params shard, which holds the
 * embedding alone). A software adapter is not refused here (it is slow, not unable).
 */
export function whyNotFits(model: CuratedModel, a: AdapterLimitsInfo | null | undefined, deviceMemoryGB?: number | null): string | null {
  if (!a) return null; // no adapter: WebLLM reports that itself (WebGpuUnavailableError)
  const missing = model.requiredFeatures.filter((f) => !a.features.includes(f));
  if (missing.length) return `the GPU lacks ${missing.join(', ')}${missing.includes('shader-f16') ? ' (choose the q4f32_1 variant)' : ''}`;
  const budget = memoryBudgetMB(a, deviceMemoryGB);
  if (model.vramMB > budget)
    return `it needs about ${(model.vramMB / 1024).toFixed(1)} GB of GPU memory and this device offers about ${(budget / 1024).toFixed(1)} GB`;
  const largest = Math.max(0, ...(model.files ?? []).filter((f) => /params_shard_\d+\.bin$/.test(f.path)).map((f) => f.size));
  const limit = Math.min(a.maxBufferSize, a.maxStorageBufferBindingSize);
  if (limit > 0 && largest > limit)
    return `its largest weight buffer is ${(largest / MB).toFixed(0)} MB and the GPU allows ${(limit / MB).toFixed(0)} MB per buffer`;
  return null;
}

// ---------------------------------------------------------------------------------------
// AppConfig, with optional self-hosted artifacts

/** Normalise a base URL: absolute, no trailing slash; a path is resolved against `locationHref`. */
export function resolveBaseUrl(baseUrl: string, locationHref?: string): string {
  const trimmed = baseUrl.trim();
  if (trimmed === '') throw new ModelBaseUrlError('The model base URL is empty.');
  const here = locationHref ?? (globalThis as { location?: { href?: string } }).location?.href;
  let url: URL;
  try {
    url = here ? new URL(trimmed, here) : new URL(trimmed);
  } catch {
    throw new ModelBaseUrlError(`The model base URL "${baseUrl}" is not a valid URL.`);
  }
  if (url.protocol !== 'https:' && url.protocol !== 'http:') {
    throw new ModelBaseUrlError(`The model base URL must use https (got ${url.protocol}).`);
  }
  url.search = '';
  url.hash = '';
  return url.href.replace(/\/+$/, '');
}

/** The self-hosted models' default base URL: the app's own origin, `llm/` beside index.html. */
export const DEFAULT_MODELS_PATH = 'llm/';

/** The base URL in use: the setting, or the app's own `llm/` folder. Absolute, no trailing slash. */
export function modelsBaseUrl(setting: string | null | undefined, locationHref?: string): string {
  const here =
    locationHref ?? (globalThis as { document?: { baseURI?: string } }).document?.baseURI ?? (globalThis as { location?: { href?: string } }).location?.href;
  return resolveBaseUrl(setting && setting.trim() ? setting : DEFAULT_MODELS_PATH, here);
}

/** The model's artifact URLs: Hugging Face / GitHub for remote models, under the base URL for self-hosted ones. */
export function modelUrls(model: CuratedModel, baseUrl?: string | null): { model: string; model_lib: string } {
  if (model.source === 'remote') return { model: model.modelUrl, model_lib: WEBLLM_LIB_PREFIX + model.modelLibPath };
  const base = modelsBaseUrl(baseUrl);
  return { model: new URL(model.modelUrl, `${base}/`).href, model_lib: new URL(model.modelLibPath, `${base}/`).href };
}

/** web-llm's record of one model. */
export function modelRecord(m: CuratedModel, baseUrl?: string | null): ModelRecord {
  const record: ModelRecord = {
    ...modelUrls(m, baseUrl),
    model_id: m.id,
    vram_required_MB: m.vramMB,
    low_resource_required: m.lowResource,
    overrides: { context_window_size: m.contextWindow },
  };
  if (m.requiredFeatures.length > 0) record.required_features = [...m.requiredFeatures];
  return record;
}

export interface AppConfigOptions {
  /** Base URL of the self-hosted models (null/'' = the app's own llm/ folder). */
  baseUrl?: string | null;
  models?: readonly CuratedModel[];
}

/**
 * The AppConfig handed to WebLLM: the offered models only, cached with the Cache API
 * (`useIndexedDBCache: false`, web-llm 0.2.79's default and its better-tested cache) —
 * the same caches the verified installer and the import write (src/llm/cache.ts).
 */
export function buildAppConfig(options: AppConfigOptions = {}): AppConfig {
  const models = options.models ?? CURATED_MODELS;
  return { model_list: models.map((m) => modelRecord(m, options.baseUrl)), useIndexedDBCache: false };
}

/**
 * The generation model behind an answer, for its audit record: its id with the weights' repository
 * and the compiled library as WebLLM fetched them (default hosts or the self-hosted base URL).
 * WebLLM publishes no hash of the weights, so none is recorded.
 */
export function describeGenerationModel(
  id: string,
  baseUrl?: string | null,
  models: readonly CuratedModel[] = CURATED_MODELS,
): { id: string; weightsUrl: string | null; libraryUrl: string | null; source?: 'self-hosted' | 'remote' } {
  const m = findModel(id, models);
  let urls: { model: string; model_lib: string } | null = null;
  try {
    urls = m ? modelUrls(m, baseUrl) : null;
  } catch {
    urls = null; // an invalid base URL could not have loaded the model; record the id only
  }
  return { id, weightsUrl: urls?.model ?? null, libraryUrl: urls?.model_lib ?? null, ...(m ? { source: m.source } : {}) };
}
