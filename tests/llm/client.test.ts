/**
 * The one engine interface over the LLM worker: the client (src/llm/client.ts) and the
 * worker's handler (src/llm/worker-host.ts) connected by an asynchronous message pair,
 * with a stand-in for web-llm's MLCEngine (the real one needs WebGPU: tests/e2e). The
 * answer stage's own tests (tests/answer) run against the same ChatEngine interface.
 */
import type { AppConfig, InitProgressReport } from '@mlc-ai/web-llm';
import { describe, expect, it, vi } from 'vitest';
import { completeText } from '../../src/core/llm/complete.js';
import { AnswerError, GpuMemoryError, WorkerCrashedError } from '../../src/core/llm/errors.js';
import { answerConfig } from '../../src/core/answer/config.js';
import { answerQuestion } from '../../src/core/answer/generation.js';
import { type ChatCompletionChunkLike, type StreamingChatRequest } from '../../src/core/llm/engine.js';
import { createLlmClient, type WorkerLike } from '../../src/llm/client.js';
import type { LlmReply, LlmRequest } from '../../src/llm/protocol.js';
import { createWorkerHost, type HostedEngine } from '../../src/llm/worker-host.js';
import { makeChunk, retrievalOf } from '../answer/helpers.js';

const APP_CONFIG = { model_list: [], useIndexedDBCache: false } as unknown as AppConfig;

/** A stand-in for MLCEngine: streams `tokens` one by one; `hang` waits for interruptGenerate(). */
function fakeEngine(opts: { tokens?: string[]; reloadError?: Error; hang?: boolean } = {}) {
  let progress: ((r: InitProgressReport) => void) | null = null;
  let interrupted: (() => void) | null = null;
  const e = {
    loaded: null as string | null,
    requests: [] as StreamingChatRequest[],
    interrupts: 0,
    setAppConfig(_c: AppConfig) {},
    setInitProgressCallback(cb: (r: InitProgressReport) => void) {
      progress = cb;
    },
    async reload(id: string) {
      progress?.({ progress: 0.5, timeElapsed: 1, text: 'Fetching param cache[1/2]' });
      if (opts.reloadError) throw opts.reloadError;
      progress?.({ progress: 1, timeElapsed: 2, text: 'Finish loading on WebGPU' });
      e.loaded = id;
    },
    async unload() {
      e.loaded = null;
    },
    interruptGenerate() {
      e.interrupts++;
      interrupted?.();
    },
    chat: {
      completions: {
        async create(request: StreamingChatRequest): Promise<AsyncIterable<ChatCompletionChunkLike>> {
          e.requests.push(request);
          if (!e.loaded) throw new Error('ModelNotLoadedError: Model not loaded before trying to complete ChatCompletionRequest.');
          const tokens = opts.tokens ?? ['Hello', ' world'];
          async function* gen(): AsyncGenerator<ChatCompletionChunkLike> {
            let stopped = false;
            for (const t of tokens) {
              if (stopped) break;
              yield { choices: [{ delta: { content: t }, finish_reason: null }] };
              if (opts.hang) await new Promise<void>((r) => (interrupted = () => ((stopped = true), r())));
            }
            yield { choices: [{ delta: {}, finish_reason: stopped ? 'abort' : 'stop' }], usage: { prompt_tokens: 3, completion_tokens: tokens.length } };
          }
          return gen();
        },
      },
    },
  };
  return e;
}

/** Client and host connected like a Worker: messages are delivered asynchronously, structured-cloned. */
function connect(engine: HostedEngine) {
  const toClient: ((ev: { data: LlmReply }) => void)[] = [];
  const errorListeners: ((ev: { message?: string }) => void)[] = [];
  const sent: LlmRequest[] = [];
  let terminated = false;
  const host = createWorkerHost(engine, (reply) => {
    if (terminated) return;
    const data = structuredClone(reply);
    setTimeout(() => toClient.forEach((l) => l({ data })), 0);
  });
  const worker: WorkerLike = {
    postMessage(m) {
      sent.push(m);
      const data = structuredClone(m);
      setTimeout(() => void host(data), 0);
    },
    addEventListener(type: string, cb: (ev: never) => void) {
      if (type === 'message') toClient.push(cb as never);
      else errorListeners.push(cb as never);
    },
    terminate() {
      terminated = true;
    },
  };
  return { worker, sent, crash: (message: string) => errorListeners.forEach((l) => l({ message })) };
}

const request = (content = 'hi'): StreamingChatRequest => ({
  messages: [{ role: 'user', content }],
  stream: true,
  stream_options: { include_usage: true },
  temperature: 0,
  top_p: 1,
  max_tokens: 8,
  presence_penalty: 0,
  frequency_penalty: 0,
});

describe('LLM worker client', () => {
  it('loads with progress, then streams a completion chunk by chunk with usage', async () => {
    const engine = fakeEngine();
    const client = createLlmClient(connect(engine).worker);
    const progress: number[] = [];
    await client.load('Tiny-q4f32_1', APP_CONFIG, (p) => progress.push(p.progress));
    expect(progress).toEqual([0.5, 1]);
    expect(engine.loaded).toBe('Tiny-q4f32_1');
    const chunks: ChatCompletionChunkLike[] = [];
    for await (const c of await client.chat.completions.create(request())) chunks.push(c);
    expect(chunks.map((c) => c.choices[0]?.delta.content ?? '').join('')).toBe('Hello world');
    expect(chunks.at(-1)?.usage?.completion_tokens).toBe(2);
  });

  it('runs the answer stage as is (the one engine interface): citations filtered to the context', async () => {
    const engine = fakeEngine({ tokens: ['Answer: Pilots need training [doc/a]', ' and [doc/zzz].'] });
    const client = createLlmClient(connect(engine).worker);
    await client.load('Tiny-q4f32_1', APP_CONFIG);
    const chunk = makeChunk('doc/a', 'Training', 'Remote pilots shall complete training.');
    // the free-form answer path: the fake engine writes prose with markers
    const r = await answerQuestion({ question: 'Training?', retrieval: retrievalOf([chunk]), engine: client, config: answerConfig({ answerForm: 'free' }) });
    expect(r.status).toBe('complete');
    expect(r.citations).toEqual(['doc/a']);
    expect(r.removedCitations.map((x) => x.id)).toEqual(['doc/zzz']);
  });

  it('a stop request interrupts the engine in the worker and keeps the partial text', async () => {
    const engine = fakeEngine({ tokens: ['one', ' two', ' three'], hang: true });
    const client = createLlmClient(connect(engine).worker);
    await client.load('Tiny-q4f32_1', APP_CONFIG);
    const ctrl = new AbortController();
    const pending = completeText(client, { messages: request().messages, temperature: 0, top_p: 1, max_tokens: 8, signal: ctrl.signal });
    await new Promise((r) => setTimeout(r, 20));
    ctrl.abort();
    const r = await pending;
    expect(r.aborted).toBe(true);
    expect(r.text).toBe('one');
    // the stop returns at once (core/llm/stream.ts); the interrupt reaches the worker's engine right after
    await vi.waitFor(() => expect(engine.interrupts).toBe(1));
  });

  it('engine failures arrive as typed errors with what to do (mapEngineError)', async () => {
    const engine = fakeEngine({ reloadError: Object.assign(new Error('The WebGPU device was lost while loading'), { name: 'DeviceLostError' }) });
    const client = createLlmClient(connect(engine).worker);
    const err = await client.load('Tiny-q4f32_1', APP_CONFIG).catch((e: unknown) => e);
    expect(err).toBeInstanceOf(GpuMemoryError);
    const notLoaded = await client.chat.completions.create(request()).catch((e: unknown) => e);
    expect(notLoaded).toBeInstanceOf(AnswerError);
    expect((notLoaded as AnswerError).code).toBe('model-not-loaded');
  });

  it('a crashed worker rejects what is pending with WorkerCrashedError, tells the app, and refuses new requests', async () => {
    const engine = fakeEngine({ tokens: ['a', 'b'], hang: true });
    const { worker, crash } = connect(engine);
    const client = createLlmClient(worker);
    await client.load('Tiny-q4f32_1', APP_CONFIG);
    const crashes: AnswerError[] = [];
    client.onCrash((e) => crashes.push(e));
    const stream = await client.chat.completions.create(request());
    const it = stream[Symbol.asyncIterator]();
    await it.next();
    crash('Out of memory');
    await expect(it.next()).rejects.toBeInstanceOf(WorkerCrashedError);
    expect(crashes).toHaveLength(1);
    expect(crashes[0]!.message).toMatch(/evidence-only mode/);
    expect(client.crashed).toBeInstanceOf(WorkerCrashedError);
    await expect(client.chat.completions.create(request())).rejects.toBeInstanceOf(WorkerCrashedError);
  });

  it('requests run one at a time in the worker: a second completion starts after the first ends', async () => {
    const engine = fakeEngine({ tokens: ['x'] });
    const client = createLlmClient(connect(engine).worker);
    await client.load('Tiny-q4f32_1', APP_CONFIG);
    const [a, b] = await Promise.all([
      completeText(client, { messages: request('first').messages, temperature: 0, top_p: 1, max_tokens: 4 }),
      completeText(client, { messages: request('second').messages, temperature: 0, top_p: 1, max_tokens: 4 }),
    ]);
    expect([a.text, b.text]).toEqual(['x', 'x']);
    expect(engine.requests.map((r) => r.messages[0]!.content)).toEqual(['first', 'second']);
  });
});
