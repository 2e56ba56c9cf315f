/**
 * The runtime worker's side of the protocol: one RuntimeRequest in, its progress messages and its
 * reply out (an error as a WireError, core/errors.ts: its class, code, message and fields, rebuilt
 * as the same class by the client). runtime.worker.ts wires it to `self`; tests wire it to a
 * client over a message channel stand-in. Each request is served as it arrives: a question or a
 * Cancel is handled while an import waits between two batches (user-documents.ts ImportScheduler).
 */
import { PROGRESS_METHODS, type DownloadProgress, type RuntimeReply, type RuntimeRequest, type SkyCiteRuntime } from './types.js';
import type { UserDocumentProgress } from './user-documents.js';
import { encodeError } from '../core/errors.js';

export function serveRuntime(runtime: SkyCiteRuntime, post: (reply: RuntimeReply) => void): (request: RuntimeRequest) => Promise<void> {
  return async ({ id, method, args }) => {
    let reply: RuntimeReply;
    try {
      const fn = runtime[method] as (...a: unknown[]) => Promise<unknown>;
      const progress = (p: UserDocumentProgress | DownloadProgress) => post({ id, progress: p });
      reply = { id, ok: true, value: await fn(...(PROGRESS_METHODS.has(method) ? [...args, progress] : args)) };
    } catch (e) {
      // its class, code and fields (where the problem is, an HTTP status …) travel as data, not in the message
      reply = { id, ok: false, error: encodeError(e) };
    }
    post(reply);
  };
}
