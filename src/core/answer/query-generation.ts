/**
 * Optional query preprocessing (SKYSAFE §2.7.1): decompose a compound question
 * into at most N focused retrieval queries, each tagged with a reasoning level,
 * using the SKYSAFE query-generation prompts (Appendix A.2.1–A.2.2). Each
 * sub-query then goes through retrieval and generation on its own, with no
 * conversation history (SKYSAFE resets conversational state between
 * sub-queries).
 */
import { type AnswerConfig, DEFAULT_ANSWER_CONFIG } from './config.js';
import { mapEngineError } from './errors.js';
import { buildRequest, type ChatEngine } from './generation.js';
import type { ChatMessage } from './messages.js';
import { queryGenerationSystemPrompt, queryGenerationUserPrompt } from './prompts.js';
import { splitReasoning } from './reasoning.js';

export type ReasoningLevel = 'none' | 'low' | 'medium' | 'high';
const LEVELS: readonly ReasoningLevel[] = ['none', 'low', 'medium', 'high'];

export interface GeneratedQuery {
  query: string;
  reasoning_level: ReasoningLevel;
}

export interface QueryGenerationResult {
  queries: GeneratedQuery[];
  /** False when the model's output could not be used and the question itself was returned. */
  parsed: boolean;
  /** The model's raw output, for the audit record. */
  raw: string;
}

/** The reply's JSON schema (constrained output, WebLLM response_format); parseGeneratedQueries still validates it. */
export function queryGenerationSchema(maxQueries: number) {
  return {
    type: 'object',
    properties: {
      queries: {
        type: 'array',
        minItems: 1,
        maxItems: maxQueries,
        items: {
          type: 'object',
          properties: { query: { type: 'string', minLength: 1, maxLength: 300 }, reasoning_level: { type: 'string', enum: [...LEVELS] } },
          required: ['query', 'reasoning_level'],
        },
      },
    },
    required: ['queries'],
  } as const;
}

/** The two messages of a query-generation call. */
export function buildQueryGenerationMessages(question: string, maxQueries: number): ChatMessage[] {
  return [
    { role: 'system', content: queryGenerationSystemPrompt(maxQueries) },
    { role: 'user', content: queryGenerationUserPrompt(question) },
  ];
}

/**
 * Parse `{queries:[{query, reasoning_level}]}` from model output (a reasoning
 * block or a code fence around the JSON is tolerated). Entries with an empty
 * query are dropped, an unknown level becomes 'none', duplicates (case- and
 * space-insensitive) are dropped, and at most `maxQueries` are kept. Returns
 * null when no usable object is found.
 */
export function parseGeneratedQueries(text: string, maxQueries: number): GeneratedQuery[] | null {
  const body = splitReasoning(text).answer;
  const start = body.indexOf('{');
  const end = body.lastIndexOf('}');
  if (start < 0 || end <= start) return null;
  let obj: unknown;
  try {
    obj = JSON.parse(body.slice(start, end + 1));
  } catch {
    return null;
  }
  const list = (obj as { queries?: unknown })?.queries;
  if (!Array.isArray(list)) return null;
  const out: GeneratedQuery[] = [];
  const seen = new Set<string>();
  for (const item of list) {
    const q = typeof (item as { query?: unknown })?.query === 'string' ? (item as { query: string }).query.trim() : '';
    if (!q) continue;
    const key = q.toLowerCase().replace(/\s+/g, ' ');
    if (seen.has(key)) continue;
    seen.add(key);
    const lvl = (item as { reasoning_level?: unknown }).reasoning_level;
    out.push({ query: q, reasoning_level: LEVELS.includes(lvl as ReasoningLevel) ? (lvl as ReasoningLevel) : 'none' });
    if (out.length >= maxQueries) break;
  }
  return out.length ? out : null;
}

/**
 * Ask the engine for sub-queries. Falls back to the question itself (parsed:
 * false) when the output is not usable; engine failures throw typed errors.
 */
export async function generateQueries(
  question: string,
  engine: ChatEngine,
  config: AnswerConfig = DEFAULT_ANSWER_CONFIG,
): Promise<QueryGenerationResult> {
  const n = Math.max(1, config.decomposition.maxQueries);
  let raw = '';
  try {
    const stream = await engine.chat.completions.create(buildRequest(buildQueryGenerationMessages(question, n), config.generation, queryGenerationSchema(n)));
    for await (const chunk of stream) raw += chunk.choices[0]?.delta.content ?? '';
  } catch (e) {
    throw mapEngineError(e);
  }
  const queries = parseGeneratedQueries(raw, n);
  return queries ? { queries, parsed: true, raw } : { queries: [{ query: question, reasoning_level: 'none' }], parsed: false, raw };
}
