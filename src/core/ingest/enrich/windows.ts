/**
 * Passage windows: short spans of a chunk (one to a few sentences, or a few
 * table rows) embedded one by one, so dense retrieval sees every part of a
 * regulatory unit — MiniLM reads only the first 256 word pieces of a string —
 * and so a question can meet the one sentence that answers it. Windows are
 * stored as character offsets into the chunk's text, hence auditable and usable
 * for highlighting.
 */
import { splitSentenceSpans } from '../../text/sentences.js';

export interface WindowSpan {
  start: number;
  end: number;
}

export interface WindowOptions {
  /** Target window length in characters. Default 400. */
  maxChars: number;
}

export const DEFAULT_WINDOWS: WindowOptions = { maxChars: 400 };

/** Windows of consecutive sentences (prose) or lines (tables), each ≤ maxChars unless one sentence is longer; windows do not overlap. */
export function passageWindows(text: string, kind: string, opts: WindowOptions = DEFAULT_WINDOWS): WindowSpan[] {
  const units: WindowSpan[] = kind === 'table' ? lineSpans(text) : splitSentenceSpans(text).map((s) => ({ start: s.start, end: s.end }));
  if (!units.length) return [];
  const out: WindowSpan[] = [];
  let i = 0;
  while (i < units.length) {
    let j = i;
    while (j + 1 < units.length && units[j + 1]!.end - units[i]!.start <= opts.maxChars) j++;
    out.push({ start: units[i]!.start, end: units[j]!.end });
    if (j + 1 >= units.length) break;
    i = j + 1;
  }
  return out;
}

function lineSpans(text: string): WindowSpan[] {
  const out: WindowSpan[] = [];
  let pos = 0;
  for (const line of text.split('\n')) {
    if (line.trim()) out.push({ start: pos, end: pos + line.length });
    pos += line.length + 1;
  }
  return out;
}
