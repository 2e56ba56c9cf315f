/**
 * Model-assisted retrieval: with a language model loaded, the question is also
 * searched as (1) a restatement in the vocabulary regulatory texts use, (2) a
 * short hypothetical answer passage written the way such a text would phrase it
 * (HyDE), and (3) its sub-questions when it asks several things (SKYSAFE §2.7.1
 * decomposition). Each becomes an alternative formulation of the retrieval
 * engine (extra ranked lists in the fusion); the reranker and the evidence gate
 * still judge the passages against the user's own question, so a model that
 * drifts cannot put look-alike passages through the gate.
 *
 * One call with constrained JSON output (`response_format`), validated here: an
 * unusable reply gives no alternatives (retrieval proceeds with the question alone).
 */
import { parseReplyJson } from '../llm/json.js';
import type { AnswerConfig } from './config.js';
import { DEFAULT_ANSWER_CONFIG } from './config.js';
import { completeText } from '../llm/complete.js';
import type { ChatEngine } from '../llm/engine.js';
import type { ChatMessage } from '../llm/engine.js';
import { splitReasoning } from './reasoning.js';

export const QUERY_ASSIST_SYSTEM_PROMPT = `You help search the EU drone rules: Regulation (EU) 2019/947 on unmanned aircraft operations, its acceptable means of compliance and guidance material (AMC & GM) published by EASA, including the SORA specific operations risk assessment and its annexes.
Users ask in their own words. For the user's question, reply with a JSON object:
- "rewritten": the same question restated in the precise vocabulary such regulatory texts use. Keep every detail of the question; add nothing it does not ask.
- "hypothetical_answer": two or three sentences written the way the regulatory text would state the answer. It is used only to find the right passage, never shown to the user, so write what the text would most likely say.
- "sub_questions": if the question asks several distinct things, at most 3 short focused questions, one per thing; otherwise an empty list.`;

export const QUERY_ASSIST_SCHEMA = {
  type: 'object',
  properties: {
    rewritten: { type: 'string', maxLength: 400 },
    hypothetical_answer: { type: 'string', maxLength: 800 },
    sub_questions: { type: 'array', items: { type: 'string', maxLength: 200 }, maxItems: 3 },
  },
  required: ['rewritten', 'hypothetical_answer', 'sub_questions'],
} as const;

export interface QueryAssistance {
  rewritten: string;
  hypothetical: string;
  subQuestions: string[];
  /** False when the reply could not be used (no alternatives are then searched). */
  parsed: boolean;
  /** The model's raw reply, for the audit record. */
  raw: string;
}

/**
 * The follow-up rule added to the prompt when the question continues a conversation: "rewritten"
 * becomes the standalone question retrieval searches (the follow-up's own words first, the
 * earlier question only for the topic the follow-up leaves out).
 */
export const FOLLOW_UP_RULE = `The user's message may continue an earlier question of the conversation, given before it. Then "rewritten" is a standalone question: the message's own request, with the topic it refers to taken from the earlier question; never the earlier question's request.`;

export function buildQueryAssistMessages(question: string, previous: readonly string[] = []): ChatMessage[] {
  if (!previous.length) {
    return [
      { role: 'system', content: QUERY_ASSIST_SYSTEM_PROMPT },
      { role: 'user', content: question },
    ];
  }
  const earlier = previous.map((q, i) => `${i + 1}. ${q}`).join('\n');
  return [
    { role: 'system', content: `${QUERY_ASSIST_SYSTEM_PROMPT}\n${FOLLOW_UP_RULE}` },
    { role: 'user', content: `Earlier questions of the conversation, oldest first:\n${earlier}\n\nThe user's message: ${question}` },
  ];
}

const clean = (s: unknown, max: number): string => (typeof s === 'string' ? s.replace(/\s+/g, ' ').trim().slice(0, max) : '');

/**
 * Parse and validate the reply; null when nothing usable is in it. A reply cut
 * off by the token limit keeps the string fields that were complete.
 */
export function parseQueryAssistance(text: string): Omit<QueryAssistance, 'raw' | 'parsed'> | null {
  const obj = parseReplyJson(splitReasoning(text).answer)?.value;
  if (!obj) return null;
  const rewritten = clean(obj.rewritten, 400);
  const hypothetical = clean(obj.hypothetical_answer, 800);
  const subs = Array.isArray(obj.sub_questions) ? obj.sub_questions.map((q) => clean(q, 300)).filter((q) => q.length >= 8) : [];
  if (!rewritten && !hypothetical && !subs.length) return null;
  return { rewritten, hypothetical, subQuestions: [...new Set(subs)].slice(0, 3) };
}

export async function assistQuery(
  question: string,
  engine: ChatEngine,
  config: AnswerConfig = DEFAULT_ANSWER_CONFIG,
  signal?: AbortSignal,
  /** Earlier questions of the conversation (a follow-up is rewritten as a standalone question); oldest first. */
  previous: readonly string[] = [],
): Promise<QueryAssistance> {
  const r = await completeText(engine, {
    messages: buildQueryAssistMessages(question, previous),
    temperature: 0,
    top_p: config.generation.top_p,
    max_tokens: 320,
    schema: QUERY_ASSIST_SCHEMA,
    ...(signal ? { signal } : {}),
  });
  const raw = r.text;
  const parsed = r.aborted ? null : parseQueryAssistance(raw);
  return parsed ? { ...parsed, parsed: true, raw } : { rewritten: '', hypothetical: '', subQuestions: [], parsed: false, raw };
}

/** The alternative formulations the retrieval engine searches with. */
export function alternativesFrom(a: Pick<QueryAssistance, 'rewritten' | 'hypothetical' | 'subQuestions'>): { text: string; label: string }[] {
  return [
    ...(a.rewritten ? [{ text: a.rewritten, label: 'model rewrite' }] : []),
    ...(a.hypothetical ? [{ text: a.hypothetical, label: 'hypothetical answer' }] : []),
    ...a.subQuestions.map((q, i) => ({ text: q, label: `sub-question ${i + 1}` })),
  ];
}
