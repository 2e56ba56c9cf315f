/**
 * The one language-model engine interface: the subset of @mlc-ai/web-llm's `MLCEngineInterface`
 * SkyCite uses, so a real WebLLM engine (in the LLM worker), the node-llama-cpp engine
 * (corpus-build/node/llama-engine.ts) and a test double implement the same interface (a
 * type-level test checks that `MLCEngineInterface` is assignable to it). Messages, generation
 * parameters and request building live here too; answers, routing, indicators, condensation,
 * query assistance and drafting all call a model through this.
 */

export type ChatRole = 'system' | 'user' | 'assistant';

export interface ChatMessage {
  role: ChatRole;
  content: string;
}

/** Generation parameters passed to the chat engine (recorded in the audit record). */
export interface GenerationParams {
  /** Sampling temperature (SKYSAFE §2.7.2: 0.2). */
  temperature: number;
  /** Nucleus sampling (SKYSAFE §2.7.2: 0.9). */
  top_p: number;
  /**
   * Maximum generated tokens. SKYSAFE uses ~56,000 with a 20B server model; the
   * in-browser models have 4,096-token windows, shared with ~1,300 tokens of
   * instructions and the context. The prompt asks for about 150 words (a marker
   * alone is ~20 tokens), so 512 leaves room for a sectioned, cited answer and
   * 7,994 characters of context (`contextCharsFor`).
   */
  max_tokens: number;
  /** Presence penalty (SKYSAFE §2.7.2: 0). */
  presence_penalty: number;
  /** Frequency penalty (SKYSAFE §2.7.2: 0). */
  frequency_penalty: number;
  /**
   * WebLLM `extra_body.enable_thinking` (Qwen3 models): null = not sent (model
   * default); false prepends an empty think block so the model answers directly.
   */
  enable_thinking: boolean | null;
}

/** SKYSAFE §2.7.2's sampling (temperature 0.2, top-p 0.9, no penalties) with a 512-token reply (answer/config.ts says why). */
export const DEFAULT_GENERATION: GenerationParams = {
  temperature: 0.2,
  top_p: 0.9,
  max_tokens: 512,
  presence_penalty: 0,
  frequency_penalty: 0,
  enable_thinking: null,
};

/** A streaming chat completion request, as WebLLM's `chat.completions.create` takes it. */
export interface StreamingChatRequest {
  messages: ChatMessage[];
  stream: true;
  stream_options?: { include_usage: boolean };
  temperature: number;
  top_p: number;
  max_tokens: number;
  presence_penalty: number;
  frequency_penalty: number;
  extra_body?: { enable_thinking?: boolean | null };
  /**
   * Constrained output (WebLLM's `response_format`): a JSON object, optionally
   * matching a JSON schema given as a string. The node-llama-cpp engine turns the
   * schema into a grammar; the output is still validated by the caller.
   */
  response_format?: { type: 'json_object'; schema?: string };
}

export interface ChatCompletionDelta {
  content?: string | null;
  /** Reasoning trace delta of OpenAI-compatible servers (WebLLM puts `<think>` blocks in `content` instead). */
  reasoning_content?: string | null;
}

/** One streamed chunk (`ChatCompletionChunk` in WebLLM). */
export interface ChatCompletionChunkLike {
  choices: Array<{ delta: ChatCompletionDelta; finish_reason: string | null }>;
  model?: string;
  usage?: ChatUsage | null;
}

/**
 * Token counts of a request. `extra` carries WebLLM's speed figures (WebLLM fills
 * it; the node-llama-cpp engine fills the same fields), used by the evaluation.
 */
export interface ChatUsage {
  prompt_tokens?: number;
  completion_tokens?: number;
  total_tokens?: number;
  extra?: { prefill_tokens_per_s?: number; decode_tokens_per_s?: number; time_to_first_token_s?: number; e2e_latency_s?: number };
}

/** What the answer stage needs of a chat engine. */
export interface ChatEngine {
  chat: {
    completions: {
      create(request: StreamingChatRequest): Promise<AsyncIterable<ChatCompletionChunkLike>>;
    };
  };
  /** Stop the current generation (WebLLM ends the stream with finish_reason "abort"). */
  interruptGenerate(): void;
}

/** The request sent to the engine. */
export function buildRequest(messages: ChatMessage[], params: GenerationParams, schema?: object): StreamingChatRequest {
  const req: StreamingChatRequest = {
    messages,
    stream: true,
    stream_options: { include_usage: true },
    temperature: params.temperature,
    top_p: params.top_p,
    max_tokens: params.max_tokens,
    presence_penalty: params.presence_penalty,
    frequency_penalty: params.frequency_penalty,
  };
  if (params.enable_thinking !== null) req.extra_body = { enable_thinking: params.enable_thinking };
  if (schema) req.response_format = { type: 'json_object', schema: JSON.stringify(schema) };
  return req;
}
