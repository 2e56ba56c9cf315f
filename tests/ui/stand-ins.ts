/**
 * Stand-ins for the application state the Ask session and the Assess model run on: the fake
 * runtime (real evidence-only composer, context assembler and grounding check), the real audit
 * store over fake-indexeddb, and a language model made of the WebLLM engine double (answers)
 * and a scripted generate() (router classifier, indicator runs).
 */
import 'fake-indexeddb/auto';
import type { ChatMessage, GenerateParams, GenerateResult } from '../../src/llm/engine';
import { createAuditStore, type AuditStore } from '../../src/storage/audit-store';
import { DEFAULT_SETTINGS, type Settings } from '../../src/storage/settings-store';
import type { AskApp, AskChat } from '../../src/ui/ask/session.svelte';
import { engineDouble, type EngineScript } from '../answer/helpers';
import { createFakeRuntime, MANIFEST, type FakeRuntime } from './fake-runtime';

/** The id of a curated WebLLM model (src/llm/models.ts), as Settings would have loaded it. */
export const LOADED_MODEL = 'Qwen2.5-1.5B-Instruct-q4f16_1-MLC';

export interface ChatStandIn extends AskChat {
  readonly double: ReturnType<typeof engineDouble>;
  /** Every generate() call (router classifier, indicator runs). */
  readonly generateCalls: { messages: ChatMessage[]; params: GenerateParams | undefined }[];
}

/** `replies` answers generate() calls in order (the last repeats); an Error is thrown. */
export function chatStandIn(script: EngineScript = {}, replies: (string | Error)[] = ['{"path": "rules", "confidence": 0.9, "reasoning": "text question"}']): ChatStandIn {
  const double = engineDouble(script);
  const generateCalls: ChatStandIn['generateCalls'] = [];
  return {
    double,
    engine: double,
    generateCalls,
    async generate(messages, params): Promise<GenerateResult> {
      generateCalls.push({ messages, params });
      const r = replies[Math.min(generateCalls.length - 1, replies.length - 1)]!;
      if (r instanceof Error) throw r;
      return { text: r, finishReason: 'stop', aborted: false, usage: null };
    },
  };
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
