/**
 * ChatEngine is the subset of WebLLM's MLCEngineInterface the answer stage uses. Checked twice:
 * by tsc (`npm run typecheck`, run by CI) and at run time, by answering through WebLLM's real
 * worker client (`WebWorkerMLCEngine`, what the app gets from `CreateWebWorkerMLCEngine`) and
 * its real worker-side handler, with the model behind the handler replaced by the test double.
 */
import { WebWorkerMLCEngine, WebWorkerMLCEngineHandler, type MLCEngineInterface } from '@mlc-ai/web-llm';
import { describe, expect, expectTypeOf, it, vi } from 'vitest';
import { answerConfig } from '../../src/core/answer/config.js';
import { answerQuestion } from '../../src/core/answer/generation.js';
import { type ChatEngine, type StreamingChatRequest } from '../../src/core/llm/engine.js';
import { delta, engineDouble, makeChunk, retrievalOf } from './helpers.js';

const C1 = makeChunk(
  'skysafe-sora-curated/17',
  'Intrinsic ground risk',
  'The iGRC is determined from the UA characteristic dimension and the population density.',
);
// these tests check the free-form answer path (the test double streams prose with markers)
const config = answerConfig({ answerForm: 'free', retry: { delayMs: 0 } });

/** WebLLM's worker client and handler wired through an in-memory channel; the handler's engine is the double. */
async function webWorkerEngine(double: ReturnType<typeof engineDouble>) {
  const kinds: string[] = [];
  const handler = new WebWorkerMLCEngineHandler();
  // the parts of MLCEngine the handler calls for a streamed chat completion, delegated to the double
  const fake = {
    reload: async () => undefined,
    chatCompletion: (request: StreamingChatRequest) => double.chat.completions.create(request),
    interruptGenerate: () => double.interruptGenerate(),
  };
  (handler as unknown as { engine: unknown }).engine = fake;
  const worker = {
    onmessage: null as ((ev: MessageEvent) => void) | null,
    postMessage(msg: { kind: string }) {
      kinds.push(msg.kind);
      setTimeout(() => handler.onmessage(new MessageEvent('message', { data: msg })), 0);
    },
  };
  handler.postMessage = (msg: unknown) => setTimeout(() => worker.onmessage?.(new MessageEvent('message', { data: msg })), 0);
  const client = new WebWorkerMLCEngine(worker as unknown as Worker);
  await client.reload('test-double-model');
  return { client, kinds };
}

describe('ChatEngine is the subset of WebLLM MLCEngineInterface the answer stage uses', () => {
  it('is a supertype of MLCEngineInterface (checked by tsc)', () => {
    expectTypeOf<MLCEngineInterface>().toExtend<ChatEngine>();
  });

  it('answers through WebLLM’s real worker client: streamed tokens and requests arrive unchanged', { timeout: 20_000 }, async () => {
    const double = engineDouble({
      streams: [[delta('The iGRC comes from the dimension '), delta('and the population density [skysafe-sora-curated/17].'), delta('', 'stop')]],
    });
    const { client, kinds } = await webWorkerEngine(double);
    const engine: ChatEngine = client; // the app passes the worker client as is
    const tokens: string[] = [];
    const r = await answerQuestion({
      question: 'How is the iGRC determined?',
      retrieval: retrievalOf([C1]),
      engine,
      config,
      modelId: 'test-double-model',
      onToken: (t) => tokens.push(t),
    });
    expect(r.status).toBe('complete');
    expect(r.answer).toBe('The iGRC comes from the dimension and the population density [skysafe-sora-curated/17].');
    expect(r.citations).toEqual(['skysafe-sora-curated/17']);
    expect(tokens.join('')).toBe(r.answer);
    expect(double.requests).toHaveLength(1);
    expect(double.requests[0]).toMatchObject({ stream: true, temperature: 0.2, top_p: 0.9 });
    expect(double.requests[0]!.messages).toEqual(r.messages);
    expect(kinds).toContain('chatCompletionStreamInit');
    expect(kinds).toContain('completionStreamNextChunk');
  });

  it('stops through the worker protocol: interruptGenerate reaches the model', { timeout: 20_000 }, async () => {
    const double = engineDouble({ streams: [[delta('The iGRC is ')]], hangAfterChunks: true });
    const { client, kinds } = await webWorkerEngine(double);
    const controller = new AbortController();
    const r = await answerQuestion({
      question: 'q',
      retrieval: retrievalOf([C1]),
      engine: client,
      config,
      signal: controller.signal,
      onToken: () => controller.abort(),
    });
    expect(r.status).toBe('stopped');
    expect(r.answer).toBe('The iGRC is');
    expect(kinds).toContain('interruptGenerate');
    await vi.waitFor(() => expect(double.interrupts).toBe(1)); // the handler receives it asynchronously
  });
});
