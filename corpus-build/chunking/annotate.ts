/**
 * Build-time annotations a reader needs to quote a passage as printed, without guessing:
 *
 * - footnote markers: the numbers of the footnotes printed on a chunk's pages (the layout loader
 *   marks footnote blocks), so a number glued to a word or value ("–230", "Edition 2.536",
 *   "area35") can be read as the value and its footnote (src/core/text/units.ts);
 *
 * Merged amendment words are read by the unit segmentation where their case marks them ("wWhen",
 * "applicantUAS"); lower-case merges ("receiveundergo") were tried with the document's word counts
 * and an English vocabulary and left out: compounds such as "workflow" or "attesting" split the same
 * way (docs/answers.md). Knowledge comes from the document itself, not from any question.
 */
import type { LayoutLine } from '../loaders/easa-layout.js';

/** Footnote numbers printed on each page (the first number of each footnote-block line that starts one). */
export function footnoteNumbersByPage(lines: readonly LayoutLine[]): Map<number, Set<string>> {
  const out = new Map<number, Set<string>>();
  for (const l of lines) {
    if (!l.footnote || l.page === null) continue;
    const m = /^\s*(\d{1,3})(?:\s|$)/.exec(l.text);
    if (!m) continue;
    const set = out.get(l.page) ?? new Set<string>();
    set.add(m[1]!);
    out.set(l.page, set);
  }
  return out;
}

/** The footnote numbers of a chunk's pages, sorted numerically. */
export function footnoteMarkersFor(byPage: Map<number, Set<string>>, pageStart: number | null, pageEnd: number | null): string[] {
  if (pageStart === null) return [];
  const out = new Set<string>();
  for (let p = pageStart; p <= (pageEnd ?? pageStart); p++) for (const n of byPage.get(p) ?? []) out.add(n);
  return [...out].sort((a, b) => Number(a) - Number(b));
}
