/**
 * Deterministic extractive summaries (no LLM at build time): the leading
 * sentences of the unit's body, up to a length budget. For tables: the caption
 * and the first row labels.
 */
import { collapseWhitespace, splitSentences } from '../../text/sentences.js';

export interface SummaryInput {
  title: string;
  text: string;
  kind: string;
}

export const SUMMARY_MAX_CHARS = 320;

export function summarize({ title, text, kind }: SummaryInput, maxChars = SUMMARY_MAX_CHARS): string {
  let body = collapseWhitespace(text);
  const t = collapseWhitespace(title);
  if (body.startsWith(t)) body = body.slice(t.length).trim();
  if (kind === 'table') {
    const withoutCaption = body.replace(t, '').trim();
    return clip(`${t}. ${withoutCaption}`, maxChars);
  }
  const sentences = splitSentences(body);
  let out = '';
  for (const s of sentences) {
    if (out && out.length + s.length + 1 > maxChars) break;
    out = out ? `${out} ${s}` : s;
    if (out.length >= maxChars * 0.5) break;
  }
  return clip(out || t, maxChars);
}

function clip(s: string, max: number): string {
  if (s.length <= max) return s;
  const cut = s.slice(0, max);
  const space = cut.lastIndexOf(' ');
  return `${cut.slice(0, space > max * 0.6 ? space : max).trim()}…`;
}
