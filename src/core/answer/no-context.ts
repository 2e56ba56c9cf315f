/**
 * The no-context rule (SKYSAFE developer prompt, rule 3): when retrieval found
 * no evidence, the reply is exactly "I cannot provide an answer for this
 * question" and the language model is not called at all — the rule is enforced
 * in code, not left to the model.
 */
import type { RetrievalResult } from '../retrieval/types.js';
import { NO_ANSWER_TEXT } from './prompts.js';

export { NO_ANSWER_TEXT };

/** True when there is nothing to ground an answer on. */
export function hasNoContext(retrieval: Pick<RetrievalResult, 'noEvidence' | 'evidence' | 'context'>): boolean {
  return retrieval.noEvidence || retrieval.evidence.length === 0 || retrieval.context.trim() === '';
}
