/**
 * The runtime worker's side of the protocol: one RuntimeRequest in, its progress messages and its
 * reply out (errors as {name, message}). runtime.worker.ts wires it to `self`; tests wire it to a
 * client over a message channel stand-in. Each request is served as it arrives: a question or a
 * Cancel is handled while an import waits between two batches (user-documents.ts ImportScheduler).
 */
import { PROGRESS_METHODS, type DownloadProgress, type RuntimeReply, type RuntimeRequest, type SkyCiteRuntime } from './types.js';
import type { UserDocumentProgress } from './user-documents.js';
import { problemSource } from './errors.js';

export function serveRuntime(runtime: SkyCiteRuntime, post: (reply: RuntimeReply) => void): (request: RuntimeRequest) => Promise<void> {
  return async ({ id, method, args }) => {
    let reply: RuntimeReply;
    try {
      const fn = runtime[method] as (...a: unknown[]) => Promise<unknown>;
      const progress = (p: UserDocumentProgress | DownloadProgress) => post({ id, progress: p });
      reply = { id, ok: true, value: await fn(...(PROGRESS_METHODS.has(method) ? [...args, progress] : args)) };
    } catch (e) {
      const err = e as Error;
      // where the problem is (the host's file or this device's copy) travels as data, not in the message
      reply = { id, ok: false, error: { name: err.name ?? 'Error', message: err.message ?? String(e), source: problemSource(e) } };
    }
    post(reply);
  };
}
