import { describe, expect, it } from 'vitest';
import {
  AnswerError,
  ContextTooLongError,
  describeThrown,
  GenerationError,
  GpuMemoryError,
  IndexVerificationError,
  mapEngineError,
  ModelDownloadError,
  ModelFilesCorruptError,
  ModelImportError,
  ModelNotLoadedError,
  ModelTooLargeError,
  ModelUnknownError,
  WorkerCrashedError,
  OfflineModelError,
  ModelStorageQuotaError,
  WebGpuUnavailableError,
} from '../../src/core/llm/errors.js';

/** An Error with a name, as WebLLM's classes construct them. */
const named = (name: string, message: string): Error => Object.assign(new Error(message), { name });

// Messages as written in @mlc-ai/web-llm 0.2.86 lib/index.js
const WEBLLM = {
  webgpuNotAvailable: named(
    'WebGPUNotAvailableError',
    'WebGPU is not supported in your current environment, but it is necessary to run the WebLLM engine. Please make sure that your browser supports WebGPU and that it is enabled in your browser settings.',
  ),
  webgpuNotFound: named('WebGPUNotFoundError', 'Cannot find WebGPU in the environment'),
  noAdapter: new Error(
    "Unable to find a compatible GPU. This issue might be because your computer doesn't have a GPU, or your system settings are not configured properly.",
  ),
  shaderF16: named('ShaderF16SupportError', 'This model requires WebGPU extension shader-f16, which is not enabled in this browser.'),
  deviceLost: named(
    'DeviceLostError',
    'The WebGPU device was lost while loading the model. This issue often occurs due to running out of memory (OOM). To resolve this, try reloading with a model that has fewer parameters or uses a smaller context length.',
  ),
  contextWindow: named('ContextWindowSizeExceededError', 'Prompt tokens exceed context window size: number of prompt tokens: 5210; context window size: 4096'),
  notLoaded: named(
    'ModelNotLoadedError',
    'Model not loaded before trying to complete ChatCompletionRequest. Please ensure you have called MLCEngine.reload(model)',
  ),
  workerNotLoaded: 'WorkerEngineModelNotLoadedError: WebWorkerMLCEngine is not loaded with a model. Did you call `engine.reload()`?',
  cannotFetch: new Error('Cannot fetch https://huggingface.co/mlc-ai/Qwen3-1.7B-q4f16_1-MLC/resolve/main/params_shard_3.bin'),
  opfsStatus: new Error('ArtifactOPFSCache: Unable to fetch https://huggingface.co/x/params_shard_1.bin, received status 503'),
  integrity: named('IntegrityError', 'Integrity verification failed for https://huggingface.co/x/params_shard_0.bin\n  Expected: sha256-a\n  Actual: sha256-b'),
};

describe('mapEngineError maps WebLLM / WebGPU / storage failures to typed errors', () => {
  it.each([
    ['WebGPUNotAvailableError', WEBLLM.webgpuNotAvailable, WebGpuUnavailableError],
    ['WebGPUNotFoundError', WEBLLM.webgpuNotFound, WebGpuUnavailableError],
    ['no GPU adapter', WEBLLM.noAdapter, WebGpuUnavailableError],
    ['ShaderF16SupportError', WEBLLM.shaderF16, WebGpuUnavailableError],
    ['DeviceLostError', WEBLLM.deviceLost, GpuMemoryError],
    ['ContextWindowSizeExceededError', WEBLLM.contextWindow, ContextTooLongError],
    ['ModelNotLoadedError', WEBLLM.notLoaded, ModelNotLoadedError],
    ['WorkerEngineModelNotLoadedError (worker string)', WEBLLM.workerNotLoaded, ModelNotLoadedError],
    ['tvmjs "Cannot fetch" shard', WEBLLM.cannotFetch, ModelDownloadError],
    ['OPFS cache bad status', WEBLLM.opfsStatus, ModelDownloadError],
    ['Chrome fetch TypeError', new TypeError('Failed to fetch'), ModelDownloadError],
    ['Firefox fetch TypeError', new TypeError('NetworkError when attempting to fetch resource.'), ModelDownloadError],
    ['IntegrityError (model file)', WEBLLM.integrity, ModelFilesCorruptError],
    ['QuotaExceededError DOMException', named('QuotaExceededError', 'Quota exceeded.'), ModelStorageQuotaError],
    ['IndexIntegrityError (static index)', named('IndexIntegrityError', 'The static index is missing vectors.f32. Rebuild it.'), IndexVerificationError],
    ['anything else', new Error('something odd'), GenerationError],
  ])('%s', (_label, thrown, cls) => {
    const e = mapEngineError(thrown);
    expect(e).toBeInstanceOf(cls);
    expect(e).toBeInstanceOf(AnswerError);
    expect(e.action.length).toBeGreaterThan(20);
    expect(e.message).toContain(e.action);
  });

  it('handles errors forwarded by the worker engine as "Name: message" strings', () => {
    expect(mapEngineError(`DeviceLostError: ${WEBLLM.deviceLost.message}`)).toBeInstanceOf(GpuMemoryError);
    expect(mapEngineError(`WebGPUNotAvailableError: ${WEBLLM.webgpuNotAvailable.message}`)).toBeInstanceOf(WebGpuUnavailableError);
    expect(describeThrown('QuotaExceededError: The quota has been exceeded.')).toEqual({ name: 'QuotaExceededError', message: 'The quota has been exceeded.' });
  });

  it('a network failure while offline and before the model was cached is OfflineModelError; with the model cached it is a download error', () => {
    expect(mapEngineError(new TypeError('Failed to fetch'), { online: false, modelCached: false })).toBeInstanceOf(OfflineModelError);
    expect(mapEngineError(new TypeError('Failed to fetch'), { online: false, modelCached: true })).toBeInstanceOf(ModelDownloadError);
  });

  it('gives actionable advice: retry resumes from cache, smaller model, free space, evidence-only mode', () => {
    expect(new ModelDownloadError().action).toMatch(/retry.*cache/i);
    expect(new ModelDownloadError().retryable).toBe(true);
    expect(new GpuMemoryError().action).toMatch(/smaller model/i);
    expect(new ModelStorageQuotaError().action).toMatch(/free disk space|clear/i);
    expect(new WebGpuUnavailableError().action).toMatch(/evidence-only mode/i);
    expect(new OfflineModelError().action).toMatch(/evidence-only mode/i);
    expect(new IndexVerificationError().action).toMatch(/reload/i);
  });

  it('passes typed errors through and serialises them for the audit record', () => {
    const e = new GpuMemoryError('detail');
    expect(mapEngineError(e)).toBe(e);
    expect(JSON.parse(JSON.stringify(e))).toMatchObject({ name: 'GpuMemoryError', code: 'gpu-memory', retryable: false, detail: 'detail' });
  });
});

describe('LLM-layer errors of the one taxonomy', () => {
  it('an unknown model id (web-llm 0.2.79 ModelNotFoundError) names the model and where to choose one', () => {
    const e = mapEngineError(
      named(
        'ModelNotFoundError',
        'Cannot find model record in appConfig for Tiny-q4f32_1. Please check if the model ID is correct and included in the model_list configuration.',
      ),
    );
    expect(e).toBeInstanceOf(ModelUnknownError);
    expect(e.message).toMatch(/"Tiny-q4f32_1" is not in the list/);
    expect(e.message).toMatch(/Settings → Language model/);
  });

  it('a download blocked by the Content-Security-Policy is a download failure with the retry advice', () => {
    const e = mapEngineError(new TypeError("Failed to fetch: Refused to connect because it violates the document's Content Security Policy."));
    expect(e).toBeInstanceOf(ModelDownloadError);
    expect(e.retryable).toBe(true);
  });

  it('worker crash, import and too-large errors say what to do next', () => {
    expect(new WorkerCrashedError('OOM').message).toMatch(/evidence-only mode\. Load the model again/);
    expect(new ModelTooLargeError('needs 1.6 GB, 1.0 GB available').message).toMatch(/too large for this device: needs 1\.6 GB.*Choose a smaller model/);
    expect(new ModelImportError('The set is incomplete.', 'Choose the whole folder.').code).toBe('model-import');
  });
});
