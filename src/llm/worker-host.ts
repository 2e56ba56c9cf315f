/**
 * The LLM worker's message handler, with the engine injected: llm.worker.ts passes
 * web-llm's MLCEngine; tests pass a stand-in and connect it to the client through a
 * message channel. One engine, one model at a time; requests are handled in order of
 * arrival except `interrupt` and `stream-return`, which act at once. A failure is mapped to
 * its typed AnswerError here, where web-llm threw it (mapEngineError), and crosses as that class.
 */
import type { AppConfig, InitProgressReport } from '@mlc-ai/web-llm';
import { encodeError, type WireError } from '../core/errors.js';
import type { ChatCompletionChunkLike, StreamingChatRequest } from '../core/llm/engine.js';
import { mapEngineError } from '../core/llm/errors.js';
import type { LlmReply, LlmRequest } from './protocol.js';

/** A failure of the engine (or of the worker around it), as it crosses to the app: its typed AnswerError. */
export const engineFailure = (e: unknown): WireError => encodeError(mapEngineError(e));

/** The parts of web-llm's MLCEngine the worker uses. */
export interface HostedEngine {
  setAppConfig(appConfig: AppConfig): void;
  setInitProgressCallback(cb: (report: InitProgressReport) => void): void;
  reload(modelId: string): Promise<void>;
  unload(): Promise<void>;
  interruptGenerate(): void | Promise<void>;
  chat: { completions: { create(request: StreamingChatRequest): Promise<AsyncIterable<ChatCompletionChunkLike>> } };
}

export function createWorkerHost(engine: HostedEngine, post: (reply: LlmReply) => void): (request: LlmRequest) => Promise<void> {
  const open = new Map<number, AsyncIterator<ChatCompletionChunkLike>>();
  let queue: Promise<void> = Promise.resolve();

  async function load(id: number, modelId: string, appConfig: AppConfig): Promise<void> {
    engine.setAppConfig(appConfig);
    engine.setInitProgressCallback((r) => post({ id, type: 'progress', progress: r.progress, text: r.text }));
    await engine.reload(modelId);
  }

  async function chat(id: number, request: StreamingChatRequest): Promise<void> {
    const stream = await engine.chat.completions.create({ ...request, stream: true });
    const it = stream[Symbol.asyncIterator]();
    open.set(id, it);
    try {
      for (;;) {
        const r = await it.next();
        if (r.done || !open.has(id)) break;
        // plain data only: the chunk object crosses postMessage
        post({ id, type: 'chunk', chunk: JSON.parse(JSON.stringify(r.value)) as ChatCompletionChunkLike });
      }
    } finally {
      open.delete(id);
    }
  }

  return async (msg) => {
    if (msg.type === 'interrupt') {
      await Promise.resolve(engine.interruptGenerate()).catch(() => undefined);
      return;
    }
    if (msg.type === 'stream-return') {
      const it = open.get(msg.id);
      open.delete(msg.id);
      await Promise.resolve(it?.return?.()).catch(() => undefined);
      return;
    }
    const run = async () => {
      try {
        if (msg.type === 'load') {
          await load(msg.id, msg.modelId, msg.appConfig);
          post({ id: msg.id, type: 'ok' });
        } else if (msg.type === 'unload') {
          await engine.unload();
          post({ id: msg.id, type: 'ok' });
        } else {
          await chat(msg.id, msg.request);
          post({ id: msg.id, type: 'end' });
        }
      } catch (e) {
        post({ id: msg.id, type: 'error', error: engineFailure(e) });
      }
    };
    // one request at a time (web-llm's engine is not re-entrant); a stream ends before the next starts
    queue = queue.then(run, run);
    await queue;
  };
}
