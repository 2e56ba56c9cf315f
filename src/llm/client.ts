/**
 * The app's side of the LLM worker: the answer stage's ChatEngine (streaming chat
 * completions, interruptGenerate) plus load / unload, over postMessage. web-llm's code
 * is never imported here — it runs only in the worker (llm.worker.ts), so the app's
 * bundle carries it once, and only the worker's script (fetched when the user loads a
 * model) contains it.
 *
 * Failures arrive as typed errors: the worker maps them (worker-host.ts, mapEngineError) and
 * they are rebuilt here as their own AnswerError class. When the worker dies — an uncaught
 * error, a failed module load, or the browser ending it — every pending request is
 * rejected with WorkerCrashedError, `crashed` is set and `onCrash` listeners are told,
 * so the app can fall back to evidence-only mode.
 */
import type { AppConfig } from '@mlc-ai/web-llm';
import { decodeError, type WireError } from '../core/errors.js';
import { MODEL_ERROR_CLASSES, WorkerCrashedError, type AnswerError } from '../core/llm/errors.js';
import type { ChatCompletionChunkLike, ChatEngine, StreamingChatRequest } from '../core/llm/engine.js';
import type { LlmReply, LlmRequest } from './protocol.js';

export interface WorkerLike {
  postMessage(message: LlmRequest): void;
  addEventListener(type: 'message', cb: (ev: { data: LlmReply }) => void): void;
  addEventListener(type: 'error' | 'messageerror', cb: (ev: { message?: string }) => void): void;
  terminate(): void;
}

export interface LoadProgress {
  /** 0–1. */
  progress: number;
  text: string;
}

export interface LlmClient extends ChatEngine {
  load(modelId: string, appConfig: AppConfig, onProgress?: (p: LoadProgress) => void): Promise<void>;
  unload(): Promise<void>;
  /** Terminate the worker (pending requests are rejected). */
  dispose(): void;
  /** Set once the worker has died. */
  readonly crashed: AnswerError | null;
  onCrash(listener: (error: AnswerError) => void): void;
}

interface Pending {
  kind: 'call' | 'stream';
  resolve: () => void;
  reject: (e: unknown) => void;
  onProgress?: (p: LoadProgress) => void;
  push?: (c: ChatCompletionChunkLike) => void;
  end?: () => void;
}

/** The worker's failure, as the class it was thrown as (worker-host.ts maps every failure to an AnswerError). */
const errorFrom = (e: WireError): Error => decodeError(e, MODEL_ERROR_CLASSES);

export function createLlmClient(worker: WorkerLike): LlmClient {
  let next = 1;
  let crashed: AnswerError | null = null;
  let disposed = false;
  const pending = new Map<number, Pending>();
  const listeners: ((e: AnswerError) => void)[] = [];

  const crash = (detail: string) => {
    if (crashed || disposed) return;
    crashed = new WorkerCrashedError(detail);
    for (const p of pending.values()) p.reject(crashed);
    pending.clear();
    for (const l of listeners) l(crashed);
  };

  worker.addEventListener('message', (ev) => {
    const msg = ev.data;
    if (msg.type === 'fatal') {
      const e = errorFrom(msg.error);
      crash(`${e.name}: ${e.message}`);
      return;
    }
    const p = pending.get(msg.id);
    if (!p) return;
    switch (msg.type) {
      case 'progress':
        p.onProgress?.({ progress: msg.progress, text: msg.text });
        break;
      case 'chunk':
        p.push?.(msg.chunk);
        break;
      case 'ok':
      case 'end':
        pending.delete(msg.id);
        if (p.kind === 'stream') p.end?.();
        p.resolve();
        break;
      case 'error':
        pending.delete(msg.id);
        p.reject(errorFrom(msg.error));
        break;
    }
  });
  worker.addEventListener('error', (ev) => crash(ev?.message || 'the worker reported an uncaught error'));
  worker.addEventListener('messageerror', () => crash('a message from the worker could not be read'));

  const ensureAlive = () => {
    if (crashed) throw crashed;
    if (disposed) throw new WorkerCrashedError('the language model was shut down');
  };

  type Call = { type: 'load'; modelId: string; appConfig: AppConfig } | { type: 'unload' };
  const call = (msg: Call, onProgress?: (p: LoadProgress) => void): Promise<void> =>
    new Promise<void>((resolve, reject) => {
      ensureAlive();
      const id = next++;
      pending.set(id, { kind: 'call', resolve, reject, ...(onProgress ? { onProgress } : {}) });
      worker.postMessage({ ...msg, id } as LlmRequest);
    });

  function stream(request: StreamingChatRequest): AsyncIterable<ChatCompletionChunkLike> & { started: Promise<void> } {
    ensureAlive();
    const id = next++;
    const buffer: ChatCompletionChunkLike[] = [];
    let wake: (() => void) | null = null;
    let finished = false;
    let failure: unknown = null;
    let returned = false;
    const notify = () => {
      const w = wake;
      wake = null;
      w?.();
    };
    let firstSettled: (() => void) | null = null;
    let firstFailed: ((e: unknown) => void) | null = null;
    const started = new Promise<void>((res, rej) => {
      firstSettled = res;
      firstFailed = rej;
    });
    pending.set(id, {
      kind: 'stream',
      resolve: () => {
        finished = true;
        firstSettled?.();
        notify();
      },
      reject: (e) => {
        failure = e;
        finished = true;
        firstFailed?.(e);
        notify();
      },
      push: (c) => {
        buffer.push(c);
        firstSettled?.();
        notify();
      },
      end: () => undefined,
    });
    worker.postMessage({ id, type: 'chat', request });
    const iterator: AsyncIterator<ChatCompletionChunkLike> = {
      async next() {
        for (;;) {
          if (buffer.length) return { value: buffer.shift()!, done: false };
          if (failure) throw failure;
          if (finished || returned) return { value: undefined, done: true };
          await new Promise<void>((r) => (wake = r));
        }
      },
      async return() {
        if (!finished && !returned) {
          returned = true;
          pending.delete(id);
          if (!crashed && !disposed) worker.postMessage({ id, type: 'stream-return' });
        }
        notify();
        return { value: undefined, done: true };
      },
    };
    return { [Symbol.asyncIterator]: () => iterator, started };
  }

  return {
    chat: {
      completions: {
        async create(request) {
          const s = stream(request);
          // like web-llm: create() rejects when the request fails before the first chunk
          await s.started;
          return s;
        },
      },
    },
    interruptGenerate() {
      if (!crashed && !disposed) worker.postMessage({ type: 'interrupt' });
    },
    load: (modelId, appConfig, onProgress) => call({ type: 'load', modelId, appConfig }, onProgress),
    unload: () => call({ type: 'unload' }),
    dispose() {
      if (disposed) return;
      disposed = true;
      const err = new WorkerCrashedError('the language model was shut down');
      for (const p of pending.values()) p.reject(err);
      pending.clear();
      worker.terminate();
    },
    get crashed() {
      return crashed;
    },
    onCrash(l) {
      listeners.push(l);
    },
  };
}

/** The app's LLM worker; Vite bundles it (and web-llm, inside it) from this exact expression. */
export function startLlmWorker(): Worker {
  return new Worker(new URL('./llm.worker.ts', import.meta.url), { type: 'module', name: 'skycite-llm' });
}
