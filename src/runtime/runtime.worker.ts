/// <reference lib="webworker" />
/**
 * The retrieval + embedding Web Worker: hosts the in-process runtime and
 * answers RuntimeRequest messages. Errors travel as {name, message}.
 */
import { createInProcessRuntime } from './in-process.js';
import { PROGRESS_METHODS, type DownloadProgress, type RuntimeReply, type RuntimeRequest } from './types.js';
import type { UserDocumentProgress } from './user-documents.js';
import { loadVoyInBrowser } from './voy-browser.js';

// the client sends absolute URLs (resolved against the page); voy's wasm is one of the app's assets
const runtime = createInProcessRuntime({ baseUrl: self.location.href, loadVoy: () => loadVoyInBrowser() });

self.onmessage = async (ev: MessageEvent<RuntimeRequest>) => {
  const { id, method, args } = ev.data;
  let reply: RuntimeReply;
  try {
    const fn = runtime[method] as (...a: unknown[]) => Promise<unknown>;
    const progress = (p: UserDocumentProgress | DownloadProgress) => (self as unknown as Worker).postMessage({ id, progress: p } satisfies RuntimeReply);
    reply = { id, ok: true, value: await fn(...(PROGRESS_METHODS.has(method) ? [...args, progress] : args)) };
  } catch (e) {
    const err = e as Error;
    reply = { id, ok: false, error: { name: err.name ?? 'Error', message: err.message ?? String(e) } };
  }
  (self as unknown as Worker).postMessage(reply);
};
