/**
 * Stand-ins for the application state the Ask session and the Assess model run on: the fake
 * runtime (real evidence-only composer, context assembler and grounding check), the real audit
 * store over fake-indexeddb, and a language model behind the one engine interface (ChatEngine):
 * answer requests go to the WebLLM engine double, and the structured completions (requests with
 * a JSON schema in `response_format`: router classifier, model-assisted retrieval, indicator
 * runs) are answered from a script.
 */
import 'fake-indexeddb/auto';
import type { ChatMessage } from '../../src/core/llm/engine';
import type { ChatCompletionChunkLike, ChatEngine, StreamingChatRequest } from '../../src/core/llm/engine';
import { createAuditStore, type AuditStore } from '../../src/storage/audit-store';
import { DEFAULT_SETTINGS, type Settings } from '../../src/storage/settings-store';
import type { AskApp, AskChat } from '../../src/ui/ask/session.svelte';
import { engineDouble, type EngineScript } from '../answer/helpers';
import { createFakeRuntime, MANIFEST, type FakeRuntime } from './fake-runtime';

/** The id of a curated WebLLM model (src/llm/models.ts), as Settings would have loaded it. */
export const LOADED_MODEL = 'Qwen2.5-1.5B-Instruct-q4f16_1-MLC';

/** A scripted reply to a structured completion: text, an error thrown, or 'hang' (until interruptGenerate). */
export type StructuredReply = string | Error | 'hang' | ((request: StreamingChatRequest) => string);

export interface StructuredCall {
  messages: ChatMessage[];
  params: { temperature: number; top_p: number; max_tokens: number };
  /** The JSON schema the reply was constrained to. */
  schema: unknown;
}

export interface ChatStandIn extends AskChat {
  readonly engine: ChatEngine;
  readonly double: ReturnType<typeof engineDouble>;
  /** Every structured completion (router classifier, model-assisted retrieval, indicator runs). */
  readonly structuredCalls: StructuredCall[];
  /** The replies, in order (the last repeats). */
  replies: StructuredReply[];
}

/** `replies` answer the structured completions in order (the last repeats). */
export function chatStandIn(
  script: EngineScript = {},
  replies: StructuredReply[] = ['{"path": "rules", "confidence": 0.9, "reasoning": "text question"}'],
): ChatStandIn {
  const double = engineDouble(script);
  const structuredCalls: StructuredCall[] = [];
  let interrupted: (() => void) | null = null;
  const stand: ChatStandIn = {
    double,
    structuredCalls,
    replies,
    engine: {
      interruptGenerate() {
        interrupted?.();
        double.interruptGenerate();
      },
      chat: {
        completions: {
          async create(request) {
            if (!request.response_format) return double.chat.completions.create(request);
            structuredCalls.push({
              messages: request.messages.map((m) => ({ role: m.role, content: m.content })),
              params: { temperature: request.temperature, top_p: request.top_p, max_tokens: request.max_tokens },
              schema: request.response_format.schema ? JSON.parse(request.response_format.schema) : null,
            });
            const r = stand.replies[Math.min(structuredCalls.length - 1, stand.replies.length - 1)]!;
            if (r instanceof Error) throw r;
            const reply = r;
            async function* gen(): AsyncGenerator<ChatCompletionChunkLike> {
              if (reply === 'hang') {
                await new Promise<void>((res) => (interrupted = res));
                yield { choices: [{ delta: {}, finish_reason: 'abort' }] };
                return;
              }
              yield { choices: [{ delta: { content: typeof reply === 'function' ? reply(request) : reply }, finish_reason: 'stop' }] };
            }
            return gen();
          },
        },
      },
    },
  };
  return stand;
}

let dbCount = 0;

export interface AppStandIn extends AskApp {
  readonly runtime: FakeRuntime;
  readonly audit: AuditStore;
  settings: Settings;
  generative: boolean;
  llm: { loadedId: string | null };
  chat: ChatStandIn | null;
}

/** Evidence-only unless a chat stand-in is given (then generative, with LOADED_MODEL loaded). */
export function appStandIn(options: { chat?: ChatStandIn; settings?: Partial<Settings>; audit?: AuditStore; runtime?: FakeRuntime } = {}): AppStandIn {
  const app: AppStandIn = {
    runtime: options.runtime ?? createFakeRuntime(),
    audit: options.audit ?? createAuditStore({ dbName: `stand-in-${++dbCount}-${Date.now()}` }),
    manifestSha: 'f'.repeat(64),
    settings: { ...DEFAULT_SETTINGS, ...options.settings },
    generative: Boolean(options.chat) && !options.settings?.evidenceOnly,
    llm: { loadedId: options.chat ? LOADED_MODEL : null },
    status: { manifest: MANIFEST },
    chat: options.chat ?? null,
    chatEngine() {
      return app.chat;
    },
  };
  return app;
}
