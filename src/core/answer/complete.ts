/**
 * One non-answer completion over the ChatEngine (the router classifier, the indicator
 * workflow, query generation and model-assisted retrieval): the reply text, with
 * WebLLM's constrained JSON output (`response_format` with a JSON schema) when a
 * schema is given. The callers still parse and validate the reply (ajv / their own
 * checks): a grammar constrains the form, not the meaning, and an engine that ignores
 * `response_format` must not slip through.
 *
 * `chatModel()` adapts a ChatEngine to the indicator workflow's `IndicatorModel`, so
 * every model call of the app goes through the one engine interface.
 */
import type { IndicatorModel } from '../assess/indicators/model.js';
import { DEFAULT_ANSWER_CONFIG, type GenerationParams } from './config.js';
import { mapEngineError } from './errors.js';
import { buildRequest, type ChatEngine } from './generation.js';
import type { ChatMessage } from './messages.js';

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
  const params: GenerationParams = { ...DEFAULT_ANSWER_CONFIG.generation, temperature: req.temperature, top_p: req.top_p, max_tokens: req.max_tokens };
  const { signal } = req;
  if (signal?.aborted) return { text: '', finishReason: 'abort', aborted: true };
  const onAbort = (): void => {
    try {
      engine.interruptGenerate();
    } catch {
      // the request is being abandoned anyway
    }
  };
  signal?.addEventListener('abort', onAbort, { once: true });
  let text = '';
  let finishReason: string | null = null;
  try {
    const stream = await engine.chat.completions.create(buildRequest([...req.messages], params, req.schema));
    for await (const chunk of stream) {
      const choice = chunk.choices[0];
      text += choice?.delta.content ?? '';
      if (choice?.finish_reason) finishReason = choice.finish_reason;
      if (signal?.aborted) break;
    }
  } catch (e) {
    if (signal?.aborted) return { text, finishReason: 'abort', aborted: true };
    throw mapEngineError(e);
  } finally {
    signal?.removeEventListener('abort', onAbort);
  }
  const aborted = signal?.aborted === true || finishReason === 'abort';
  return { text, finishReason: aborted ? 'abort' : finishReason, aborted };
}

/** The indicator workflow's and the router's model interface, over a ChatEngine. */
export function chatModel(engine: ChatEngine, options: { id?: string; maxTokens?: number } = {}): IndicatorModel {
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
      if (r.aborted) throw Object.assign(new Error('The model call was stopped.'), { name: 'AbortError' });
      return r.text;
    },
  };
}
