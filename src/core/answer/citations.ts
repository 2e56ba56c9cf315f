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

/** One id segment: letters, digits, ".", "_", "-" (ids in the index use lower case, digits, "-", "." and "/"). */
const ID = String.raw`[A-Za-z0-9][A-Za-z0-9._-]*(?:/[A-Za-z0-9._-]+)+`;
const MARKER = new RegExp(String.raw`\[\s*(${ID}(?:\s*[,;]\s*${ID})*)\s*\]`, 'g');

/** A chunk id as cited: trailing dots (sentence punctuation caught inside the bracket) removed. */
const cleanId = (raw: string): string => raw.trim().replace(/\.+$/, '');

export interface CitationMarker {
  /** The marker as written, e.g. "[a/b, c/d]". */
  raw: string;
  /** Offsets of the marker in the text. */
  start: number;
  end: number;
  /** Chunk ids in the marker, in order. */
  ids: string[];
}

/** All citation markers in `text`, in order. */
export function parseCitations(text: string): CitationMarker[] {
  const out: CitationMarker[] = [];
  for (const m of text.matchAll(MARKER)) {
    const ids = m[1]!.split(/[,;]/).map(cleanId).filter(Boolean);
    out.push({ raw: m[0], start: m.index, end: m.index + m[0].length, ids });
  }
  return out;
}

/** Distinct chunk ids cited in `text`, in order of first appearance. */
export function citedIds(text: string): string[] {
  const seen = new Set<string>();
  for (const m of parseCitations(text)) for (const id of m.ids) seen.add(id);
  return [...seen];
}

/** Remove all citation markers (for comparing claim text with sources). */
export function stripCitations(text: string): string {
  return text.replace(MARKER, '').replace(/[ \t]+([.,;:!?])/g, '$1').replace(/[ \t]{2,}/g, ' ').trim();
}

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

/**
 * Chunk ids present as `[chunk-id]` markers in a context block assembled by
 * `assembleContext` (each block starts with "[id] title — docId, page N").
 */
export function contextChunkIds(context: string): string[] {
  const ids: string[] = [];
  const re = new RegExp(String.raw`^\[(${ID})\] `, 'gm');
  for (const m of context.matchAll(re)) if (!ids.includes(m[1]!)) ids.push(m[1]!);
  return ids;
}
