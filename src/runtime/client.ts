/**
 * The UI side of the runtime worker: the same SkyCiteRuntime interface as the
 * in-process runtime, over postMessage. An error thrown in the worker is rebuilt here
 * as its own class (error-classes.ts), with its code and fields.
 */
import { decodeError } from '../core/errors.js';
import { RUNTIME_ERROR_CLASSES } from './error-classes.js';
import { RuntimeWorkerError } from './errors.js';
import { DEFAULT_RUNTIME_OPTIONS } from './defaults.js';
import type { DownloadProgress, RuntimeMethod, RuntimeReply, RuntimeRequest, SkyCiteRuntime } from './types.js';
import type { UserDocumentProgress } from './user-documents.js';

export function createRuntimeClient(worker: Worker): SkyCiteRuntime {
  let next = 1;
  const pending = new Map<number, { resolve: (v: unknown) => void; reject: (e: Error) => void; onProgress?: ((p: never) => void) | undefined }>();
  worker.onmessage = (ev: MessageEvent<RuntimeReply>) => {
    const msg = ev.data;
    const p = pending.get(msg.id);
    if (!p) return;
    if ('progress' in ev.data) {
      // the request's own kind of progress (a user document's indexing or a model download)
      (p.onProgress as ((x: unknown) => void) | undefined)?.(ev.data.progress);
      return;
    }
    pending.delete(ev.data.id);
    if (ev.data.ok) p.resolve(ev.data.value);
    else p.reject(decodeError(ev.data.error, RUNTIME_ERROR_CLASSES));
  };
  worker.onerror = (ev) => {
    const err = new RuntimeWorkerError(ev.message);
    for (const p of pending.values()) p.reject(err);
    pending.clear();
  };
  const send = <T>(method: RuntimeMethod, args: unknown[], onProgress?: ((p: UserDocumentProgress) => void) | ((p: DownloadProgress) => void)): Promise<T> =>
    new Promise<T>((resolve, reject) => {
      const id = next++;
      pending.set(id, { resolve: resolve as (v: unknown) => void, reject, onProgress });
      worker.postMessage({ id, method, args } satisfies RuntimeRequest);
    });
  const call = <T>(method: RuntimeMethod, ...args: unknown[]): Promise<T> => send<T>(method, args);
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
        appBaseUrl: new URL(o.appBaseUrl ?? d.appBaseUrl, base).href,
      });
    },
    retrieve: (q, o) => call('retrieve', q, o),
    coverage: (q, r) => call('coverage', q, r),
    evidenceOnly: (q, r) => call('evidenceOnly', q, r),
    draftRequirements: (d, o) => call('draftRequirements', d, o),
    checkGrounding: (a, ids) => call('checkGrounding', a, ids),
    getChunk: (id) => call('getChunk', id),
    outline: () => call('outline'),
    keywordSearch: (t, l) => call('keywordSearch', t, l),
    // the progress callback stays here; the worker posts progress messages with the request's id (PROGRESS_METHODS)
    loadUserDocuments: (onProgress) => send('loadUserDocuments', [], onProgress),
    listUserDocuments: () => call('listUserDocuments'),
    syncUserDocuments: (onProgress) => send('syncUserDocuments', [], onProgress),
    addUserDocument: (input, onProgress) => send('addUserDocument', [input], onProgress),
    removeUserDocument: (id) => call('removeUserDocument', id),
    reindexUserDocument: (id, onProgress) => send('reindexUserDocument', [id], onProgress),
    exportUserDocument: (id) => call('exportUserDocument', id),
    // handled by the worker between two batches of the import it cancels
    cancelUserDocumentImport: () => call('cancelUserDocumentImport'),
    retrievalModels: () => call('retrievalModels'),
    useRetrievalModel: (id, onProgress) => send('useRetrievalModel', [id], onProgress),
    dispose: () => worker.terminate(),
  };
}

/** The app's runtime: the worker bundled by Vite. */
export function createWorkerRuntime(): SkyCiteRuntime {
  const worker = new Worker(new URL('./runtime.worker.ts', import.meta.url), { type: 'module', name: 'skycite-runtime' });
  return createRuntimeClient(worker);
}
