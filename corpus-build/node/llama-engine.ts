/**
 * A `ChatEngine` (the OpenAI-style interface the answer stage uses with WebLLM)
 * backed by node-llama-cpp and a GGUF file, on the CPU: the same prompts, the
 * same streaming protocol and the same checks run in Node on real model output
 * (evaluation, query rewriting). `response_format` with a JSON schema becomes a
 * grammar, as WebLLM's constrained decoding does in the browser.
 *
 * It behaves like WebLLM at the context window: a prompt longer than the window is
 * refused with WebLLM's error name (ContextWindowSizeExceededError, which the answer
 * stage maps to ContextTooLongError), and generation stops with finish_reason
 * "length" when the window is full. The final chunk's `usage.extra` carries the
 * request's prefill and decode speeds in WebLLM's field names.
 */
import { basename } from 'node:path';
import type { ChatCompletionChunkLike, ChatEngine, StreamingChatRequest } from '../../src/core/llm/engine.js';

export interface LlamaEngineOptions {
  /** CPU threads (default 2; more threads than cores is much slower). */
  threads?: number;
  /** Context window in tokens (default 4096, the window of the WebLLM libraries the app uses). */
  contextSize?: number;
  /** Sampling seed (default 1): the same request gives the same output. */
  seed?: number;
}

export interface LlamaEngine extends ChatEngine {
  readonly modelId: string;
  /** Tokens and seconds over all requests so far: prefill (evaluated prompt tokens, up to the first token) and decode. */
  stats(): { promptTokens: number; outputTokens: number; prefillSeconds: number; decodeSeconds: number };
  dispose(): Promise<void>;
}

/** ChatML: "<|im_start|>role\n" … "<|im_end|>\n" around each message. */
const TEMPLATE_TOKENS_PER_MESSAGE = 5;

/**
 * A JSON-schema grammar without newlines or indentation. node-llama-cpp's default JSON grammar lets
 * the model pretty-print (measured: a third of a structured answer's tokens were indentation), and
 * every token costs decode time on the CPU. The generator is not exported by the package, so it is
 * loaded from its file next to the package entry.
 */
async function compactJsonGrammar(llama: import('node-llama-cpp').Llama, schema: object): Promise<import('node-llama-cpp').LlamaGrammar> {
  const { LlamaGrammar } = await import('node-llama-cpp');
  const entry = import.meta.resolve('node-llama-cpp');
  const { getGbnfGrammarForGbnfJsonSchema } = (await import(new URL('./utils/gbnfJson/getGbnfGrammarForGbnfJsonSchema.js', entry).href)) as {
    getGbnfGrammarForGbnfJsonSchema: (schema: object, opts: { allowNewLines: boolean }) => string;
  };
  return new LlamaGrammar(llama, { grammar: getGbnfGrammarForGbnfJsonSchema(schema, { allowNewLines: false }), trimWhitespaceSuffix: true });
}

export async function createLlamaEngine(modelPath: string, opts: LlamaEngineOptions = {}): Promise<LlamaEngine> {
  const { getLlama, LlamaChatSession } = await import('node-llama-cpp');
  const llama = await getLlama({ gpu: false, build: 'never', logLevel: 'error' as never });
  const model = await llama.loadModel({ modelPath });
  const contextSize = opts.contextSize ?? 4096;
  const context = await model.createContext({ contextSize, threads: opts.threads ?? 2 });
  const sequence = context.getSequence();
  const session = new LlamaChatSession({ contextSequence: sequence });
  const totals = { promptTokens: 0, outputTokens: 0, prefillSeconds: 0, decodeSeconds: 0 };
  let abort: AbortController | null = null;
  const modelId = basename(modelPath).replace(/\.gguf$/i, '');

  async function* run(request: StreamingChatRequest): AsyncGenerator<ChatCompletionChunkLike> {
    const msgs = request.messages;
    const last = msgs[msgs.length - 1];
    if (!last || last.role !== 'user') throw new Error("The last message of a chat request must be the user's.");
    session.setChatHistory(
      msgs
        .slice(0, -1)
        .map((m) =>
          m.role === 'system'
            ? { type: 'system' as const, text: m.content }
            : m.role === 'user'
              ? { type: 'user' as const, text: m.content }
              : { type: 'model' as const, response: [m.content] },
        ),
    );
    // the prompt as the chat template lays it out: each message's tokens plus its role markers
    const promptTokens = msgs.reduce((n, m) => n + model.tokenize(m.content).length + TEMPLATE_TOKENS_PER_MESSAGE, 0) + 3;
    if (promptTokens >= contextSize) {
      throw new Error(
        `ContextWindowSizeExceededError: Prompt tokens exceed context window size: number of prompt tokens: ${promptTokens}; context window size: ${contextSize}`,
      );
    }
    const maxTokens = Math.max(1, Math.min(request.max_tokens, contextSize - promptTokens));
    const grammar = request.response_format?.schema ? await compactJsonGrammar(llama, JSON.parse(request.response_format.schema) as object) : undefined;
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
        maxTokens,
        seed: opts.seed ?? 1,
        // the same penalties WebLLM applies (OpenAI semantics): a repeated token costs frequency × its count, presence once
        ...(request.frequency_penalty || request.presence_penalty
          ? { repeatPenalty: { frequencyPenalty: request.frequency_penalty ?? 0, presencePenalty: request.presence_penalty ?? 0, penalty: 1, lastTokens: 256 } }
          : {}),
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
    // tokens actually evaluated: a prefix already in the context (the same system prompt) is reused, as in WebLLM
    const evaluated = sequence.tokenMeter.usedInputTokens - before.in;
    const outputTokens = sequence.tokenMeter.usedOutputTokens - before.out;
    const prefillSeconds = ((firstAt || end) - t0) / 1000;
    const decodeSeconds = (end - (firstAt || end)) / 1000;
    totals.promptTokens += evaluated;
    totals.outputTokens += outputTokens;
    totals.prefillSeconds += prefillSeconds;
    totals.decodeSeconds += decodeSeconds;
    const stopped = abort.signal.aborted;
    abort = null;
    yield {
      choices: [{ delta: {}, finish_reason: stopped ? 'abort' : outputTokens >= maxTokens ? 'length' : 'stop' }],
      model: modelId,
      usage: {
        prompt_tokens: promptTokens,
        completion_tokens: outputTokens,
        total_tokens: promptTokens + outputTokens,
        extra: {
          prefill_tokens_per_s: prefillSeconds > 0 ? evaluated / prefillSeconds : 0,
          // the first token comes out of the prefill step (as in WebLLM)
          decode_tokens_per_s: decodeSeconds > 0 ? Math.max(0, outputTokens - 1) / decodeSeconds : 0,
          time_to_first_token_s: prefillSeconds,
          e2e_latency_s: (end - t0) / 1000,
        },
      },
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
