/**
 * Table regions in layout text. A caption ("Table 5 — Mitigations ...") sits below
 * its table; the table body is found by walking up from the caption over blocks
 * that look tabular (column gaps, short cells) and stopping at running prose,
 * a heading, or another caption. Notes printed between the body and the caption
 * (lines starting with "—", "Note", "*") and notes right under the caption are
 * part of the table.
 */
import { FIGURE_CAPTION, TABLE_CAPTION, collapse } from './easa-structure.js';

export interface TableLine {
  text: string;
  footnote: boolean;
  page: number | null;
}

export interface TableRegion {
  /** Index of the first line of the region (inclusive). */
  start: number;
  /** Index of the last line of the region (inclusive). */
  end: number;
  /** Index of the caption line. */
  caption: number;
  /** Caption as printed, whitespace collapsed ("Table 5 — Mitigations for the determination of the final GRC"). */
  captionText: string;
  /** The table's number as printed ("5", "B.1"). */
  number: string;
}

const ENUMERATOR = /^(?:\((?:[a-z]{1,2}|\d{1,2}|[ivx]{1,5})\)|(?:[a-z]|\d{1,2}|[ivx]{1,5})[.)]|[—–•-])\s+/;

/**
 * Running text: after an enumerator, no column gap and a sentence-like length, and
 * not pushed far right of the page's text margin (then it is a cell of a column).
 */
export function isProseLine(text: string, margin = 0): boolean {
  const indent = /^ */.exec(text)![0].length;
  if (indent - margin >= 12) return false;
  const t = text.trim().replace(ENUMERATOR, '');
  if (/\S\s{3,}\S/.test(t)) return false;
  return t.length >= 55;
}

/** A column gap (3+ spaces between cells), ignoring a leading enumerator's padding. */
export function hasColumnGap(text: string): boolean {
  return /\S\s{3,}\S/.test(text.trim().replace(ENUMERATOR, ''));
}

const NOTE_START = /^\s*(?:[—–•*]|Note\b|NOTE\b)/;

/**
 * Find table regions given the lines and a predicate telling which lines are
 * structural headings (a table never extends over a heading).
 */
export function findTableRegions(lines: TableLine[], isHeading: (i: number) => boolean): TableRegion[] {
  const regions: TableRegion[] = [];
  // the left text margin of each page
  const margins = new Map<number | null, number>();
  for (const l of lines) {
    if (l.footnote || l.text.trim() === '') continue;
    const ind = /^ */.exec(l.text)![0].length;
    margins.set(l.page, Math.min(margins.get(l.page) ?? Infinity, ind));
  }
  const prose = (l: TableLine): boolean => isProseLine(l.text, margins.get(l.page) ?? 0);
  const isCaption = (i: number): boolean => TABLE_CAPTION.test(lines[i]!.text) || FIGURE_CAPTION.test(lines[i]!.text);
  for (let c = 0; c < lines.length; c++) {
    const m = TABLE_CAPTION.exec(lines[c]!.text);
    if (!m) continue;
    // a caption is a centred line on its own, not a sentence citing a table
    if (!/^\s{2,}/.test(lines[c]!.text) && lines[c]!.text.trim().length > 100) continue;
    let captionEnd = c;
    // captions may wrap onto a second centred line
    const next = lines[c + 1]?.text ?? '';
    if (/^\s{10,}\S/.test(next) && next.trim().length < 60 && !/\s{3,}\S.*\s{3,}/.test(next.trim())) captionEnd = c + 1;
    let start = c;
    let i = c - 1;
    let phase: 'notes' | 'body' = 'notes';
    const floor = regions.length ? regions[regions.length - 1]!.end + 1 : 0;
    while (i >= floor) {
      // blank lines
      let j = i;
      while (j >= floor && lines[j]!.text.trim() === '') j--;
      if (j < floor) break;
      // block [b0, j]
      let b0 = j;
      while (b0 - 1 >= floor && lines[b0 - 1]!.text.trim() !== '') b0--;
      const block = lines.slice(b0, j + 1);
      // a heading or another caption inside the block: keep only the table rows below it
      let barrier = -1;
      for (let k = b0; k <= j; k++) if (isHeading(k) || isCaption(k)) barrier = k;
      if (barrier >= 0) {
        let k = barrier + 1;
        while (k <= j && (prose(lines[k]!) || lines[k]!.footnote)) k++;
        const rows = lines.slice(k, j + 1);
        // accept them when they open with a header row and carry further column rows
        if (rows.length > 1 && hasColumnGap(rows[0]!.text) && rows.slice(1).some((l) => hasColumnGap(l.text))) start = k;
        break;
      }
      if (block.every((l) => l.footnote)) {
        start = b0;
        i = b0 - 1;
        continue;
      }
      const content = block.filter((l) => !l.footnote);
      const first = content[0]!.text;
      if (phase === 'notes' && NOTE_START.test(first)) {
        start = b0;
        i = b0 - 1;
        continue;
      }
      phase = 'body';
      const proseCount = content.filter(prose).length;
      const firstHasGap = hasColumnGap(first);
      if (!firstHasGap && (prose(content[0]!) || proseCount * 2 >= content.length)) {
        // running text: keep only table rows printed after its last prose line
        let k = j;
        while (k > b0 && !prose(lines[k]!)) k--;
        if (k < j && lines.slice(k + 1, j + 1).every((l) => hasColumnGap(l.text) || l.footnote)) start = k + 1;
        break;
      }
      start = b0;
      i = b0 - 1;
    }
    // a table never starts with footnotes or blank lines of the previous page
    while (start < c && (lines[start]!.text.trim() === '' || lines[start]!.footnote)) start++;
    // notes right under the caption
    let end = captionEnd;
    let k = captionEnd + 1;
    while (k < lines.length && lines[k]!.text.trim() === '' && k - captionEnd <= 2) k++;
    if (k < lines.length && /^\s*(?:Note\b|NOTE\b|\*)/.test(lines[k]!.text) && !isHeading(k)) {
      end = k;
      while (end + 1 < lines.length && lines[end + 1]!.text.trim() !== '' && !isHeading(end + 1)) end++;
    }
    const captionText = collapse(
      lines
        .slice(c, captionEnd + 1)
        .map((l) => l.text)
        .join(' '),
    );
    regions.push({ start, end, caption: c, captionText, number: m[2]! });
    c = end;
  }
  return regions;
}
