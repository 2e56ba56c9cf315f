/**
 * Chunk hygiene checks (issue 23, item 6): passages that take an evidence slot without
 * holding anything to read.
 *
 * - heading-only: the chunk's text is its heading (and at most a few words of
 *   column labels or a capitalised subtitle), e.g. a SORA step whose body is in its
 *   subsections;
 * - interleaved columns: a multi-column layout (a glossary's term | acronym | definition)
 *   whose wrapped lines hold text in a left and a right column at once, so reading the
 *   lines in order mixes the term into the definition.
 *
 * Pure; `npx tsx corpus-build/cli/chunk-hygiene.ts [chunks.json]` counts them in an index.
 */

const collapse = (s: string) => s.replace(/\s+/g, ' ').trim();

/** Words of a text that read as prose: with a lower-case letter (not a capitalised subtitle, not a number). */
const proseWords = (s: string): number => (s.match(/[\p{L}\p{N}’'()/-]+/gu) ?? []).filter((w) => /\p{Ll}/u.test(w)).length;

/** At most this many prose words besides the heading still count as "heading only" (an edition line, a stray word). */
export const HEADING_ONLY_MAX_WORDS = 2;

/** A line of column labels (" Term    Acronym    Definition"): three or more single capitalised words apart. */
export function isColumnLabels(line: string): boolean {
  const segs = line.trim().split(/\s{3,}/);
  return segs.length >= 3 && segs.every((s) => /^\p{Lu}\p{Ll}+$/u.test(s));
}

/** True when a chunk's text is its heading and nothing a reader could cite. */
export function isHeadingOnly(chunk: { title: string; text: string }): boolean {
  const text = collapse(
    chunk.text
      .split('\n')
      .filter((l) => !isColumnLabels(l))
      .join('\n'),
  );
  const title = collapse(chunk.title);
  if (!text.startsWith(title)) return false;
  return proseWords(text.slice(title.length)) <= HEADING_ONLY_MAX_WORDS;
}

/** Lines whose text sits in two columns at once: a left segment with letters, a gap of 3+ spaces, a right segment. */
const TWO_COLUMNS = /^\s*(\S(?:.*?\S)?)\s{3,}(\S.*)$/;

/**
 * True when a text (not a table) has wrapped lines beyond its first that hold text in two columns
 * ("plan      response to an emergency"): read in order, the columns interleave.
 */
export function hasInterleavedColumns(text: string): boolean {
  const lines = text.split('\n').filter((l) => l.trim() !== '');
  let mixed = 0;
  for (const line of lines.slice(1)) {
    const m = TWO_COLUMNS.exec(line);
    // a list marker or a number on the left ("(a)   text", "2.7.2   Who …") is one column, not two
    if (m && /\p{L}{3,}/u.test(m[1]!) && !/^(?:\(?[\p{L}\p{N}]{1,3}[.)]|[—–•-])$/u.test(m[1]!)) mixed++;
  }
  return mixed > 0;
}

export interface HygieneCount {
  chunks: number;
  headingOnly: string[];
  interleavedColumns: string[];
}

/** Count the chunks of an index that fail either check (tables are laid out in columns on purpose and are skipped by the second). */
export function countHygiene(chunks: readonly { id: string; kind: string; title: string; text: string }[]): HygieneCount {
  return {
    chunks: chunks.length,
    headingOnly: chunks.filter(isHeadingOnly).map((c) => c.id),
    interleavedColumns: chunks.filter((c) => c.kind !== 'table' && hasInterleavedColumns(c.text)).map((c) => c.id),
  };
}
