/**
 * The WebLLM engine behind a small interface. By default the engine runs in a Web Worker
 * (src/llm/worker.ts, `CreateWebWorkerMLCEngine` / `WebWorkerMLCEngineHandler`) so the UI
 * stays responsive; `inWorker: false` runs the same engine in-process behind the same
 * interface.
 *
 * web-llm is imported lazily (a separate chunk): nothing is downloaded, and no worker is
 * started, until `load()` is called, i.e. until the user asks for a model.
 */
import type { AppConfig, InitProgressReport, MLCEngineConfig, MLCEngineInterface } from '@mlc-ai/web-llm';
import { WEBLLM_CACHE_NAMES } from '../pwa/storage.js';
import { buildAppConfig } from './models.js';

export { getDeviceReport, type DeviceReport, type AdapterReport, type NavigatorLike } from './device.js';

export interface LoadProgress {
  /** 0–1. */
  progress: number;
  text: string;
  /** Bytes fetched or read from the cache so far, when WebLLM reports them (MB resolution). */
  bytesLoaded?: number;
}

export interface ChatMessage {
  role: 'system' | 'user' | 'assistant';
  content: string;
}

export interface GenerateParams {
  temperature?: number;
  top_p?: number;
  max_tokens?: number;
  seed?: number;
  stop?: string[];
  frequency_penalty?: number;
  presence_penalty?: number;
}

export interface GenerateResult {
  text: string;
  /** 'stop' | 'length' | 'abort' | ... as reported by WebLLM; null if the stream ended without one. */
  finishReason: string | null;
  aborted: boolean;
  usage: { promptTokens: number; completionTokens: number } | null;
}

export interface GenerateOptions {
  /** Called for every streamed piece with the piece and the text so far. */
  onToken?: (delta: string, textSoFar: string) => void;
  /** Aborting calls interruptGenerate(); the result has what was generated so far. */
  signal?: AbortSignal;
}

export interface LlmEngine {
  readonly modelId: string | null;
  readonly inWorker: boolean;
  /**
   * The loaded WebLLM engine (worker client or in-process), null before load(). It fits
   * the answer stage's `ChatEngine` (src/core/answer/generation.ts) as is.
   */
  readonly engine: MLCEngineInterface | null;
  /** Download (or read from the cache) and initialise a model. */
  load(modelId: string, options?: { onProgress?: (p: LoadProgress) => void }): Promise<void>;
  generate(messages: ChatMessage[], params?: GenerateParams, options?: GenerateOptions): Promise<GenerateResult>;
  /** Stop the current generation (the pending generate() resolves with aborted: true). */
  interrupt(): void;
  unload(): Promise<void>;
  /** Unload and terminate the worker. */
  dispose(): Promise<void>;
}

/** The parts of the web-llm module used here (injectable for tests). */
export interface WebLlmModule {
  CreateWebWorkerMLCEngine(worker: unknown, modelId: string, engineConfig?: MLCEngineConfig): Promise<MLCEngineInterface>;
  CreateMLCEngine(modelId: string, engineConfig?: MLCEngineConfig): Promise<MLCEngineInterface>;
  hasModelInCache(modelId: string, appConfig?: AppConfig): Promise<boolean>;
  deleteModelAllInfoInCache(modelId: string, appConfig?: AppConfig): Promise<void>;
  deleteModelWasmInCache(modelId: string, appConfig?: AppConfig): Promise<void>;
  deleteChatConfigInCache(modelId: string, appConfig?: AppConfig): Promise<void>;
}

/** Lazy import of the real module (type-checked against WebLlmModule). */
const importWebLlm = (): Promise<WebLlmModule> => import('@mlc-ai/web-llm');

/** The worker; Vite bundles it from this exact `new Worker(new URL(...), …)` expression. */
export function startEngineWorker(): Worker {
  return new Worker(new URL('./worker.ts', import.meta.url), { type: 'module', name: 'skycite-llm' });
}

export interface EngineOptions {
  /** Defaults to buildAppConfig({ baseUrl }) (IndexedDB cache, curated models). */
  appConfig?: AppConfig;
  /** Self-hosted model artifacts (ignored when appConfig is given). */
  baseUrl?: string | null;
  /** Default: true when Worker exists. */
  inWorker?: boolean;
  createWorker?: () => Worker;
  /** For tests. */
  webllm?: () => Promise<WebLlmModule>;
}

/** WebLLM's progress text carries "123MB fetched" / "123MB loaded". */
export function mapProgress(report: Pick<InitProgressReport, 'progress' | 'text'>): LoadProgress {
  const progress = Number.isFinite(report.progress) ? Math.min(1, Math.max(0, report.progress)) : 0;
  const out: LoadProgress = { progress, text: report.text };
  const m = /(\d+(?:\.\d+)?)\s*MB (?:fetched|loaded)/.exec(report.text);
  if (m) out.bytesLoaded = Math.round(Number(m[1]) * 1024 * 1024);
  return out;
}

/** Error names web-llm uses (errors from the worker arrive as "Name: message" strings). */
export class LlmError extends Error {
  override readonly name = 'LlmError';
  constructor(
    readonly kind: 'no-webgpu' | 'shader-f16' | 'device-lost' | 'network' | 'storage' | 'model-unknown' | 'other',
    message: string,
    options?: { cause?: unknown },
  ) {
    super(message, options);
  }
}

/** Turn whatever web-llm threw (Error or string) into an LlmError with an actionable message. */
export function describeLlmError(e: unknown): LlmError {
  if (e instanceof LlmError) return e;
  const text = e instanceof Error ? `${e.name}: ${e.message}` : String(e);
  const has = (s: string) => text.includes(s);
  if (has('WebGPUNotAvailableError') || has('WebGPUNotFoundError') || has('Unable to find a compatible GPU')) {
    return new LlmError('no-webgpu', 'This browser or device cannot run the language model (no usable WebGPU). Use evidence-only mode, or try a current Chrome, Edge or Safari.', { cause: e });
  }
  if (has('ShaderF16SupportError') || has('shader-f16')) {
    return new LlmError('shader-f16', 'This GPU lacks 16-bit float support (shader-f16). Choose a q4f32_1 model instead.', { cause: e });
  }
  if (has('DeviceLostError') || has('device was lost')) {
    return new LlmError('device-lost', 'The GPU ran out of memory or was reset while loading the model. Choose a smaller model, close other tabs, and try again.', { cause: e });
  }
  if (has('QuotaExceededError') || has('quota')) {
    return new LlmError('storage', 'Not enough browser storage to keep the model. Free space (delete another model or clear the audit log) and try again.', { cause: e });
  }
  if (has('ModelNotFoundError') || has('Cannot find model record')) {
    return new LlmError('model-unknown', 'This model is not in the list SkyCite offers.', { cause: e });
  }
  if (has('Failed to fetch') || has('NetworkError') || has('Load failed') || has('Content Security Policy') || has('404')) {
    return new LlmError('network', 'The model could not be downloaded. Check the connection and the model base URL in Settings (the server must allow this site, CORS), then try again.', { cause: e });
  }
  return new LlmError('other', `The language model failed: ${text}`, { cause: e });
}

export function createLlmEngine(options: EngineOptions = {}): LlmEngine {
  const appConfig = options.appConfig ?? buildAppConfig({ baseUrl: options.baseUrl ?? null });
  const inWorker = options.inWorker ?? typeof Worker !== 'undefined';
  const loadModule = options.webllm ?? importWebLlm;
  let engine: MLCEngineInterface | null = null;
  let worker: Worker | null = null;
  let current: string | null = null;
  let progressSink: ((p: LoadProgress) => void) | undefined;
  const initProgressCallback = (r: InitProgressReport) => progressSink?.(mapProgress(r));

  return {
    get modelId() {
      return current;
    },
    get engine() {
      return current === null ? null : engine;
    },
    inWorker,

    async load(modelId, loadOptions) {
      progressSink = loadOptions?.onProgress;
      try {
        if (engine) {
          engine.setInitProgressCallback(initProgressCallback);
          await engine.reload(modelId);
        } else {
          const webllm = await loadModule();
          const config: MLCEngineConfig = { appConfig, initProgressCallback };
          if (inWorker) {
            worker = (options.createWorker ?? startEngineWorker)();
            engine = await webllm.CreateWebWorkerMLCEngine(worker, modelId, config);
          } else {
            engine = await webllm.CreateMLCEngine(modelId, config);
          }
        }
        current = modelId;
      } catch (e) {
        current = null;
        throw describeLlmError(e);
      } finally {
        progressSink = undefined;
      }
    },

    async generate(messages, params = {}, genOptions = {}) {
      if (!engine || current === null) throw new LlmError('other', 'No language model is loaded.');
      const { signal, onToken } = genOptions;
      if (signal?.aborted) return { text: '', finishReason: 'abort', aborted: true, usage: null };
      const e = engine;
      const onAbort = () => e.interruptGenerate();
      signal?.addEventListener('abort', onAbort, { once: true });
      let text = '';
      let finishReason: string | null = null;
      let usage: GenerateResult['usage'] = null;
      try {
        const stream = await e.chat.completions.create({
          messages,
          stream: true,
          stream_options: { include_usage: true },
          ...params,
        });
        for await (const chunk of stream) {
          const choice = chunk.choices[0];
          const delta = choice?.delta?.content ?? '';
          if (delta) {
            text += delta;
            onToken?.(delta, text);
          }
          if (choice?.finish_reason) finishReason = choice.finish_reason;
          if (chunk.usage) usage = { promptTokens: chunk.usage.prompt_tokens, completionTokens: chunk.usage.completion_tokens };
        }
      } catch (err) {
        if (!signal?.aborted) throw describeLlmError(err);
        finishReason = 'abort';
      } finally {
        signal?.removeEventListener('abort', onAbort);
      }
      return { text, finishReason, aborted: signal?.aborted === true || finishReason === 'abort', usage };
    },

    interrupt() {
      engine?.interruptGenerate();
    },

    async unload() {
      if (engine) await engine.unload();
      current = null;
    },

    async dispose() {
      try {
        if (engine) await engine.unload();
      } finally {
        engine = null;
        current = null;
        worker?.terminate();
        worker = null;
      }
    },
  };
}

/** The stores WebLLM keeps models in (IndexedDB databases or Cache Storage caches, by backend). */
const WEBLLM_STORES: readonly string[] = WEBLLM_CACHE_NAMES;

export interface StorageLike {
  indexedDB?: { databases?: () => Promise<{ name?: string }[]> } | undefined;
  caches?: { keys(): Promise<string[]> } | undefined;
}

/**
 * Whether any of WebLLM's model stores exists on this device, read without loading WebLLM (its
 * bundle is ≈ 6 MB of script): false when neither an IndexedDB database nor a cache of that name
 * exists, null when the browser cannot list its databases.
 */
export async function webLlmStorePresent(env: StorageLike = globalThis as StorageLike): Promise<boolean | null> {
  const dbs = env.indexedDB?.databases;
  if (!dbs || !env.caches) return null;
  try {
    const [databases, cacheNames] = await Promise.all([dbs.call(env.indexedDB), env.caches.keys()]);
    return databases.some((d) => WEBLLM_STORES.includes(d.name ?? '')) || cacheNames.some((n) => WEBLLM_STORES.includes(n));
  } catch {
    return null;
  }
}

/**
 * Whether the model's weights are in WebLLM's cache (no network access). Pass the same
 * AppConfig (same base URL and cache backend) used to download it: cache keys are URLs.
 * When no WebLLM store exists at all the answer is no, without loading WebLLM.
 */
export async function isModelCached(
  modelId: string,
  appConfig: AppConfig = buildAppConfig(),
  webllm = importWebLlm,
  storePresent: () => Promise<boolean | null> = webLlmStorePresent,
): Promise<boolean> {
  if ((await storePresent()) === false) return false;
  const m = await webllm();
  try {
    return await m.hasModelInCache(modelId, appConfig);
  } catch {
    return false;
  }
}

/**
 * Delete the model's weights, tokenizer, library and config from WebLLM's cache.
 *
 * web-llm's weight deletion reads the model's tensor-cache.json through its cache, which
 * would download it when it is not cached; so weights are only deleted for a model that
 * is fully cached (no network access ever). For a partly downloaded model the library and
 * config are deleted and `deletedWeights` is false: use clearCaches() (src/pwa/storage.ts)
 * to remove partial downloads.
 */
export async function deleteModelCache(
  modelId: string,
  appConfig: AppConfig = buildAppConfig(),
  webllm = importWebLlm,
): Promise<{ deletedWeights: boolean }> {
  const m = await webllm();
  let cached = false;
  try {
    cached = await m.hasModelInCache(modelId, appConfig);
  } catch {
    cached = false;
  }
  if (cached) {
    await m.deleteModelAllInfoInCache(modelId, appConfig);
    return { deletedWeights: true };
  }
  await m.deleteModelWasmInCache(modelId, appConfig);
  await m.deleteChatConfigInCache(modelId, appConfig);
  return { deletedWeights: false };
}
