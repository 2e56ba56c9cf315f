/**
 * Indicator results as people read them: `[chunk-id]` markers in an explanation become the
 * number of that passage in the card's source list ("[2]"), and the cards are ordered with the
 * answers first (SAIL, final GRC, iGRC), then other values, then the indicators without a value.
 */
import { parseCitations } from '../text/citation-markers.js';
import type { IndicatorResult } from './run.js';

/** Replace citation markers by their 1-based position in `sourceIds`; markers of other passages become "[source not listed]". */
export function numberCitations(text: string, sourceIds: readonly string[]): string {
  let out = '';
  let last = 0;
  for (const m of parseCitations(text)) {
    out += text.slice(last, m.start);
    const nums = m.ids.map((id) => sourceIds.indexOf(id) + 1);
    out += nums.every((n) => n > 0) ? `[${nums.join(', ')}]` : '[source not listed]';
    last = m.end;
  }
  return out + text.slice(last);
}

/** The answers the Assess view leads with, in this order. */
export const HEADLINE_INDICATORS = ['sail', 'final_grc', 'igrc'] as const;

/** Cards in reading order: headline indicators, then indicators with a value, then those without (evidence only). */
export function cardOrder(results: readonly IndicatorResult[]): IndicatorResult[] {
  const rank = (r: IndicatorResult): number => {
    const h = (HEADLINE_INDICATORS as readonly string[]).indexOf(r.name);
    if (h >= 0) return h;
    return r.value !== null ? 10 : 20;
  };
  return results
    .map((r, i) => ({ r, i }))
    .sort((a, b) => rank(a.r) - rank(b.r) || a.i - b.i)
    .map((x) => x.r);
}

/**
 * The card's notes that the reader has not already seen: a note that is part of the explanation,
 * or printed under one of the tables shown, is not repeated at the foot of the card.
 */
export function notesToShow(notes: readonly string[], explanation: string, shownTableNotes: readonly string[]): string[] {
  const norm = (t: string) => t.replace(/\s+/g, ' ').trim();
  const text = norm(explanation);
  const shown = new Set(shownTableNotes.map(norm));
  const out: string[] = [];
  for (const n of notes) {
    const k = norm(n);
    if (k && !shown.has(k) && !text.includes(k) && !out.some((o) => norm(o) === k)) out.push(n);
  }
  return out;
}
