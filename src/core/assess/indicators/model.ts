/**
 * The minimal language-model interface the indicator workflow needs (defined here so the workflow
 * does not depend on the answer module). A WebLLM engine, a Node endpoint client or a test double
 * adapts to it in a few lines.
 */

export interface ChatMessage {
  readonly role: 'system' | 'user' | 'assistant';
  readonly content: string;
}

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

export interface IndicatorModel {
  /** Model identifier, recorded in the results (audit). */
  readonly id?: string;
  /** One completion for the messages; rejects on endpoint failure or timeout. */
  complete(messages: readonly ChatMessage[], options: CompletionOptions): Promise<string>;
}

/** Generation parameters of the SKYSAFE paper (§2.7): temperature 0.2, top-p 0.9. */
export const DEFAULT_SAMPLING = { temperature: 0.2, top_p: 0.9 } as const;
