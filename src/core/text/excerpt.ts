/**
 * A keyword excerpt for the Library's results: the window of a passage with the most query words,
 * cut at word boundaries, with the offsets of the matched words inside the excerpt (whole words;
 * a query word also matches words it begins, as the Library search does with prefixes).
 */
import { contentTokens } from './tokenize.js';

export interface Excerpt {
  readonly text: string;
  /** Offsets into `text` of the matched words. */
  readonly ranges: readonly { readonly start: number; readonly end: number }[];
  readonly leadingEllipsis: boolean;
  readonly trailingEllipsis: boolean;
}

export function keywordExcerpt(text: string, query: string, maxChars = 240): Excerpt {
  const terms = [...new Set(contentTokens(query))].filter((t) => t.length >= 2);
  const flat = text.replace(/\s+/g, ' ').trim();
  const words: { start: number; end: number; hit: boolean }[] = [];
  for (const m of flat.matchAll(/[\p{L}\p{N}]+/gu)) {
    const w = m[0].toLowerCase();
    words.push({ start: m.index, end: m.index + m[0].length, hit: terms.some((t) => w === t || (t.length >= 3 && w.startsWith(t))) });
  }
  // the window start (a word) whose span of maxChars holds the most distinct hits
  let bestStart = 0;
  let bestScore = -1;
  for (let i = 0; i < words.length; i++) {
    if (!words[i]!.hit && i !== 0) continue;
    const limit = words[i]!.start + maxChars;
    const seen = new Set<string>();
    for (let j = i; j < words.length && words[j]!.end <= limit; j++) if (words[j]!.hit) seen.add(flat.slice(words[j]!.start, words[j]!.end).toLowerCase());
    if (seen.size > bestScore) {
      bestScore = seen.size;
      bestStart = i;
    }
  }
  // start a little before the first hit, at a word boundary
  let from = words[bestStart]?.start ?? 0;
  const lead = words
    .slice(0, bestStart)
    .reverse()
    .find((w) => from - w.start > 40);
  if (bestStart > 0) from = lead ? (words[words.indexOf(lead) + 1]?.start ?? from) : 0;
  let to = Math.min(flat.length, from + maxChars);
  if (to < flat.length) {
    const lastWord = words.filter((w) => w.end <= to).pop();
    if (lastWord) to = lastWord.end;
  }
  const slice = flat.slice(from, to);
  const ranges = words.filter((w) => w.hit && w.start >= from && w.end <= to).map((w) => ({ start: w.start - from, end: w.end - from }));
  return { text: slice, ranges, leadingEllipsis: from > 0, trailingEllipsis: to < flat.length };
}
