/**
 * Chat message assembly in the SKYSAFE order (Appendix A.2.5):
 *
 *   1. system prompt
 *   2. developer prompt
 *   (previous turns: user question / assistant answer pairs, oldest first)
 *   3. user question
 *   4. assistant acknowledgement
 *   5. user message with the context wrapper
 *
 * Messages are OpenAI-style `{role, content}` with the roles WebLLM accepts
 * (system, user, assistant). Role mapping for the developer prompt: see
 * `DeveloperMessageMode` in config.ts — by default it is merged into the single
 * system message, because WebLLM rejects a second system message
 * (SystemMessageOrderError) and the 'developer' role (UnsupportedRoleError).
 * History carries only the previous questions and final answers, never their
 * contexts or reasoning traces.
 */
import type { ChatMessage } from '../llm/engine.js';
import type { AnswerConfig } from './config.js';
import { DEFAULT_ANSWER_CONFIG } from './config.js';
import { stripCitations } from './citations.js';
import {
  contextMessage,
  DEVELOPER_HEADING,
  developerPrompt,
  NO_CONTEXT_MARKER,
  structuredContextMessage,
  structuredSystemPrompt,
  systemPrompt,
} from './prompts.js';

/** One previous exchange of the conversation. */
export interface ConversationTurn {
  question: string;
  /** The final answer shown to the user (no reasoning trace). */
  answer: string;
}

export interface BuildMessagesInput {
  question: string;
  /** Previous turns, oldest first. */
  history?: readonly ConversationTurn[];
  /** Passages in the context (structured answers name the range of source numbers). */
  passages?: number;
  /** The context block as the model sees it: `RetrievalResult.context`, numbered by `numberContextMarkers` when `citationMarkers` is 'number'. */
  context: string;
  config?: AnswerConfig;
}

/**
 * The most recent turns that fit both `maxTurns` and `maxChars` (question +
 * answer lengths), oldest first. Whole turns only; a turn that does not fit
 * ends the scan, so the kept history is always a contiguous recent suffix.
 */
export function trimHistory(history: readonly ConversationTurn[], budget: AnswerConfig['history']): ConversationTurn[] {
  const kept: ConversationTurn[] = [];
  let used = 0;
  for (let i = history.length - 1; i >= 0 && kept.length < budget.maxTurns; i--) {
    const t = history[i]!;
    const size = t.question.length + t.answer.length;
    if (used + size > budget.maxChars) break;
    kept.unshift(t);
    used += size;
  }
  return kept;
}

/** The system line of the 'minimal' instructions (diagnostic smoke profile only). */
export const MINIMAL_SYSTEM_PROMPT = 'Answer briefly from the context only, citing its [chunk-id] marker.';
/** The same line for numbered markers. */
export const MINIMAL_SYSTEM_PROMPT_NUMBERED = 'Answer briefly from the context only, citing its [number].';

/** The system (and, in 'system' mode, developer) messages. */
export function instructionMessages(config: AnswerConfig = DEFAULT_ANSWER_CONFIG): ChatMessage[] {
  const markers = config.citationMarkers;
  if (config.instructions === 'minimal') return [{ role: 'system', content: markers === 'number' ? MINIMAL_SYSTEM_PROMPT_NUMBERED : MINIMAL_SYSTEM_PROMPT }];
  if (config.developerMessageMode === 'system') {
    return [
      { role: 'system', content: systemPrompt(markers) },
      { role: 'system', content: developerPrompt(markers) },
    ];
  }
  return [{ role: 'system', content: `${systemPrompt(markers)}\n\n# ${DEVELOPER_HEADING}\n\n${developerPrompt(markers)}` }];
}

/** True when an answer is asked for as structured claims. */
export const isStructured = (config: AnswerConfig): boolean => config.answerForm === 'structured';

/** The system line of structured answers with the 'minimal' instructions (diagnostic smoke profile only). */
export const MINIMAL_STRUCTURED_PROMPT = 'Answer from the context as JSON claims, each with the numbers of the passages that state it.';

/** The full message list for one answer. */
export function buildChatMessages(input: BuildMessagesInput): ChatMessage[] {
  const config = input.config ?? DEFAULT_ANSWER_CONFIG;
  const structured = isStructured(config);
  const system =
    config.instructions === 'minimal' ? MINIMAL_STRUCTURED_PROMPT : structuredSystemPrompt(Math.max(1, input.passages ?? 1), config.structured.minClaims === 0);
  const messages = structured ? [{ role: 'system' as const, content: system }] : instructionMessages(config);
  for (const turn of trimHistory(input.history ?? [], config.history)) {
    // a previous answer's markers point into an earlier context: with numbered markers they would read as this context's numbers
    const answer = config.citationMarkers === 'number' ? stripCitations(turn.answer) : turn.answer;
    messages.push({ role: 'user', content: turn.question }, { role: 'assistant', content: answer });
  }
  if (config.instructions === 'minimal') {
    messages.push({ role: 'user', content: `${input.question}\n\nContext:\n${input.context.trim() || NO_CONTEXT_MARKER}` });
    return messages;
  }
  if (structured) {
    messages.push({ role: 'user', content: structuredContextMessage(input.context, input.question) });
    return messages;
  }
  messages.push(
    { role: 'user', content: input.question },
    { role: 'assistant', content: config.acknowledgement },
    { role: 'user', content: contextMessage(input.context, config.citationMarkers) },
  );
  return messages;
}
