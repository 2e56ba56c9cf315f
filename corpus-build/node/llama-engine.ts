/**
 * A `ChatEngine` (the OpenAI-style interface the answer stage uses with WebLLM)
 * backed by node-llama-cpp and a GGUF file, on the CPU: the same prompts, the
 * same streaming protocol and the same checks run in Node on real model output
 * (evaluation, query rewriting). `response_format` with a JSON schema becomes a
 * grammar, as WebLLM's constrained decoding does in the browser.
 */
import { basename } from 'node:path';
import type { ChatCompletionChunkLike, ChatEngine, StreamingChatRequest } from '../../src/core/answer/generation.js';

export interface LlamaEngineOptions {
  /** CPU threads (default 2; more threads than cores is much slower). */
  threads?: number;
  contextSize?: number;
  /** Sampling seed (default 1): the same request gives the same output. */
  seed?: number;
}

export interface LlamaEngine extends ChatEngine {
  readonly modelId: string;
  /** Tokens and seconds over all requests so far: prefill (up to the first token) and decode. */
  stats(): { promptTokens: number; outputTokens: number; prefillSeconds: number; decodeSeconds: number };
  dispose(): Promise<void>;
}

export async function createLlamaEngine(modelPath: string, opts: LlamaEngineOptions = {}): Promise<LlamaEngine> {
  const { getLlama, LlamaChatSession } = await import('node-llama-cpp');
  const llama = await getLlama({ gpu: false, build: 'never', logLevel: 'error' as never });
  const model = await llama.loadModel({ modelPath });
  const context = await model.createContext({ contextSize: opts.contextSize ?? 4096, threads: opts.threads ?? 2 });
  const sequence = context.getSequence();
  const session = new LlamaChatSession({ contextSequence: sequence });
  const totals = { promptTokens: 0, outputTokens: 0, prefillSeconds: 0, decodeSeconds: 0 };
  let abort: AbortController | null = null;
  const modelId = basename(modelPath).replace(/\.gguf$/i, '');

  async function* run(request: StreamingChatRequest): AsyncGenerator<ChatCompletionChunkLike> {
    const msgs = request.messages;
    const last = msgs[msgs.length - 1];
    if (!last || last.role !== 'user') throw new Error('The last message of a chat request must be the user\'s.');
    session.setChatHistory(
      msgs.slice(0, -1).map((m) =>
        m.role === 'system' ? { type: 'system' as const, text: m.content } : m.role === 'user' ? { type: 'user' as const, text: m.content } : { type: 'model' as const, response: [m.content] },
      ),
    );
    const grammar = request.response_format?.schema ? await llama.createGrammarForJsonSchema(JSON.parse(request.response_format.schema)) : undefined;
    abort = new AbortController();
    const queue: string[] = [];
    let wake: (() => void) | null = null;
    let done = false;
    let failure: unknown = null;
    const before = { in: sequence.tokenMeter.usedInputTokens, out: sequence.tokenMeter.usedOutputTokens };
    const t0 = performance.now();
    let firstAt = 0;
    const finished = session
      .prompt(last.content, {
        temperature: request.temperature,
        topP: request.top_p,
        maxTokens: request.max_tokens,
        seed: opts.seed ?? 1,
        ...(grammar ? { grammar } : {}),
        signal: abort.signal,
        stopOnAbortSignal: true,
        onTextChunk(text: string) {
          if (!firstAt) firstAt = performance.now();
          queue.push(text);
          wake?.();
        },
      })
      .catch((e: unknown) => {
        failure = e;
      })
      .finally(() => {
        done = true;
        wake?.();
      });
    while (!done || queue.length) {
      if (!queue.length) {
        await new Promise<void>((r) => (wake = r));
        wake = null;
        continue;
      }
      yield { choices: [{ delta: { content: queue.shift()! }, finish_reason: null }], model: modelId };
    }
    await finished;
    if (failure) throw failure;
    const end = performance.now();
    const promptTokens = sequence.tokenMeter.usedInputTokens - before.in;
    const outputTokens = sequence.tokenMeter.usedOutputTokens - before.out;
    totals.promptTokens += promptTokens;
    totals.outputTokens += outputTokens;
    totals.prefillSeconds += ((firstAt || end) - t0) / 1000;
    totals.decodeSeconds += (end - (firstAt || end)) / 1000;
    const stopped = abort.signal.aborted;
    abort = null;
    yield {
      choices: [{ delta: {}, finish_reason: stopped ? 'abort' : outputTokens >= request.max_tokens ? 'length' : 'stop' }],
      model: modelId,
      usage: { prompt_tokens: promptTokens, completion_tokens: outputTokens, total_tokens: promptTokens + outputTokens },
    };
  }

  return {
    modelId,
    chat: { completions: { create: async (request) => run(request) } },
    interruptGenerate() {
      abort?.abort();
    },
    stats: () => ({ ...totals }),
    async dispose() {
      await context.dispose();
      await model.dispose();
    },
  };
}
