/**
 * Highlighting a chunk's text without HTML: the text is cut into segments, each marked or
 * not, and the view renders them with text interpolation (<mark>{segment.text}</mark>).
 */
import { splitSentenceSpans } from '../core/text/sentences';
import { contentTokens, tokenize } from '../core/text/tokenize';

export interface TextRange {
  start: number;
  end: number;
}

export interface Segment {
  text: string;
  mark: boolean;
}

/** Merge overlapping or touching ranges, clamp to [0, length], drop empty ones. */
export function normalizeRanges(ranges: readonly TextRange[], length: number): TextRange[] {
  const sorted = ranges
    .map((r) => ({ start: Math.max(0, Math.min(length, r.start)), end: Math.max(0, Math.min(length, r.end)) }))
    .filter((r) => r.end > r.start)
    .sort((a, b) => a.start - b.start);
  const out: TextRange[] = [];
  for (const r of sorted) {
    const last = out[out.length - 1];
    if (last && r.start <= last.end) last.end = Math.max(last.end, r.end);
    else out.push({ ...r });
  }
  return out;
}

/** Cut `text` into marked / unmarked segments by the ranges. */
export function segmentsFromRanges(text: string, ranges: readonly TextRange[]): Segment[] {
  const out: Segment[] = [];
  let pos = 0;
  for (const r of normalizeRanges(ranges, text.length)) {
    if (r.start > pos) out.push({ text: text.slice(pos, r.start), mark: false });
    out.push({ text: text.slice(r.start, r.end), mark: true });
    pos = r.end;
  }
  if (pos < text.length) out.push({ text: text.slice(pos), mark: false });
  return out;
}

/**
 * The sentences of a chunk that best match the claims citing it (term overlap of content
 * tokens, at least `minOverlap` of the claim's distinct tokens). One sentence per claim.
 */
export function citedPassageRanges(chunkText: string, claims: readonly string[], minOverlap = 0.3): TextRange[] {
  const spans = splitSentenceSpans(chunkText);
  const spanTokens = spans.map((s) => new Set(contentTokens(s.text)));
  const out: TextRange[] = [];
  for (const claim of claims) {
    const q = [...new Set(contentTokens(claim))];
    if (!q.length) continue;
    let best = -1;
    let bestScore = 0;
    spanTokens.forEach((toks, i) => {
      const score = q.filter((t) => toks.has(t)).length / q.length;
      if (score > bestScore) {
        bestScore = score;
        best = i;
      }
    });
    if (best >= 0 && bestScore >= minOverlap) out.push({ start: spans[best]!.start, end: spans[best]!.end });
  }
  return normalizeRanges(out, chunkText.length);
}

/** Ranges of the words of `query` (content tokens) in `text`, case-insensitive, whole words. */
export function termRanges(text: string, query: string): TextRange[] {
  const terms = new Set(contentTokens(query));
  if (!terms.size) return [];
  const out: TextRange[] = [];
  const re = /[\p{L}\p{N}]+/gu;
  for (const m of text.matchAll(re)) {
    const [tok] = tokenize(m[0]);
    if (tok && terms.has(tok)) out.push({ start: m.index, end: m.index + m[0].length });
  }
  return out;
}
