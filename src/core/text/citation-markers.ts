/**
 * `[chunk-id]` citation markers in text: a chunk id always has at least one "/", which tells a
 * marker apart from "[1]", "[NO CONTEXT]" or a bracketed remark; one bracket may hold several ids
 * separated by "," or ";". Used by answers and by the indicator workflow's display alike.
 */

/** One id segment: letters, digits, ".", "_", "-" (ids in the index use lower case, digits, "-", "." and "/"). */
export const CHUNK_ID = String.raw`[A-Za-z0-9][A-Za-z0-9._-]*(?:/[A-Za-z0-9._-]+)+`;
export const MARKER = new RegExp(String.raw`\[\s*(${CHUNK_ID}(?:\s*[,;]\s*${CHUNK_ID})*)\s*\]`, 'g');

/** A chunk id as cited: trailing dots (sentence punctuation caught inside the bracket) removed. */
export const cleanId = (raw: string): string => raw.trim().replace(/\.+$/, '');

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
  return text
    .replace(MARKER, '')
    .replace(/[ \t]+([.,;:!?])/g, '$1')
    .replace(/[ \t]{2,}/g, ' ')
    .trim();
}
