/**
 * Splitting long units at paragraph boundaries, never mid-sentence.
 *
 * A boundary is a line that starts a paragraph (after a blank line, or an
 * enumerated point "(a)", "(1)", "—" ...) where the preceding text ends a
 * sentence. A paragraph that introduces a list (it ends with ":") stays with the
 * items that follow it: the whole list when it fits in `maxChars`, otherwise as
 * many items as fit (at least the first), so no part ends on an introduction.
 * Paragraphs are packed greedily up to `maxChars`; a paragraph that is itself too
 * long is cut only after lines that end a sentence (never after an introduction).
 * A short tail is merged back into the previous part.
 */
import type { SourceLine } from '../../src/core/ingest/document-model.js';

export interface SplitOptions {
  maxChars: number;
  minChars: number;
}

const collapsedLength = (lines: SourceLine[]): number => lines.reduce((n, l) => n + l.text.trim().replace(/\s+/g, ' ').length + 1, 0);

const ENDS_SENTENCE = /[.;:!?]['"’”)]?\d{0,3}$/;
/** A line after which a part may end: a sentence end, but not a list introduction (":"). */
const ENDS_STATEMENT = /[.;!?]['"’”)]?\d{0,3}$/;
const INTRODUCES_LIST = /:['"’”)]?\d{0,3}$/;
const STARTS_POINT = /^\s*(?:\((?:[a-z]{1,2}|\d{1,2}|[ivx]{1,5})\)|[ivx]{1,5}\.\s|[—–•]|\d{1,2}\.|[A-Z][A-Z ]{3,}$)/;

function lastNonBlank(lines: SourceLine[], before: number): string | null {
  for (let i = before - 1; i >= 0; i--) if (lines[i]!.text.trim() !== '') return lines[i]!.text.trim();
  return null;
}

/** Indices where a new paragraph may start without cutting a sentence. */
export function paragraphBoundaries(lines: SourceLine[]): number[] {
  const out: number[] = [];
  for (let i = 1; i < lines.length; i++) {
    const t = lines[i]!.text;
    if (t.trim() === '') continue;
    const prevBlank = lines[i - 1]!.text.trim() === '';
    const prev = lastNonBlank(lines, i);
    if (prev === null) continue;
    const sentenceDone = ENDS_SENTENCE.test(prev) || /^[A-Z0-9 ,()‘’'—–-]+$/.test(prev);
    if ((prevBlank || STARTS_POINT.test(t)) && sentenceDone) out.push(i);
  }
  return out;
}

const lastText = (lines: SourceLine[]): string => lastNonBlank(lines, lines.length) ?? '';
const firstText = (lines: SourceLine[]): string => lines.find((l) => l.text.trim() !== '')?.text ?? '';

/**
 * Merge each paragraph that introduces a list (ends with ":") with the point
 * paragraphs that follow it: always the first item, then further items while the
 * group stays within `maxChars`. Nested introductions chain naturally.
 */
export function keepListsWithIntroductions<L extends SourceLine>(paragraphs: L[][], maxChars: number): L[][] {
  const out: L[][] = [];
  let openList = false; // the last group is an introduction with its items so far
  for (const p of paragraphs) {
    const prev = out[out.length - 1];
    const isItem = STARTS_POINT.test(firstText(p));
    if (prev && isItem && (INTRODUCES_LIST.test(lastText(prev)) || (openList && collapsedLength(prev) + collapsedLength(p) <= maxChars))) {
      out[out.length - 1] = prev.concat(p);
      openList = true;
      continue;
    }
    out.push(p);
    openList = false;
  }
  return out;
}

/** Split lines into parts; returns [lines] when the unit is short enough. */
export function splitIntoParts<L extends SourceLine>(lines: L[], opts: SplitOptions): L[][] {
  if (collapsedLength(lines) <= opts.maxChars) return [lines];
  const cuts = [0, ...paragraphBoundaries(lines), lines.length];
  const paragraphs: L[][] = [];
  for (let k = 0; k + 1 < cuts.length; k++) paragraphs.push(lines.slice(cuts[k], cuts[k + 1]));
  // break over-long paragraphs after sentence-ending lines
  const pieces: L[][] = [];
  for (const p of keepListsWithIntroductions(paragraphs, opts.maxChars)) {
    if (collapsedLength(p) <= opts.maxChars) {
      pieces.push(p);
      continue;
    }
    let cur: L[] = [];
    for (const l of p) {
      cur.push(l);
      if (collapsedLength(cur) >= opts.maxChars * 0.6 && ENDS_STATEMENT.test(l.text.trim())) {
        pieces.push(cur);
        cur = [];
      }
    }
    if (cur.length) pieces.push(cur);
  }
  const parts: L[][] = [];
  let cur: L[] = [];
  for (const p of pieces) {
    if (cur.length && collapsedLength(cur) + collapsedLength(p) > opts.maxChars) {
      parts.push(cur);
      cur = [];
    }
    cur = cur.concat(p);
  }
  if (cur.length) {
    if (parts.length && collapsedLength(cur) < opts.minChars) parts[parts.length - 1] = parts[parts.length - 1]!.concat(cur);
    else parts.push(cur);
  }
  return parts.filter((p) => p.some((l) => l.text.trim() !== ''));
}
