/**
 * One streamed completion and its stop, in one place: the answer (answer/generation.ts) and every
 * other model call (complete.ts) read the engine's stream through `streamChat`. A stop (the signal
 * aborts) interrupts the engine and closes the stream's iterator at once — the LLM worker's client
 * turns `return()` into 'stream-return', which frees the engine's lock — and is not an error: the
 * chunks read so far stand. A failure before or during the stream throws the engine's error as it
 * came (callers map it: errors.ts `mapEngineError`), unless the signal aborted meanwhile.
 */
import type { ChatCompletionChunkLike, ChatEngine, StreamingChatRequest } from './engine.js';

const ABORTED = Symbol('aborted');

/** Resolves with ABORTED when the signal aborts (never, without a signal). */
function abortPromise(signal: AbortSignal | undefined): { promise: Promise<typeof ABORTED>; dispose: () => void } {
  if (!signal) return { promise: new Promise(() => {}), dispose: () => {} };
  let onAbort = (): void => {};
  const promise = new Promise<typeof ABORTED>((resolve) => {
    onAbort = () => resolve(ABORTED);
    if (signal.aborted) resolve(ABORTED);
    else signal.addEventListener('abort', onAbort, { once: true });
  });
  return { promise, dispose: () => signal.removeEventListener('abort', onAbort) };
}

/** How a stream ended: `stopped` when the signal stopped it (before its end). */
export interface StreamEnd {
  stopped: boolean;
}

/** Stream one completion, passing each chunk to `onChunk`, until it ends, the signal stops it, or it fails (throws). */
export async function streamChat(
  engine: ChatEngine,
  request: StreamingChatRequest,
  signal: AbortSignal | undefined,
  onChunk: (chunk: ChatCompletionChunkLike) => void,
): Promise<StreamEnd> {
  const abort = abortPromise(signal);
  const stop = (): StreamEnd => {
    try {
      engine.interruptGenerate();
    } catch {
      // the stream is being abandoned anyway
    }
    return { stopped: true };
  };
  try {
    const created = engine.chat.completions.create(request);
    created.catch(() => {}); // a rejection after a stop is not an error
    const stream = await Promise.race([created, abort.promise]);
    if (stream === ABORTED) return stop();
    const it = stream[Symbol.asyncIterator]();
    for (;;) {
      const next = it.next();
      next.catch(() => {});
      const r = await Promise.race([next, abort.promise]);
      if (r === ABORTED) {
        void Promise.resolve(it.return?.()).catch(() => {});
        return stop();
      }
      if (r.done) return { stopped: false };
      onChunk(r.value);
    }
  } finally {
    abort.dispose();
  }
}
