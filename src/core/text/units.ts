/**
 * THE segmentation of a passage into quotable units: sentences, list items, table cells under their
 * row and column headers, footnotes. Generation (the numbered quotes a model sees), the unit ranker,
 * grounding, the evidence-only answer and its highlights, and the answer cards all read these units,
 * so what the app quotes is what a reader finds on the page — never text spliced across table
 * columns, a footnote number glued to a value, or a running header.
 *
 * The passage text stays as printed (citations and offsets refer to it); a unit carries its span in
 * that text and its reading:
 * - whitespace collapsed; a layout table read column by column within each printed row block, each
 *   cell's sentences prefixed by the headers it sits under;
 * - a footnote number glued to a word or value ("–230", "Edition 2.536", "area35") separated from it
 *   when that number is a footnote printed on the passage's pages (Chunk.footnoteMarkers);
 * - merged amendment mark-up read as the amended wording where its case marks it ("wWhen" → "When",
 *   "applicantUAS operator" → "UAS operator"), with the printed words kept in `printed`;
 * - headings and fragments that state nothing marked not quotable.
 *
 * Pure and deterministic: same text, same units.
 */
import { splitSentenceSpans } from './sentences.js';

export type UnitKind = 'sentence' | 'item' | 'cell' | 'footnote' | 'heading';

export interface TextUnit {
  /** 0-based position among the passage's units. */
  readonly n: number;
  readonly kind: UnitKind;
  /** Offsets into the passage text of the lines the unit is printed on (for highlighting). */
  readonly start: number;
  readonly end: number;
  /** The unit as a reader quotes it. */
  readonly text: string;
  /** Table cells: the row and column headers the cell sits under, as printed ("Criterion #1 (Technical design) · Medium"); footnotes: "Footnote 35". */
  readonly header?: string;
  /** Footnote numbers separated from the text. */
  readonly footnotes?: readonly string[];
  /** Merged amendment mark-up read as the amended wording ('read'). */
  readonly amendment?: 'read';
  /** The words as printed, when the reading differs (amendment read, footnote number separated). */
  readonly printed?: string;
  /** False for headings, bare references and fragments that state nothing. */
  readonly quotable: boolean;
}

/** What the segmentation reads of a passage (a Chunk fits). */
export interface UnitSource {
  readonly text: string;
  readonly title?: string;
  readonly kind?: string;
  readonly footnoteMarkers?: readonly string[];
}

/** A typed table grid (core/sora/tables/grid.ts TableGrid fits): rows with their header and cells. */
export interface GridLike {
  readonly head: readonly (readonly { readonly text: string; readonly colSpan?: number }[])[];
  readonly rows: readonly { readonly header: string; readonly cells: readonly { readonly text: string; readonly colSpan?: number }[] }[];
}

interface Line {
  text: string;
  start: number;
  end: number;
}

const ENUMERATOR = /^(\s*)(\((?:[a-z]{1,2}|\d{1,2}|[ivxl]{1,6})\)|(?:[a-z]|\d{1,2}|[ivx]{1,5})[.)]|[—–•▪-])(\s+|$)/;
const collapse = (s: string): string => s.replace(/\s+/g, ' ').trim();
const words = (s: string): number => (s.match(/[\p{L}\p{N}]+/gu) ?? []).length;

function linesOf(text: string): Line[] {
  const out: Line[] = [];
  let start = 0;
  for (const t of text.split('\n')) {
    out.push({ text: t, start, end: start + t.length });
    start += t.length + 1;
  }
  return out;
}

/** A column gap inside the line: 3+ spaces between text, not counting an enumerator's padding. */
const hasGap = (t: string): boolean => /\S {3,}\S/.test(t.replace(ENUMERATOR, '$1$2 ').trim());

// ---------------------------------------------------------------------------------------------
// readings: footnote numbers and amendment mark-up

/** A glued number's value part: what may stand before a footnote number. */
const VALUE_BEFORE_MARKER = [
  /\p{Ll}{2,}$/u, // a word: "area35", "hazards21"
  /^[–-]\d$/, // a signed digit: "–230" → "–2"
  /^\d\.\d$/, // an edition or one-decimal value: "2.536" → "2.5"
  /^\d{3,4}\/\d{4}$/, // a regulation number: "748/201211" → "748/2012"
  /^\d{4}\/\d{3,4}$/, // "2019/94512" → "2019/945"
  /\.\d{4}$/, // a point: "UAS.25122" → "UAS.2512"
  /#\d{2}$/, // an objective: "#021" → "#02"
];

/** A token's value and the footnote number glued to it, or null. */
function splitMarker(token: string, markers: ReadonlySet<string>): { value: string; marker: string } | null {
  const m = /^(.*?)(\d{1,3})([.,;:)]?)$/u.exec(token);
  if (!m) return null;
  const [, , digits, tail] = m;
  // try the longest marker first: "2.536" is "2.5" + 36 rather than "2.53" + 6
  for (let k = Math.min(3, digits!.length); k >= 1; k--) {
    const marker = digits!.slice(digits!.length - k);
    if (!markers.has(marker)) continue;
    const value = token.slice(0, token.length - tail!.length - k);
    if (value && VALUE_BEFORE_MARKER.some((re) => re.test(value))) return { value: value + tail, marker };
  }
  return null;
}

const AMENDMENT_RULES: { re: RegExp; read: (m: RegExpExecArray) => string | null }[] = [
  // "wWhen", "mMain": a struck lower-case letter before its capital replacement
  { re: /\b(\p{Ll})(\p{Lu}\p{Ll}+)/gu, read: (m) => (m[1] === m[2]![0]!.toLowerCase() ? m[2]! : null) },
  // "Ssafety": a struck capital before its lower-case replacement
  { re: /\b(\p{Lu})(\p{Ll}{2,})/gu, read: (m) => (m[1]!.toLowerCase() === m[2]![0] ? m[2]! : null) },
  // "applicantUAS", "organisationUAS": a struck word before an inserted capitalised one
  { re: /\b(\p{Ll}{3,})(\p{Lu}{2,}\p{Ll}*|\p{Lu}\p{Ll}{2,})\b/gu, read: (m) => m[2]! },
];

/**
 * Where a printed text merges struck-through and inserted words in a way its case marks ("wWhen",
 * "applicantUAS"): each merge's span in the text, the words as printed and as read (the rules the
 * units read them with). Merges the case does not mark ("receiveundergo") are not found.
 */
export function amendmentMerges(text: string): { start: number; end: number; printed: string; read: string }[] {
  const out: { start: number; end: number; printed: string; read: string }[] = [];
  for (const rule of AMENDMENT_RULES) {
    for (const m of text.matchAll(rule.re)) {
      const read = rule.read(m as RegExpExecArray);
      if (read === null) continue;
      const start = m.index;
      const end = start + m[0].length;
      if (out.some((o) => start < o.end && o.start < end)) continue;
      out.push({ start, end, printed: m[0], read });
    }
  }
  return out.sort((a, b) => a.start - b.start);
}

/** The unit text with footnote numbers separated and case-marked amendment merges read. */
function readUnit(raw: string, markers: ReadonlySet<string>): { text: string; footnotes: string[]; amended: boolean } {
  const footnotes: string[] = [];
  let text = raw;
  if (markers.size) {
    text = text
      .split(' ')
      .map((tok) => {
        const s = splitMarker(tok, markers);
        if (!s) return tok;
        footnotes.push(s.marker);
        return s.value;
      })
      .join(' ');
  }
  let amended = false;
  for (const rule of AMENDMENT_RULES) {
    text = text.replace(rule.re, (...args) => {
      const m = args.slice(0, -2) as unknown as RegExpExecArray;
      const read = rule.read(m);
      if (read === null) return m[0]!;
      amended = true;
      return read;
    });
  }
  return { text, footnotes, amended };
}

// ---------------------------------------------------------------------------------------------
// blocks of lines: prose, table, footnote

type Block = { kind: 'prose' | 'table'; lines: Line[] } | { kind: 'footnote'; marker: string; lines: Line[] };

function footnoteStart(l: Line, markers: ReadonlySet<string>): string | null {
  const m = /^\s*(\d{1,3})(?:\s*$|\s{2,}\S)/.exec(l.text);
  return m && markers.has(m[1]!) ? m[1]! : null;
}

function blocksOf(lines: Line[], markers: ReadonlySet<string>, wholeTable: boolean): Block[] {
  const blocks: Block[] = [];
  let i = 0;
  while (i < lines.length) {
    const l = lines[i]!;
    if (!l.text.trim()) {
      i++;
      continue;
    }
    const marker = footnoteStart(l, markers);
    if (marker) {
      // the footnote's lines: its own, then indented continuations up to a blank line or a new footnote
      const own = [l];
      let j = i + 1;
      while (j < lines.length && lines[j]!.text.trim() && /^\s{3,}/.test(lines[j]!.text) && !footnoteStart(lines[j]!, markers)) own.push(lines[j++]!);
      blocks.push({ kind: 'footnote', marker, lines: own });
      i = j;
      continue;
    }
    // a run of lines up to the next footnote: a table when most of its lines have column gaps
    let j = i;
    const run: Line[] = [];
    while (j < lines.length && !footnoteStart(lines[j]!, markers)) run.push(lines[j++]!);
    const body = run.filter((x) => x.text.trim());
    const gapped = body.filter((x) => hasGap(x.text)).length;
    if (wholeTable || (gapped >= 3 && gapped >= body.length * 0.4)) blocks.push(...splitTableRuns(run, wholeTable));
    else blocks.push({ kind: 'prose', lines: run });
    i = j;
  }
  return blocks;
}

/** Inside a run that holds a table, the prose paragraphs before and after it stay prose. */
function splitTableRuns(run: Line[], wholeTable: boolean): Block[] {
  if (wholeTable) return [{ kind: 'table', lines: run }];
  // paragraphs (separated by blank lines): a paragraph without a gapped line is prose
  const paras: Line[][] = [[]];
  for (const l of run) {
    if (!l.text.trim()) {
      if (paras[paras.length - 1]!.length) paras.push([]);
    } else paras[paras.length - 1]!.push(l);
  }
  const out: Block[] = [];
  for (const p of paras.filter((x) => x.length)) {
    const kind = p.some((l) => hasGap(l.text)) ? 'table' : 'prose';
    const last = out[out.length - 1];
    if (last && last.kind === kind && kind === 'table') last.lines.push({ text: '', start: p[0]!.start, end: p[0]!.start }, ...p);
    else out.push({ kind, lines: p });
  }
  return out;
}

// ---------------------------------------------------------------------------------------------
// prose: paragraphs and list items, then sentences

interface Raw {
  kind: UnitKind;
  start: number;
  end: number;
  text: string;
  header?: string;
}

/** Sentences of a flow of lines, with offsets mapped back to the passage text. */
function sentencesOf(lines: Line[], kind: UnitKind, header?: string): Raw[] {
  let flow = '';
  const at: number[] = [];
  for (const l of lines) {
    const t = l.text;
    for (let k = 0; k < t.length; k++) {
      const ch = t[k]!;
      if (/\s/.test(ch)) {
        if (flow && !flow.endsWith(' ')) {
          flow += ' ';
          at.push(l.start + k);
        }
        continue;
      }
      flow += ch;
      at.push(l.start + k);
    }
    if (flow && !flow.endsWith(' ')) {
      flow += ' ';
      at.push(l.end);
    }
  }
  const spans = splitSentenceSpans(flow);
  // a sentence that opens by pointing back ("These records …", "In other cases …") is read with the one before it:
  // quoted alone it loses its subject (found by the strict reading of quotations, docs/labelling-guide.md)
  const joined: { start: number; end: number }[] = [];
  for (const sp of spans) {
    const prev = joined[joined.length - 1];
    if (
      !header &&
      prev &&
      REFERS_BACK.test(flow.slice(sp.start, sp.end).trimStart()) &&
      !META_SENTENCE.test(flow.slice(prev.start, prev.end).trimStart()) &&
      !/\?\s*$/.test(flow.slice(prev.start, prev.end)) &&
      sp.end - prev.start <= JOIN_CHARS
    )
      prev.end = sp.end;
    else joined.push({ start: sp.start, end: sp.end });
  }
  return joined
    .map((s) => ({
      kind,
      start: at[s.start]!,
      end: (at[s.end - 1] ?? at[s.start]!) + 1,
      text: collapse(flow.slice(s.start, s.end)),
      ...(header ? { header } : {}),
    }))
    .filter((s) => s.text);
}

/**
 * Openings that refer to the sentence before: a demonstrative or pronoun subject, or a connective that
 * continues its argument. English function words, not terms of the documents.
 */
const REFERS_BACK = new RegExp(
  '^(?:' +
    [
      // "it", except the expletive "It is / should be … that / to / whether"
      'it\\b(?!\\s+(?:is|was|should be|must be|may be|can be|will be)\\s+\\w+\\s+(?:that|to|whether)\\b)',
      // a demonstrative or pronoun, except one naming a part of the text ("This Annex …")
      '(?:this|these|those|that|such|its|their|they|both|either|neither)\\b(?!\\s+(?:annex|appendix|document|section|chapter|part|amc|gm|regulation|table|figure)\\b)',
      'the (?:latter|former|same|above)\\b',
      '(?:in (?:this|that|such|other|these) cases?|in addition|additionally|however|therefore|thus|hence|moreover|furthermore|otherwise|consequently|accordingly|also|then|for (?:this|that) (?:reason|purpose))\\b',
    ].join('|') +
    ')',
  'i',
);
/** A sentence and the one it points back to are one unit up to this length; longer, each stays on its own. */
const JOIN_CHARS = 600;

function proseUnits(lines: Line[]): Raw[] {
  // items start at an enumerator; paragraphs at a blank line
  const groups: { item: boolean; lines: Line[]; indent: number }[] = [];
  let cur: { item: boolean; lines: Line[]; indent: number } | null = null;
  for (const l of lines) {
    if (!l.text.trim()) {
      cur = null;
      continue;
    }
    const indent = l.text.length - l.text.trimStart().length;
    // an item's continuation lines are indented to its text; a line further left begins a new paragraph
    const outdented = cur?.item === true && cur.lines.length > 0 && indent < cur.indent;
    if (ENUMERATOR.test(l.text) || !cur || outdented) {
      const m = ENUMERATOR.exec(l.text);
      cur = { item: m !== null, lines: [], indent: m ? m[0].length : indent };
      groups.push(cur);
    }
    cur.lines.push(l);
  }
  // an enumerator alone on its line belongs to the text after it
  const merged: typeof groups = [];
  for (const g of groups) {
    const prev = merged[merged.length - 1];
    if (prev && prev.item && prev.lines.length === 1 && !prev.lines[0]!.text.replace(ENUMERATOR, '').trim()) prev.lines.push(...g.lines);
    else merged.push(g);
  }
  const units = merged.flatMap((g) => sentencesOf(g.lines, g.item ? 'item' : 'sentence'));
  return joinListIntros(units);
}

/** A list printed after its introduction ("… corresponds to situations:") reads as one unit with it, up to this length. */
const LIST_UNIT_CHARS = 700;

/**
 * An introduction that ends with a colon says nothing on its own: it is quoted with the items that follow it
 * (as many as fit LIST_UNIT_CHARS; the rest stay units of their own).
 */
function joinListIntros(units: Raw[]): Raw[] {
  const out: Raw[] = [];
  for (let i = 0; i < units.length; i++) {
    const u = units[i]!;
    if (!/:\s*$/.test(u.text)) {
      out.push(u);
      continue;
    }
    let text = u.text;
    let end = u.end;
    let j = i + 1;
    while (j < units.length && units[j]!.kind === 'item' && text.length + 1 + units[j]!.text.length <= LIST_UNIT_CHARS) {
      text = `${text} ${units[j]!.text}`;
      end = units[j]!.end;
      j++;
    }
    out.push({ ...u, text, end });
    i = j - 1;
  }
  return out;
}

// ---------------------------------------------------------------------------------------------
// layout tables: columns from the gutters, rows from the blank lines

interface Column {
  from: number;
  to: number;
}

/** Columns of a block of layout lines: text between gutters (2+ positions blank in nearly every line). */
function columnsOf(lines: Line[]): Column[] {
  const body = lines.filter((l) => l.text.trim());
  const width = Math.max(0, ...body.map((l) => l.text.length));
  const filled = new Array<number>(width).fill(0);
  for (const l of body) for (let x = 0; x < l.text.length; x++) if (l.text[x] !== ' ') filled[x]!++;
  // a position is a gutter when at most one line in twelve prints there (a spanning line does not break it)
  const limit = Math.floor(body.length / 12);
  const cols: Column[] = [];
  let from = -1;
  let blank = 0;
  for (let x = 0; x <= width; x++) {
    const isBlank = x === width || filled[x]! <= limit;
    if (!isBlank) {
      if (from < 0) from = x;
      blank = 0;
    } else if (from >= 0) {
      blank++;
      if (blank >= 2 || x === width) {
        cols.push({ from, to: x - blank + 1 });
        from = -1;
        blank = 0;
      }
    }
  }
  return cols;
}

/** A line's text in a column, widened to whole words where a word crosses the column's edge. */
function cellOf(text: string, c: Column, next: Column | undefined): string {
  let from = c.from;
  let to = next ? next.from : text.length;
  while (from > 0 && text[from - 1] !== ' ' && text[from] !== ' ') from--;
  while (to < text.length && text[to - 1] !== ' ' && text[to] !== ' ') to++;
  return text.slice(from, to).trim();
}

/** Text runs of a line (separated by 3+ spaces) with their columns. */
function segments(l: Line): { text: string; from: number; to: number }[] {
  const out: { text: string; from: number; to: number }[] = [];
  for (const m of l.text.matchAll(/\S+(?: {1,2}\S+)*/g)) out.push({ text: m[0], from: m.index, to: m.index + m[0].length });
  return out;
}

const overlap = (a: { from: number; to: number }, b: { from: number; to: number }): number => Math.max(0, Math.min(a.to, b.to) - Math.max(a.from, b.from));

function tableUnits(lines: Line[]): Raw[] {
  // row blocks: separated by blank lines; each block has its own columns (sub-tables shift them)
  const rows: Line[][] = [[]];
  for (const l of lines) {
    if (!l.text.trim()) {
      if (rows[rows.length - 1]!.length) rows.push([]);
    } else rows[rows.length - 1]!.push(l);
  }
  const blocks = rows.filter((r) => r.length);
  if (!blocks.length) return [];
  // column headers: the first lines of short runs ("LEVEL of ASSURANCE" / "Medium   High") above longer cell text;
  // the last of them names the columns
  const first = blocks[0]!;
  // header lines sit above the data columns (they start right of the row labels below them), or are a row of short labels
  const indentOf = (l: Line) => l.text.length - l.text.trimStart().length;
  let peel = 0;
  while (peel < Math.min(4, first.length - 1)) {
    const segs = segments(first[peel]!);
    const restMin = Math.min(...first.slice(peel + 1).map(indentOf));
    const aboveData = indentOf(first[peel]!) > restMin + 4 && segs.every((x) => x.text.length <= 30);
    const labels = segs.length >= 3 && segs.every((x) => x.text.length <= 20);
    if (!aboveData && !labels) break;
    peel++;
  }
  const headLine = peel > 0 ? segments(first[peel - 1]!) : [];
  const headers = headLine.length >= 2 ? headLine : [];
  if (headers.length) {
    if (peel < first.length) blocks[0] = first.slice(peel);
    else blocks.shift();
  }
  const dataFrom = headers.length ? Math.min(...headers.map((h) => h.from)) - 4 : Infinity;
  const out: Raw[] = [];
  for (const block of blocks) {
    const cols = columnsOf(block);
    if (cols.length < 2) {
      out.push(...proseUnits(block));
      continue;
    }
    const cells = cols.map((c, k) =>
      collapse(
        block
          .map((l) => cellOf(l.text, c, cols[k + 1]))
          .filter(Boolean)
          .join(' '),
      ),
    );
    // the row's label: the columns left of the first headed column (or the first column of a table without headers)
    const labelCols = cols.map((c, k) => (headers.length ? c.to <= dataFrom + 6 : k === 0 && cols.length >= 3));
    const rowLabel = cells.filter((_, k) => labelCols[k]).join(' · ');
    const span = { start: block[0]!.start, end: block[block.length - 1]!.end };
    cols.forEach((c, k) => {
      if (!cells[k] || labelCols[k]) return;
      const h = headers.length ? headers.reduce((best, x) => (overlap(x, c) > overlap(best, c) ? x : best), headers[0]!) : null;
      const colName = h && overlap(h, c) > 0 ? h.text : '';
      const header = [rowLabel, colName].filter(Boolean).join(' · ');
      for (const sent of splitSentenceSpans(cells[k]!)) out.push({ kind: 'cell', ...span, text: collapse(sent.text), ...(header ? { header } : {}) });
    });
  }
  return out;
}

// ---------------------------------------------------------------------------------------------
// a layout table as a grid of its printed cells (the answer cards show it so)

/** A printed cell: its lines' text in the column (line breaks kept where a list item or a sentence ends), and its printed width in characters. */
export interface PrintedCell {
  readonly text: string;
  readonly width: number;
}

/**
 * A row of a layout table: its printed cells (`header`: the column headers printed above the first row),
 * or its lines as printed where its columns could not be told apart (a run of text crosses a column edge).
 */
export type PrintedRow =
  { readonly kind: 'cells'; readonly header?: true; readonly cells: readonly PrintedCell[] } | { readonly kind: 'printed'; readonly text: string };

/** A cell's lines as one text: a line break kept before an enumerator and after a line that ends a sentence or a list entry. */
function cellText(lines: readonly string[]): string {
  let out = '';
  for (const raw of lines) {
    const l = collapse(raw);
    if (!l) continue;
    if (!out) out = l;
    else if (ENUMERATOR.test(l) || /[.;:]$/.test(out)) out += `\n${l}`;
    else out += ` ${l}`;
  }
  return out;
}

/** Leading lines of a table's first row block that are its column headers: short runs set over the data columns, right of the row labels. */
function headerLines(block: Line[]): number {
  const indentOf = (l: Line) => l.text.length - l.text.trimStart().length;
  let peel = 0;
  while (peel < Math.min(4, block.length - 1)) {
    const segs = segments(block[peel]!);
    const restMin = Math.min(...block.slice(peel + 1).map(indentOf));
    if (!(indentOf(block[peel]!) > restMin + 4 && segs.every((x) => x.text.length <= 30))) break;
    peel++;
  }
  return peel;
}

/**
 * A layout table (a passage of kind 'table') as rows of printed cells, by the reading the units use:
 * row blocks at the blank lines, columns at the gutters of each block, the header lines above the first
 * row under the columns they stand over. No cell takes a word from another column: where a printed run
 * crosses a column edge, or a column holds a gap as wide as a gutter (two printed columns read as one),
 * that row is kept as printed. Null when no row has two columns.
 */
export function printedTableRows(source: UnitSource): PrintedRow[] | null {
  const markers = new Set(source.footnoteMarkers ?? []);
  const rows: PrintedRow[] = [];
  const widest = (ls: readonly Line[]) => Math.max(1, ...ls.map((l) => l.text.trim().length));
  let first = true;
  for (const b of blocksOf(linesOf(source.text), markers, source.kind === 'table')) {
    if (b.kind !== 'table') {
      const text = cellText(b.lines.map((l) => l.text));
      if (text) rows.push({ kind: 'cells', cells: [{ text, width: widest(b.lines) }] });
      continue;
    }
    const blocks: Line[][] = [[]];
    for (const l of b.lines) {
      if (!l.text.trim()) {
        if (blocks[blocks.length - 1]!.length) blocks.push([]);
      } else blocks[blocks.length - 1]!.push(l);
    }
    for (const whole of blocks.filter((x) => x.length)) {
      const peel = first ? headerLines(whole) : 0;
      first = false;
      const block = whole.slice(peel);
      const cols = columnsOf(block);
      const edges = cols.map((c, k) => ({ from: c.from, to: cols[k + 1]?.from ?? Infinity }));
      // a run across a column edge, or a wide gap inside a column (two printed columns read as one): not told apart
      const crosses = (l: Line) =>
        segments(l).some((run) => edges.filter((e) => overlap(run, e) > 0).length > 1) ||
        edges.some((e) => /\S {6,}\S/.test(l.text.slice(e.from, e.to === Infinity ? undefined : e.to).trim()));
      if (cols.length < 2) {
        rows.push({ kind: 'cells', cells: [{ text: cellText(whole.map((l) => l.text)), width: widest(whole) }] });
        continue;
      }
      if (block.some(crosses)) {
        rows.push({ kind: 'printed', text: whole.map((l) => l.text.trimEnd()).join('\n') });
        continue;
      }
      const width = (k: number) => (cols[k + 1]?.from ?? cols[k]!.to) - cols[k]!.from;
      if (peel) {
        // each header run under the column it stands over most
        const head = cols.map(() => [] as string[]);
        for (const l of whole.slice(0, peel))
          for (const run of segments(l)) {
            let best = 0;
            edges.forEach((e, k) => {
              if (overlap(run, e) > overlap(run, edges[best]!)) best = k;
            });
            head[best]!.push(run.text);
          }
        rows.push({ kind: 'cells', header: true, cells: head.map((h, k) => ({ text: h.join(' '), width: width(k) })) });
      }
      const slice = (l: Line, k: number) => l.text.slice(cols[k]!.from, edges[k]!.to === Infinity ? undefined : edges[k]!.to);
      // a line that fills every column is a row of its own (a matrix: "Low integrity   Low robustness   Low robustness")
      const lineRows = block.length > 1 && block.every((l) => cols.every((_, k) => slice(l, k).trim()));
      for (const ls of lineRows ? block.map((l) => [l]) : [block])
        rows.push({ kind: 'cells', cells: cols.map((_, k) => ({ text: cellText(ls.map((l) => slice(l, k))), width: width(k) })) });
    }
  }
  return rows.some((r) => r.kind === 'cells' && r.cells.length > 1) ? rows : null;
}

function gridUnits(grid: GridLike, text: string): Raw[] {
  // head: the last header row names the columns (a merged head cell spans several)
  const last = grid.head[grid.head.length - 1] ?? [];
  const columnNames: string[] = [];
  for (const c of last.slice(1)) for (let k = 0; k < (c.colSpan ?? 1); k++) columnNames.push(c.text);
  const out: Raw[] = [];
  for (const r of grid.rows) {
    let k = 0;
    for (const c of r.cells) {
      const name = columnNames[k] ?? '';
      k += c.colSpan ?? 1;
      const at = text.indexOf(r.header.split(' ')[0] ?? '');
      out.push({ kind: 'cell', start: Math.max(0, at), end: text.length, text: collapse(c.text), header: [r.header, name].filter(Boolean).join(' · ') });
    }
  }
  return out;
}

// ---------------------------------------------------------------------------------------------

/** The passage's units, in reading order. `grid`: the typed table this passage is, when there is one. */
export function segmentUnits(source: UnitSource, grid?: GridLike | null): TextUnit[] {
  const markers = new Set(source.footnoteMarkers ?? []);
  const lines = linesOf(source.text);
  const raws: Raw[] = [];
  // the passage's own heading, printed as its first line
  const firstIdx = lines.findIndex((l) => l.text.trim());
  const title = collapse(source.title ?? '');
  let from = 0;
  if (firstIdx >= 0 && title && collapse(lines[firstIdx]!.text) && title.startsWith(collapse(lines[firstIdx]!.text).slice(0, 40))) {
    const l = lines[firstIdx]!;
    raws.push({ kind: 'heading', start: l.start + (l.text.length - l.text.trimStart().length), end: l.end, text: collapse(l.text) });
    from = firstIdx + 1;
  }
  const rest = lines.slice(from);
  if (grid) raws.push(...gridUnits(grid, source.text));
  else
    for (const b of blocksOf(rest, markers, source.kind === 'table')) {
      if (b.kind === 'footnote') {
        const first = b.lines[0]!;
        const body = b.lines.map((l, i) => (i === 0 ? { ...l, text: l.text.replace(/^\s*\d{1,3}/, (d) => ' '.repeat(d.length)) } : l));
        const text = collapse(body.map((l) => l.text).join(' '));
        if (text) raws.push({ kind: 'footnote', start: first.start, end: b.lines[b.lines.length - 1]!.end, text, header: `Footnote ${b.marker}` });
      } else if (b.kind === 'table') raws.push(...tableUnits(b.lines));
      else raws.push(...proseUnits(b.lines));
    }
  // a short numbered entry ("I.17. Assurance") defines its heading: its first sentence is quoted under the term it defines
  const term = definedTerm(raws[0]?.kind === 'heading' ? raws[0].text : '', source.text.length);
  const first = raws.findIndex((x) => x.kind !== 'heading');
  if (term && first > 0 && raws[first]!.kind === 'sentence' && !raws[first]!.header) raws[first] = { ...raws[first]!, header: term };
  return raws.map((r, n) => {
    const read = r.kind === 'heading' ? { text: r.text, footnotes: [], amended: false } : readUnit(r.text, r.kind === 'footnote' ? new Set<string>() : markers);
    // a table read across interleaved columns, or a restatement's sentence about itself, is no quotation of a rule
    if (r.kind === 'cell' && garbledCell(read.text, r.header ?? '')) return unit(r, n, read, false);
    if (META_SENTENCE.test(read.text) || notProse(`${r.header ?? ''} ${read.text}`)) return unit(r, n, read, false);
    // the passage's first words, continuing a sentence of the part before it ("mitigations are applied."), are no statement of their own
    const continuation = n === raws.findIndex((x) => x.kind !== 'heading') && r.kind === 'sentence' && /^\p{Ll}/u.test(read.text);
    return unit(r, n, read, r.kind !== 'heading' && !continuation && isStatement(read.text, r.kind));
  });
}

/** The term a numbered glossary-style entry defines: its heading without the number, when short, over a short passage. */
function definedTerm(heading: string, passageChars: number): string | null {
  // one level and a closing dot ("I.84. Involved person"): a glossary entry, not a section ("S.4.5.4 Instructions")
  const m = /^(?:[A-Z]{1,2}\.)?\d+\.\s+(.+)$/.exec(heading);
  if (!m || passageChars > DEFINITION_CHARS) return null;
  const t = m[1]!.trim();
  return words(t) >= 1 && words(t) <= 5 && !/[.:;]$/.test(t) ? t : null;
}
/** Glossary entries are a few lines; a longer passage under a numbered heading is a section, not a definition. */
const DEFINITION_CHARS = 1000;

function unit(r: Raw, n: number, read: { text: string; footnotes: string[]; amended: boolean }, quotable: boolean): TextUnit {
  return {
    n,
    kind: r.kind,
    start: r.start,
    end: Math.max(r.start, r.end),
    text: read.text,
    ...(r.header ? { header: r.header } : {}),
    ...(read.footnotes.length ? { footnotes: read.footnotes } : {}),
    ...(read.amended ? { amendment: 'read' as const } : {}),
    ...(read.text !== r.text ? { printed: r.text } : {}),
    quotable,
  };
}

/**
 * Text that is no sentence a reader would quote: a formula (the extraction scatters its mathematical letters and
 * fractions over the lines) or a row of capitals (a table's title or group label).
 */
function notProse(text: string): boolean {
  if (/[\u{1D400}-\u{1D7FF}]/u.test(text)) return true;
  const words = text.match(/\p{L}{2,}/gu) ?? [];
  const caps = words.filter((w) => w === w.toUpperCase() && w.length > 2).length;
  return words.length >= 4 && caps / words.length >= 0.5;
}

/** The restatements' sentences about themselves ("This content addresses …", "The information defines …"). */
const META_SENTENCE = /^(?:this|the) (?:content|information|text|passage|section|chunk)\b/i;

/**
 * A table cell whose columns were printed interleaved line by line, so its words come from several cells:
 * a row label longer than a label, a footnote digit standing between two words, or a word or pair of words
 * printed twice in a row ("populated area populated area", "bands bands").
 */
export function garbledCell(text: string, header: string): boolean {
  if (header.length > 80) return true;
  const all = `${header} ${text}`;
  // brackets opened in one cell and closed in another: the words were read across cells
  const opened = (all.match(/\(/g) ?? []).length;
  if (opened !== (all.match(/\)/g) ?? []).length) return true;
  if (/\b\p{Ll}{2,} \d \p{Ll}{2,}\b/u.test(all)) return true;
  const w = all.toLowerCase().match(/[\p{L}\p{N}]+/gu) ?? [];
  for (let i = 1; i < w.length; i++) if (w[i] === w[i - 1] && w[i]!.length > 2) return true;
  for (let i = 3; i < w.length; i++) if (w[i] === w[i - 2] && w[i - 1] === w[i - 3] && w[i]!.length > 2) return true;
  return false;
}

/**
 * A unit a reader could quote as saying something: words, not a bare reference, an elision or an
 * enumerator; a short sentence or list item without closing punctuation is a heading ("(e) Emergency
 * response plan (ERP)"), though a short table cell is a value.
 */
function isStatement(text: string, kind: UnitKind): boolean {
  const t = text.replace(ENUMERATOR, '').trim();
  if (!t || /^\[?…\]?$/.test(t) || /^(?:https?:\/\/|www\.)\S+$/.test(t)) return false;
  if ((kind === 'sentence' || kind === 'item') && words(t) <= 8 && !/[.;:!?]["'’”)]*$/.test(t)) return false;
  return words(t) >= 3 || /\d/.test(t);
}

/** The units a unit-level consumer quotes: the quotable ones. */
export const quotableUnits = (units: readonly TextUnit[]): TextUnit[] => units.filter((u) => u.quotable);

/** How a unit reads with its headers, as quoted in an answer ("Criterion #1 · Medium: The UAS designer …"). */
export const unitQuote = (u: Pick<TextUnit, 'text' | 'header'>): string => (u.header ? `${u.header}: ${u.text}` : u.text);
