/**
 * The one error taxonomy of the language-model layer — model download, import and
 * verification, loading, the LLM worker, generation — and of the answer stage: typed
 * errors, each with an actionable message, and `mapEngineError`, which turns WebLLM /
 * WebGPU / storage failures into them. The Ask session, Settings and the model
 * installer (src/llm) all use these classes; nothing else defines LLM errors.
 *
 * `mapEngineError` is the one place that reads a foreign engine's failure — web-llm's,
 * in the LLM worker (src/llm/worker-host.ts maps it there, and the typed error crosses
 * to the app with its class and code: core/errors.ts), node-llama-cpp's in Node, the
 * browser's fetch and storage errors — by its name and message text, since web-llm's
 * and tvmjs's failures are mostly plain Errors with a message. Everything after it
 * branches on the class or the code. Names and messages below were checked
 * against @mlc-ai/web-llm 0.2.79 (lib/index.js, lib/error.d.ts):
 * - WebGPUNotAvailableError "WebGPU is not supported in your current environment…",
 *   WebGPUNotFoundError "Cannot find WebGPU in the environment",
 *   detectGPUDevice "Unable to find a compatible GPU…",
 *   FeatureSupportError / ShaderF16SupportError "This model requires feature …";
 * - DeviceLostError "The WebGPU device was lost while loading the model. This
 *   issue often occurs due to running out of memory (OOM)…", and the logged
 *   "Device was lost. This can happen due to insufficient memory…";
 * - ContextWindowSizeExceededError "Prompt tokens exceed context window size…";
 * - ModelNotLoadedError "Model not loaded before trying to complete…",
 *   WorkerEngineModelNotLoadedError "… is not loaded with a model…";
 * - download: tvmjs ArtifactCache "Cannot fetch <url>", "ArtifactIndexedDBCache
 *   failed to fetch", "ArtifactOPFSCache: Unable to fetch …, received status N",
 *   plus the browsers' fetch TypeErrors ("Failed to fetch", "NetworkError when
 *   attempting to fetch resource", "Load failed") and Cache.add failures;
 * - IntegrityError "Integrity verification failed for <url>…" (model files);
 * - QuotaExceededError (DOMException name) from Cache Storage / IndexedDB / OPFS;
 * - the app's own IndexIntegrityError (src/core/index/manifest.ts) for the static index.
 */
import { errorClasses, SkyCiteError, type ModelErrorCode } from '../errors.js';

/** The model layer's part of the one code scheme (core/errors.ts ErrorCode). */
export type AnswerErrorCode = ModelErrorCode;

/** Base class: `message` says what happened, `action` what the user can do. */
export class AnswerError extends SkyCiteError {
  override name = 'AnswerError';
  override readonly code: AnswerErrorCode;
  /** What happened, without the advice (`message` is summary + action). */
  readonly summary: string;
  /** What the user can do about it (shown under the message). */
  readonly action: string;
  /** True when retrying the same request can succeed (answerQuestion retries these once). */
  readonly retryable: boolean;
  /** The original error text, for the audit record. */
  readonly detail: string;

  constructor(code: AnswerErrorCode, message: string, action: string, retryable: boolean, detail = '', options?: { cause?: unknown }) {
    super(`${message} ${action}`, options);
    this.code = code;
    this.summary = message;
    this.action = action;
    this.retryable = retryable;
    this.detail = detail;
  }

  /** Plain object for the audit record / worker messages. */
  toJSON(): { name: string; code: AnswerErrorCode; message: string; summary: string; action: string; retryable: boolean; detail: string } {
    return {
      name: this.name,
      code: this.code,
      message: this.message,
      summary: this.summary,
      action: this.action,
      retryable: this.retryable,
      detail: this.detail,
    };
  }
}

export class ModelDownloadError extends AnswerError {
  override name = 'ModelDownloadError';
  constructor(detail = '', options?: { cause?: unknown }) {
    super(
      'model-download',
      'The language model download failed or was interrupted.',
      'Check the connection and retry: parts already downloaded are kept in the browser cache and are not downloaded again.',
      true,
      detail,
      options,
    );
  }
}

export class ModelFilesCorruptError extends AnswerError {
  override name = 'ModelFilesCorruptError';
  constructor(detail = '', options?: { cause?: unknown }) {
    super(
      'model-files-corrupt',
      'A downloaded model file failed its integrity check.',
      'Clear the model cache (Settings → Storage) and download the model again.',
      false,
      detail,
      options,
    );
  }
}

export class GpuMemoryError extends AnswerError {
  override name = 'GpuMemoryError';
  constructor(detail = '', options?: { cause?: unknown }) {
    super(
      'gpu-memory',
      'The GPU ran out of memory or the WebGPU device was lost.',
      'Choose a smaller model (fewer parameters or a shorter context window), close other GPU-heavy tabs, then reload the model.',
      false,
      detail,
      options,
    );
  }
}

export class ModelStorageQuotaError extends AnswerError {
  override name = 'ModelStorageQuotaError';
  constructor(detail = '', options?: { cause?: unknown }) {
    super(
      'storage-quota',
      'The browser storage quota is exceeded, so the model cannot be stored.',
      'Free disk space or clear cached models you no longer use (Settings → Storage), then retry.',
      false,
      detail,
      options,
    );
  }
}

/** The browser offers no Cache Storage (private mode, an insecure origin), where models are kept. */
export class ModelCacheUnavailableError extends AnswerError {
  override name = 'ModelCacheUnavailableError';
  constructor(detail = '', options?: { cause?: unknown }) {
    super(
      'model-cache-unavailable',
      'This browser offers no Cache Storage (private mode, or an insecure origin): models cannot be stored.',
      'Use evidence-only mode, or open the app over https.',
      false,
      detail,
      options,
    );
  }
}

export class WebGpuUnavailableError extends AnswerError {
  override name = 'WebGpuUnavailableError';
  constructor(detail = '', options?: { cause?: unknown }) {
    super(
      'webgpu-unavailable',
      'WebGPU is not available in this browser or on this device (or lacks a feature the model needs), so the language model cannot run.',
      'Use evidence-only mode: the cited passages are still shown, without a generated answer.',
      false,
      detail,
      options,
    );
  }
}

export class OfflineModelError extends AnswerError {
  override name = 'OfflineModelError';
  constructor(detail = '', options?: { cause?: unknown }) {
    super(
      'offline-uncached',
      'The device is offline and the language model has not been downloaded yet.',
      'Connect once to download the model, or use evidence-only mode while offline.',
      false,
      detail,
      options,
    );
  }
}

export class IndexVerificationError extends AnswerError {
  override name = 'IndexVerificationError';
  constructor(detail = '', options?: { cause?: unknown }) {
    super(
      'index-verification',
      'The regulation index failed verification, so answers cannot be trusted.',
      'Reload the app to fetch the index again; if it persists, clear the app data (Settings → Storage).',
      false,
      detail,
      options,
    );
  }
}

export class ContextTooLongError extends AnswerError {
  override name = 'ContextTooLongError';
  constructor(detail = '', options?: { cause?: unknown }) {
    super(
      'context-too-long',
      "The question, history and retrieved passages exceed the model's context window.",
      'Start a new conversation or ask a narrower question; a model with a larger context window also helps.',
      false,
      detail,
      options,
    );
  }
}

export class ModelNotLoadedError extends AnswerError {
  override name = 'ModelNotLoadedError';
  constructor(detail = '', options?: { cause?: unknown }) {
    super('model-not-loaded', 'The language model is not loaded.', 'Load the model again, then resend the question.', false, detail, options);
  }
}

/** The model does not fit this device: GPU memory budget, buffer limits or a missing GPU feature. */
export class ModelTooLargeError extends AnswerError {
  override name = 'ModelTooLargeError';
  constructor(what: string, detail = '', options?: { cause?: unknown }) {
    super(
      'model-too-large',
      `This model is too large for this device: ${what}.`,
      'Choose a smaller model (the recommended one fits), or keep using evidence-only mode.',
      false,
      detail || what,
      options,
    );
  }
}

/** The files chosen for an import are not a complete, matching set. */
export class ModelImportError extends AnswerError {
  override name = 'ModelImportError';
  constructor(what: string, action: string, detail = '', options?: { cause?: unknown }) {
    super('model-import', what, action, false, detail || what, options);
  }
}

export class ModelUnknownError extends AnswerError {
  override name = 'ModelUnknownError';
  constructor(modelId: string, options?: { cause?: unknown }) {
    super(
      'model-unknown',
      `The model "${modelId}" is not in the list this app offers.`,
      'Choose a model from Settings → Language model; for a self-hosted model check the model base URL and its manifest.json.',
      false,
      modelId,
      options,
    );
  }
}

/** The LLM worker died (an uncaught error, out of memory, or the browser ended it). */
export class WorkerCrashedError extends AnswerError {
  override name = 'WorkerCrashedError';
  constructor(detail = '', options?: { cause?: unknown }) {
    super(
      'worker-crashed',
      'The language model stopped unexpectedly (its worker crashed).',
      'SkyCite continues in evidence-only mode. Load the model again in Settings; if it happens again, choose a smaller model or close other tabs.',
      false,
      detail,
      options,
    );
  }
}

export class GenerationError extends AnswerError {
  override name = 'GenerationError';
  constructor(detail = '', options?: { cause?: unknown }) {
    super(
      'generation',
      'The language model failed while generating the answer.',
      'Retry; if it fails again, reload the model or use evidence-only mode.',
      true,
      detail,
      options,
    );
  }
}

/** The model layer's classes, to rebuild an error that crossed the LLM worker (core/errors.ts decodeError). */
export const MODEL_ERROR_CLASSES = errorClasses({
  AnswerError,
  ModelDownloadError,
  ModelFilesCorruptError,
  GpuMemoryError,
  ModelStorageQuotaError,
  ModelCacheUnavailableError,
  WebGpuUnavailableError,
  OfflineModelError,
  IndexVerificationError,
  ContextTooLongError,
  ModelNotLoadedError,
  ModelTooLargeError,
  ModelImportError,
  ModelUnknownError,
  WorkerCrashedError,
  GenerationError,
});

/** Name and message of anything thrown: Error, DOMException, a worker's error string, or a plain value. */
export function describeThrown(e: unknown): { name: string; message: string } {
  if (e instanceof Error || (typeof e === 'object' && e !== null && 'message' in e)) {
    const err = e as { name?: unknown; message?: unknown };
    return { name: typeof err.name === 'string' ? err.name : 'Error', message: String(err.message ?? '') };
  }
  const text = String(e);
  // WebWorkerMLCEngine forwards `err.toString()`: "Name: message"
  const m = /^([A-Za-z]*(?:Error|Exception)): ([\s\S]*)$/.exec(text);
  return m ? { name: m[1]!, message: m[2]! } : { name: 'Error', message: text };
}

export interface EngineErrorContext {
  /** navigator.onLine at the time of the failure (network failures while offline map to OfflineModelError). */
  online?: boolean;
  /** Whether the model's files were already in the cache (a network failure then is not "offline before caching"). */
  modelCached?: boolean;
}

const WEBGPU =
  /WebGPUNotAvailableError|WebGPUNotFoundError|WebGPU is not supported|Cannot find WebGPU|compatible GPU|navigator\.gpu|requestAdapter|FeatureSupportError|ShaderF16SupportError|requires feature|shader-f16/i;
const GPU_MEMORY =
  /DeviceLostError|device (?:was )?lost|out of memory|\bOOM\b|OutOfMemory|insufficient memory|GPUOutOfMemoryError|requestDevice|maxBufferSize|maxStorageBufferBindingSize/i;
const QUOTA = /QuotaExceeded|quota|storage (?:is )?full|not enough (?:storage|disk)|no space left/i;
const CONTEXT = /ContextWindowSizeExceededError|exceed(?:s)? context window/i;
const UNKNOWN_MODEL = /ModelNotFoundError|Cannot find model record/i;
const NOT_LOADED = /ModelNotLoadedError|WorkerEngineModelNotLoadedError|EngineNotLoadedError|not loaded with a model|Model not loaded/i;
const INDEX = /IndexIntegrityError|static index/i;
const CORRUPT = /IntegrityError|Integrity verification failed|checksum|hash mismatch/i;
const NETWORK =
  /Cannot fetch|failed to fetch|Content Security Policy|Unable to fetch|NetworkError|Load failed|network error|Request failed|ERR_INTERNET_DISCONNECTED|ERR_NETWORK|received status \d+|download (?:failed|interrupted|aborted)/i;

/**
 * Map anything the engine (or model loading, or storage) threw to a typed
 * AnswerError. An AnswerError passes through unchanged. Order matters: specific
 * causes (WebGPU, memory, quota, index) are checked before generic network
 * failures, and IndexIntegrityError before WebLLM's IntegrityError.
 */
export function mapEngineError(e: unknown, ctx: EngineErrorContext = {}): AnswerError {
  if (e instanceof AnswerError) return e;
  const { name, message } = describeThrown(e);
  const text = `${name}: ${message}`;
  const opts = { cause: e };
  if (CONTEXT.test(text)) return new ContextTooLongError(text, opts);
  if (WEBGPU.test(text)) return new WebGpuUnavailableError(text, opts);
  if (GPU_MEMORY.test(text)) return new GpuMemoryError(text, opts);
  if (QUOTA.test(text)) return new ModelStorageQuotaError(text, opts);
  if (INDEX.test(text)) return new IndexVerificationError(text, opts);
  if (CORRUPT.test(text)) return new ModelFilesCorruptError(text, opts);
  if (UNKNOWN_MODEL.test(text)) return new ModelUnknownError(/appConfig for (\S+?)\.?(?:\s|$)/.exec(message)?.[1] ?? message, opts);
  if (NOT_LOADED.test(text)) return new ModelNotLoadedError(text, opts);
  if (NETWORK.test(text) || (name === 'TypeError' && /fetch/i.test(message))) {
    if (ctx.online === false && !ctx.modelCached) return new OfflineModelError(text, opts);
    return new ModelDownloadError(text, opts);
  }
  return new GenerationError(text, opts);
}
