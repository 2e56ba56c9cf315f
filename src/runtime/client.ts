/**
 * The UI side of the runtime worker: the same SkyCiteRuntime interface as the
 * in-process runtime, over postMessage.
 */
import { DEFAULT_RUNTIME_OPTIONS } from './defaults.js';
import type { DownloadProgress, RuntimeMethod, RuntimeReply, RuntimeRequest, SkyCiteRuntime } from './types.js';

export class RuntimeError extends Error {
  constructor(name: string, message: string) {
    super(message);
    this.name = name;
  }
}

export function createRuntimeClient(worker: Worker): SkyCiteRuntime {
  let next = 1;
  const pending = new Map<number, { resolve: (v: unknown) => void; reject: (e: Error) => void; progress?: (p: DownloadProgress) => void }>();
  worker.onmessage = (ev: MessageEvent<RuntimeReply>) => {
    const msg = ev.data;
    const p = pending.get(msg.id);
    if (!p) return;
    if ('progress' in msg) {
      p.progress?.(msg.progress);
      return;
    }
    pending.delete(msg.id);
    if (msg.ok) p.resolve(msg.value);
    else p.reject(new RuntimeError(msg.error.name, msg.error.message));
  };
  worker.onerror = (ev) => {
    const err = new RuntimeError('WorkerError', `The retrieval worker failed: ${ev.message || 'unknown error'}. Reload the app.`);
    for (const p of pending.values()) p.reject(err);
    pending.clear();
  };
  const callWithProgress = <T>(method: RuntimeMethod, progress: ((p: DownloadProgress) => void) | undefined, ...args: unknown[]): Promise<T> =>
    new Promise<T>((resolve, reject) => {
      const id = next++;
      pending.set(id, { resolve: resolve as (v: unknown) => void, reject, ...(progress ? { progress } : {}) });
      worker.postMessage({ id, method, args } satisfies RuntimeRequest);
    });
  const call = <T>(method: RuntimeMethod, ...args: unknown[]): Promise<T> => callWithProgress<T>(method, undefined, ...args);
  return {
    // URLs are resolved against the page, so the worker (whose own URL is under assets/) fetches the right files
    init: (o = {}) => {
      const base = globalThis.document?.baseURI ?? globalThis.location?.href ?? 'http://localhost/';
      const d = DEFAULT_RUNTIME_OPTIONS;
      return call('init', {
        ...o,
        indexBaseUrl: new URL(o.indexBaseUrl ?? d.indexBaseUrl, base).href,
        modelBaseUrl: new URL(o.modelBaseUrl ?? d.modelBaseUrl, base).href,
        ortBaseUrl: new URL(o.ortBaseUrl ?? d.ortBaseUrl, base).href,
      });
    },
    retrieve: (q, o) => call('retrieve', q, o),
    evidenceOnly: (q, r) => call('evidenceOnly', q, r),
    draftRequirements: (d, o) => call('draftRequirements', d, o),
    checkGrounding: (a, ids) => call('checkGrounding', a, ids),
    getChunk: (id) => call('getChunk', id),
    outline: () => call('outline'),
    keywordSearch: (t, l) => call('keywordSearch', t, l),
    retrievalModels: () => call('retrievalModels'),
    // the callback stays here; the worker sends progress messages tagged with the request id
    useRetrievalModel: (id, onProgress) => callWithProgress('useRetrievalModel', onProgress, id),
    dispose: () => worker.terminate(),
  };
}

/** The app's runtime: the worker bundled by Vite. */
export function createWorkerRuntime(): SkyCiteRuntime {
  const worker = new Worker(new URL('./runtime.worker.ts', import.meta.url), { type: 'module', name: 'skycite-runtime' });
  return createRuntimeClient(worker);
}
