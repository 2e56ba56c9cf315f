/**
 * What a question may be before it is searched: not empty, and not longer than
 * {@link MAX_QUESTION_CHARS} (a question that long is a pasted document: it would become the page
 * heading and the audit record, and the embedding model reads only its first 256 word pieces).
 */
import { SkyCiteError } from '../errors.js';
export const MAX_QUESTION_CHARS = 1500;

export type QuestionCheck = { readonly ok: true; readonly text: string } | { readonly ok: false; readonly message: string };

const fmt = (n: number): string => n.toLocaleString('en-GB');

export function checkQuestion(raw: string): QuestionCheck {
  const text = raw.trim();
  if (!text) return { ok: false, message: 'Type a question first.' };
  if (text.length > MAX_QUESTION_CHARS) {
    return {
      ok: false,
      message: `Questions are limited to ${fmt(MAX_QUESTION_CHARS)} characters; this one has ${fmt(text.length)}. Ask about one point at a time, or quote only the sentence you need (the Library searches the documents by keywords).`,
    };
  }
  return { ok: true, text };
}

/** Thrown when a question that fails {@link checkQuestion} (empty, too long) reaches the pipeline; the message says what to do. */
export class QuestionRejectedError extends SkyCiteError {
  override name = 'QuestionRejectedError';
  override readonly code = 'question-rejected';
}
