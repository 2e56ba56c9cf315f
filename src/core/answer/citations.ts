/**
 * Citation markers. The model cites context chunks with `[chunk-id]` markers
 * exactly as they appear in the context block, e.g.
 * `[easa-amc-gm-2019-947/amc1-art11/s4.2.3/table-1]` or
 * `[skysafe-sora-curated/17]`. A chunk id always has at least one "/", which
 * tells a marker apart from "[1]", "[NO CONTEXT]" or a bracketed remark. One
 * bracket may hold several ids separated by "," or ";".
 *
 * For display, markers are numbered [1], [2]… in order of first appearance and
 * the number → chunk id mapping is kept for the sources panel.
 */

import { CHUNK_ID, citedIds, cleanId, MARKER, parseCitations, stripCitations, type CitationMarker } from '../text/citation-markers.js';

export { citedIds, parseCitations, stripCitations, type CitationMarker };

export interface RemovedCitation {
  /** The id as the model wrote it. */
  id: string;
  /** Offset of the marker that held it, in the text before removal. */
  at: number;
}

export interface FilteredCitations {
  /** The text with unknown ids removed (a marker left without ids is removed entirely). */
  text: string;
  /** Ids that were not in the context, in order of appearance (repeats kept, one entry per occurrence). */
  removed: RemovedCitation[];
  /** Known ids cited, in order of first appearance, spelled as in the context. */
  kept: string[];
}

/**
 * Keep only citations of chunks that were in the context. Matching is
 * case-insensitive and the kept id is rewritten to the context's spelling, so a
 * model that changed case still cites the right chunk.
 */
export function filterCitations(text: string, knownIds: Iterable<string>): FilteredCitations {
  const byLower = new Map<string, string>();
  for (const id of knownIds) byLower.set(id.toLowerCase(), id);
  const removed: RemovedCitation[] = [];
  const kept = new Set<string>();
  let out = '';
  let last = 0;
  for (const m of parseCitations(text)) {
    const good: string[] = [];
    for (const id of m.ids) {
      const known = byLower.get(id.toLowerCase());
      if (known) {
        good.push(known);
        kept.add(known);
      } else removed.push({ id, at: m.start });
    }
    let before = text.slice(last, m.start);
    if (good.length) out += before + `[${good.join(', ')}]`;
    else {
      // drop the marker and the space that separated it from the previous word
      if (/[ \t]$/.test(before) && /^[\s.,;:!?)]|^$/.test(text.slice(m.end))) before = before.replace(/[ \t]+$/, '');
      out += before;
    }
    last = m.end;
  }
  out += text.slice(last);
  return { text: out, removed, kept: [...kept] };
}

export interface NumberedCitations {
  /** The text with each marker replaced by its numbers, e.g. "[1]" or "[1, 2]". */
  text: string;
  /** Chunk ids in order of first appearance: `order[n - 1]` is cited as [n]. */
  order: string[];
  /** chunk id → display number. */
  numberOf: Record<string, number>;
}

/** Number cited chunks [1], [2]… in order of first appearance, for display. */
export function numberCitations(text: string): NumberedCitations {
  const numberOf: Record<string, number> = {};
  const order: string[] = [];
  const out = text.replace(MARKER, (_whole, inner: string) => {
    const nums: number[] = [];
    for (const id of inner.split(/[,;]/).map(cleanId).filter(Boolean)) {
      if (!(id in numberOf)) {
        order.push(id);
        numberOf[id] = order.length;
      }
      const n = numberOf[id]!;
      if (!nums.includes(n)) nums.push(n);
    }
    return `[${nums.join(', ')}]`;
  });
  return { text: out, order, numberOf };
}

/** A claim as one line of text with its `[chunk-id]` marker, e.g. "… is required [a/b, c/d]" (no marker without sources). */
export function claimLine(text: string, sources: readonly string[]): string {
  const body = text.trim().replace(/\s+/g, ' ');
  return sources.length ? `${body} [${sources.join(', ')}]` : body;
}

/**
 * Chunk ids present as `[chunk-id]` markers in a context block assembled by
 * `assembleContext` (each block starts with "[id] title — docId, [edition, ]page N").
 */
export function contextChunkIds(context: string): string[] {
  const ids: string[] = [];
  const re = new RegExp(String.raw`^\[(${CHUNK_ID})\] `, 'gm');
  for (const m of context.matchAll(re)) if (!ids.includes(m[1]!)) ids.push(m[1]!);
  return ids;
}

/**
 * Numbered context markers. Small on-device models rarely copy a long path-like
 * id such as `[easa-amc-gm-2019-947/amc1-art11/s2.4/table-1]`, but they do cite
 * "[1]" (measured with Qwen2.5-Coder 0.5B and 1.5B on real output: docs/answers.md).
 * With `citationMarkers: 'number'` the context block sent to the model numbers its
 * passages [1], [2]… in order, and the model's numbers are turned back into chunk
 * ids as they arrive, so everything after generation (the filter, the grounding
 * check, the display numbering, the audit record) sees `[chunk-id]` markers.
 */
export interface NumberedContext {
  /** The context block with each passage header's `[chunk-id]` replaced by `[n]`. */
  context: string;
  /** `ids[n - 1]` is the chunk numbered n. */
  ids: string[];
}

/** Number the passages of a context block assembled by `assembleContext`. */
export function numberContextMarkers(context: string): NumberedContext {
  const ids: string[] = [];
  const re = new RegExp(String.raw`^\[(${CHUNK_ID})\] `, 'gm');
  const out = context.replace(re, (_whole, id: string) => {
    let n = ids.indexOf(id) + 1;
    if (!n) n = ids.push(id);
    return `[${n}] `;
  });
  return { context: out, ids };
}

/** One number as a model writes it: "1", "Passage 1", "source 2", "#3". */
const NUM = String.raw`(?:(?:passage|source|chunk|context)\s*|#)?\d{1,3}`;
const NUMBER_MARKER = new RegExp(String.raw`\[\s*(${NUM}(?:\s*(?:[,;]|and)\s*${NUM})*)\s*\]`, 'gi');

/** The id a number outside the context becomes: it has the form of a chunk id, so `filterCitations` removes and records it. */
export const outOfContextId = (n: number): string => `context/${n}`;

/**
 * Numbered markers turned back into `[chunk-id]` markers: "[2]" → "[id2]", "[1, 3]" →
 * "[id1, id3]". A number outside 1…ids.length becomes `outOfContextId(n)`, so the
 * citation filter removes it and records it, as it does for an invented id.
 */
export function resolveNumberMarkers(text: string, ids: readonly string[]): string {
  return text.replace(NUMBER_MARKER, (_whole, inner: string) => {
    const nums = inner.split(/[,;]|and/i).map((s) => Number(/\d+/.exec(s)?.[0]));
    return `[${nums.map((n) => ids[n - 1] ?? outOfContextId(n)).join(', ')}]`;
  });
}

/**
 * `resolveNumberMarkers` for a stream of deltas: text after an unclosed "[" is held
 * back until its "]" arrives (or the bracket has grown too long to be a marker), so a
 * marker split across tokens ("[", "1", "]") is resolved whole.
 */
export class NumberMarkerStream {
  private held = '';
  constructor(private readonly ids: readonly string[]) {}

  /** The resolved text that can be shown after this delta. */
  push(delta: string): string {
    this.held += delta;
    const open = this.held.lastIndexOf('[');
    if (open >= 0 && !this.held.includes(']', open) && this.held.length - open <= 40) {
      const ready = this.held.slice(0, open);
      this.held = this.held.slice(open);
      return resolveNumberMarkers(ready, this.ids);
    }
    const ready = this.held;
    this.held = '';
    return resolveNumberMarkers(ready, this.ids);
  }

  /** Whatever is still held, at the end of the stream. */
  flush(): string {
    const rest = this.held;
    this.held = '';
    return resolveNumberMarkers(rest, this.ids);
  }
}
