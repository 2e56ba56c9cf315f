/**
 * Messages between the app and the LLM worker (src/llm/llm.worker.ts). The worker is the
 * only place web-llm's code runs; the app talks to it through client.ts, which gives the
 * answer stage the one engine interface (ChatEngine). A failure crosses as a WireError
 * (core/errors.ts): the worker maps web-llm's failure to its typed AnswerError first
 * (worker-host.ts), the client rebuilds that class (MODEL_ERROR_CLASSES).
 */
import type { AppConfig } from '@mlc-ai/web-llm';
import type { WireError } from '../core/errors.js';
import type { ChatCompletionChunkLike, StreamingChatRequest } from '../core/llm/engine.js';

export type LlmRequest =
  | { id: number; type: 'load'; modelId: string; appConfig: AppConfig }
  | { id: number; type: 'chat'; request: StreamingChatRequest }
  /** The consumer stopped reading stream `id`: close the engine's generator (frees its lock). */
  | { id: number; type: 'stream-return' }
  | { id: number; type: 'unload' }
  | { type: 'interrupt' };

export type LlmReply =
  | { id: number; type: 'progress'; progress: number; text: string }
  | { id: number; type: 'ok' }
  | { id: number; type: 'chunk'; chunk: ChatCompletionChunkLike }
  | { id: number; type: 'end' }
  | { id: number; type: 'error'; error: WireError }
  /** Something failed outside any request (an unhandled rejection): the worker is not trustworthy any more. */
  | { type: 'fatal'; error: WireError };
