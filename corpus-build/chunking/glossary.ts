/**
 * A glossary entry laid out in three columns (term | acronym | definition) with the term
 * and the acronym wrapping beside the definition. Read line by line the columns interleave
 * ("Emergency response ERP Plan of actions … in plan response to …"); this reads them
 * column by column instead: "I.56. Emergency response plan (ERP)" and then the definition.
 *
 * The columns are read from the entry's own first line: its number, then segments separated
 * by runs of three or more spaces (term, [acronym,] definition). Text on a later line is
 * definition when it starts at the definition's column (within a two-character tolerance),
 * else acronym or term by the same rule.
 */
import type { LayoutLine } from '../loaders/easa-layout.js';
import { isColumnLabels } from './hygiene.js';

const TOLERANCE = 2;

interface Segment {
  start: number;
  text: string;
}

/** The segments of a line separated by runs of three or more spaces, with their columns. */
export function columnSegments(line: string): Segment[] {
  const out: Segment[] = [];
  const re = /\S(?:.*?\S)?(?=\s{3,}|\s*$)/g;
  for (const m of line.matchAll(re)) out.push({ start: m.index!, text: m[0] });
  return out;
}

/** A column header such as " Term    Acronym    Definition" (hygiene.ts). */
export const isColumnHeader = isColumnLabels;

const ENTRY = /^(\s*)(\p{Lu}\.\d+\.)(\s+)(\S.*)$/u;

/**
 * Rewrite a glossary entry's lines column by column; null when its first line does not have
 * the entry layout (number, term, definition), in which case the lines are kept as they are.
 * Footnote lines and blank lines stay where they are; column headers repeated at page tops go.
 */
export function readGlossaryColumns(lines: LayoutLine[]): LayoutLine[] | null {
  const first = lines.findIndex((l) => !l.footnote && l.text.trim() !== '');
  if (first < 0) return null;
  const head = lines[first]!;
  const m = ENTRY.exec(head.text);
  if (!m) return null;
  const offset = m[1]!.length + m[2]!.length + m[3]!.length;
  const segs = columnSegments(m[4]!).map((s) => ({ start: s.start + offset, text: s.text }));
  if (segs.length < 2) return null;
  const def = segs[segs.length - 1]!.start;
  const acrCol = segs.length >= 3 ? segs[1]!.start : null;
  const term = [segs[0]!.text];
  const acronym =
    segs.length >= 3
      ? [
          segs
            .slice(1, -1)
            .map((s) => s.text)
            .join(' '),
        ]
      : [];
  const body: LayoutLine[] = [{ ...head, text: head.text.slice(def) }];
  for (const line of lines.slice(first + 1)) {
    if (line.footnote || line.text.trim() === '') {
      body.push(line);
      continue;
    }
    if (isColumnHeader(line.text)) continue;
    const parts = columnSegments(line.text);
    const defPart = parts.find((s) => s.start >= def - TOLERANCE);
    for (const s of parts) {
      if (defPart && s.start >= defPart.start) break;
      if (acrCol !== null && s.start >= acrCol - TOLERANCE) acronym.push(s.text);
      else term.push(s.text);
    }
    if (defPart) body.push({ ...line, text: `${' '.repeat(Math.max(0, defPart.start - def))}${line.text.slice(defPart.start)}` });
  }
  const acr = acronym.join(' ').replace(/\s+/g, ' ').trim();
  const heading = `${m[1]}${m[2]} ${term.join(' ').replace(/\s+/g, ' ').trim()}${acr ? ` (${acr})` : ''}`;
  // the heading on its own line, the definition below it (its own indentation kept, relative to its column)
  return [...lines.slice(0, first), { ...head, text: heading }, ...body];
}
