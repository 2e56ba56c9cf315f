/**
 * One non-answer completion over the ChatEngine (the router classifier, the indicator
 * workflow, query generation and model-assisted retrieval): the reply text, with
 * WebLLM's constrained JSON output (`response_format` with a JSON schema) when a
 * schema is given. The callers still parse and validate the reply (ajv / their own
 * checks): a grammar constrains the form, not the meaning, and an engine that ignores
 * `response_format` must not slip through.
 *
 * `CompletionModel` is the one JSON-completion interface of everything that is not the
 * streamed answer: the router classifier, the indicator workflow, condensation, query
 * assistance and drafting. `chatModel()` adapts a ChatEngine to it, so every model call of
 * the app goes through the one engine interface; a Node endpoint or a test double adapts in a
 * few lines.
 */
import { buildRequest, DEFAULT_GENERATION, type ChatEngine, type ChatMessage, type GenerationParams } from './engine.js';
import { mapEngineError } from './errors.js';
import { streamChat } from './stream.js';

export interface CompletionOptions {
  readonly temperature: number;
  readonly top_p: number;
  /** Token limit of the reply (the adapter's default when absent). */
  readonly max_tokens?: number;
  /**
   * A JSON schema the reply must follow: engines with constrained decoding (WebLLM's
   * `response_format`, a node-llama-cpp grammar) enforce it; the caller still validates.
   */
  readonly schema?: object;
  readonly signal?: AbortSignal;
}

/** One completion for a list of messages: the reply text. */
export interface CompletionModel {
  /** Model identifier, recorded in the results (audit). */
  readonly id?: string;
  /** One completion for the messages; rejects on endpoint failure or timeout. */
  complete(messages: readonly Readonly<ChatMessage>[], options: CompletionOptions): Promise<string>;
}

export interface CompletionRequest {
  messages: readonly ChatMessage[];
  temperature: number;
  top_p: number;
  max_tokens: number;
  /** A JSON schema: the reply is constrained to it (WebLLM response_format). */
  schema?: object;
  signal?: AbortSignal;
}

export interface CompletionResult {
  text: string;
  finishReason: string | null;
  /** True when the signal stopped the completion (`text` is partial). */
  aborted: boolean;
}

/** Run one completion and collect its text. Engine failures throw typed errors (mapEngineError). */
export async function completeText(engine: ChatEngine, req: CompletionRequest): Promise<CompletionResult> {
  const params: GenerationParams = { ...DEFAULT_GENERATION, temperature: req.temperature, top_p: req.top_p, max_tokens: req.max_tokens };
  const { signal } = req;
  if (signal?.aborted) return { text: '', finishReason: 'abort', aborted: true };
  let text = '';
  let finishReason: string | null = null;
  let stopped: boolean;
  try {
    ({ stopped } = await streamChat(engine, buildRequest([...req.messages], params, req.schema), signal, (chunk) => {
      const choice = chunk.choices[0];
      text += choice?.delta.content ?? '';
      if (choice?.finish_reason) finishReason = choice.finish_reason;
    }));
  } catch (e) {
    if (signal?.aborted) return { text, finishReason: 'abort', aborted: true };
    throw mapEngineError(e);
  }
  const aborted = stopped || signal?.aborted === true || finishReason === 'abort';
  return { text, finishReason: aborted ? 'abort' : finishReason, aborted };
}

/** The completion interface over a ChatEngine. */
export function chatModel(engine: ChatEngine, options: { id?: string; maxTokens?: number } = {}): CompletionModel {
  return {
    ...(options.id ? { id: options.id } : {}),
    async complete(messages, o) {
      const r = await completeText(engine, {
        messages: messages.map((m) => ({ role: m.role, content: m.content })),
        temperature: o.temperature,
        top_p: o.top_p,
        max_tokens: o.max_tokens ?? options.maxTokens ?? 512,
        ...(o.schema ? { schema: o.schema } : {}),
        ...(o.signal ? { signal: o.signal } : {}),
      });
      // the platform's abort error, as an aborted fetch throws it (the caller knows its signal aborted)
      if (r.aborted) throw new DOMException('The model call was stopped.', 'AbortError');
      return r.text;
    },
  };
}
