/**
 * Map the grounding report onto the displayed answer: each claim the checker found
 * unsupported becomes a character range of the display text (citations numbered [n]),
 * so the view can underline it. Pure: no DOM.
 *
 * The checker reports sentences as it saw them (list markers, "**" and ">" removed,
 * `[chunk-id]` markers kept), so the search here renumbers the markers with the display
 * mapping and compares both texts with emphasis markers removed and whitespace collapsed.
 * A sentence that cannot be located is returned in `unplaced` (the view lists it below
 * the answer rather than dropping it).
 */
import { parseCitations } from '../core/answer/citations';
import type { GroundingReport, SentenceGrounding } from '../core/answer/grounding';

export interface SentenceMark {
  /** Offsets into the display text. */
  start: number;
  end: number;
  /** The checker's reason, in words. */
  reason: string;
  /** The sentence as the checker reported it. */
  sentence: string;
}

export interface GroundingMarks {
  /** Non-overlapping, in text order. */
  marks: SentenceMark[];
  /** Unsupported sentences that could not be located in the display text. */
  unplaced: SentenceGrounding[];
}

/** Unsupported claims of a report, in answer order. */
export function unsupportedSentences(report: GroundingReport | null | undefined): SentenceGrounding[] {
  if (!report) return [];
  return report.sentences.filter((s) => s.kind === 'claim' && s.supported === false);
}

/** Replace `[chunk-id]` markers with their display numbers (unknown ids dropped). */
export function renumberSentence(sentence: string, numberOf: Readonly<Record<string, number>>): string {
  let out = '';
  let last = 0;
  for (const m of parseCitations(sentence)) {
    const nums = [...new Set(m.ids.map((id) => numberOf[id]).filter((n): n is number => n !== undefined))];
    out += sentence.slice(last, m.start) + (nums.length ? `[${nums.join(', ')}]` : '');
    last = m.end;
  }
  return out + sentence.slice(last);
}

interface Normalized {
  text: string;
  /** map[i] = offset in the original of normalized char i. */
  map: number[];
}

/** Remove emphasis/code markers and collapse whitespace, keeping a map back to the original offsets. */
export function normalizeForSearch(s: string): Normalized {
  let text = '';
  const map: number[] = [];
  let spacePending = false;
  for (let i = 0; i < s.length; i++) {
    const ch = s[i]!;
    if (ch === '*' || ch === '_' || ch === '`' || ch === '\uE000' || ch === '\uE001') continue;
    if (/\s/.test(ch)) {
      spacePending = text.length > 0;
      continue;
    }
    if (spacePending) {
      text += ' ';
      map.push(i - 1);
      spacePending = false;
    }
    text += ch;
    map.push(i);
  }
  return { text, map };
}

/**
 * Locate the unsupported claims of `report` in `display` (the answer as shown, with [n]
 * citations). Search proceeds left to right, so repeated sentences map to successive
 * occurrences.
 */
export function groundingMarks(display: string, numberOf: Readonly<Record<string, number>>, report: GroundingReport | null | undefined): GroundingMarks {
  const marks: SentenceMark[] = [];
  const unplaced: SentenceGrounding[] = [];
  const hay = normalizeForSearch(display);
  let cursor = 0;
  for (const s of unsupportedSentences(report)) {
    const needle = normalizeForSearch(renumberSentence(s.text, numberOf)).text;
    if (!needle) {
      unplaced.push(s);
      continue;
    }
    let at = hay.text.indexOf(needle, cursor);
    if (at < 0) at = hay.text.indexOf(needle);
    if (at < 0) {
      unplaced.push(s);
      continue;
    }
    const start = hay.map[at]!;
    const end = hay.map[at + needle.length - 1]! + 1;
    if (marks.some((m) => start < m.end && end > m.start)) {
      unplaced.push(s);
      continue;
    }
    marks.push({ start, end, reason: s.reason, sentence: s.text });
    cursor = at + needle.length;
  }
  marks.sort((a, b) => a.start - b.start);
  return { marks, unplaced };
}
