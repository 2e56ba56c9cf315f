/**
 * A PDF's text layer laid out for the chunker (issue 26, item 6): pdfjs gives positioned text
 * runs with their font size; here they become lines, paragraphs (a vertical gap wider than the
 * page's usual line spacing) and headings (a line printed larger than the body text, set apart
 * as its own paragraph), so that src/core/ingest/generic-chunker.ts chunkSections finds the
 * document's sections. Also the default title of an added file: a PDF's title metadata or its
 * first page's main heading, a Markdown heading, an HTML title, or a text's first line standing
 * alone. Pure (no pdfjs, no DOM except the inert DOMParser handed in).
 */
import { headingOf } from '../../core/ingest/generic-chunker.js';
import { MAX_TITLE_CHARS } from '../../core/userdocs/form.js';

/** A text run of a PDF page (a pdfjs text item): baseline position and font size in PDF units (y upwards). */
export interface PdfRun {
  str: string;
  x: number;
  y: number;
  width: number;
  size: number;
  /** pdfjs says a line ends after this run. */
  eol: boolean;
}

/** pdfjs text items as runs (marked-content items dropped). */
export function pdfRuns(items: readonly unknown[]): PdfRun[] {
  const out: PdfRun[] = [];
  for (const it of items) {
    if (typeof it !== 'object' || it === null || !('str' in it)) continue;
    const t = it as { str: unknown; transform?: unknown; width?: unknown; height?: unknown; hasEOL?: unknown };
    if (typeof t.str !== 'string') continue;
    const m = Array.isArray(t.transform) ? (t.transform as unknown[]).map((v) => (typeof v === 'number' && Number.isFinite(v) ? v : 0)) : [];
    const [a = 0, b = 0, c = 0, d = 0, e = 0, f = 0] = m;
    const height = typeof t.height === 'number' && Number.isFinite(t.height) ? t.height : 0;
    const size = Math.hypot(c, d) || Math.hypot(a, b) || height;
    out.push({ str: t.str, x: e, y: f, width: typeof t.width === 'number' && Number.isFinite(t.width) ? t.width : 0, size, eol: t.hasEOL === true });
  }
  return out;
}

interface PdfLine {
  text: string;
  y: number;
  size: number;
}

/** A line at least this many times the body text's size is a heading. */
export const HEADING_SIZE = 1.15;
/** A gap between lines wider than this many usual line spacings starts a paragraph. */
export const PARAGRAPH_GAP = 1.45;
/** Longest line (characters) taken as a heading by its size. */
const MAX_HEADING_CHARS = 150;

/** Lines of a page in the order pdfjs gives the runs: a new line at pdfjs's line end or at a baseline change. */
function pdfLines(runs: readonly PdfRun[]): PdfLine[] {
  const lines: PdfLine[] = [];
  let cur: { text: string; y: number; size: number; end: number } | null = null;
  const close = (): void => {
    const text = cur ? cur.text.replace(/\s+/g, ' ').trim() : '';
    if (cur && text) lines.push({ text, y: cur.y, size: cur.size });
    cur = null;
  };
  for (const r of runs) {
    if (r.str !== '') {
      if (cur && Math.abs(r.y - cur.y) > 0.5 * Math.max(1, Math.min(cur.size || r.size, r.size || cur.size))) close();
      if (!cur) {
        cur = { text: r.str, y: r.y, size: r.str.trim() ? r.size : 0, end: r.x + r.width };
      } else {
        const spaced = /\s$/.test(cur.text) || /^\s/.test(r.str);
        cur.text += !spaced && r.x - cur.end > 0.15 * r.size ? ` ${r.str}` : r.str;
        if (r.str.trim()) cur.size = Math.max(cur.size, r.size);
        cur.end = r.x + r.width;
      }
    }
    if (r.eol) close();
  }
  close();
  return lines;
}

/** The most frequent value by weight, rounded to half units; null when there is none. */
function weightedMode(values: readonly { v: number; w: number }[]): number | null {
  const count = new Map<number, number>();
  for (const { v, w } of values) {
    const k = Math.round(v * 2) / 2;
    count.set(k, (count.get(k) ?? 0) + w);
  }
  let best: number | null = null;
  for (const [v, w] of count) if (best === null || w > count.get(best)!) best = v;
  return best;
}

/**
 * A PDF's pages as text the chunker reads by its headings: paragraphs separated by an empty
 * line, a line printed larger than the body text (the size most of the text is printed in) set
 * apart as its own paragraph, consecutive lines of one heading joined into one line. Also the
 * first page's most prominent heading (its largest printed line), a default title.
 */
export function layoutPdf(pages: readonly (readonly PdfRun[])[]): { pages: string[]; firstHeading: string | null } {
  const linesOf = pages.map(pdfLines);
  const body = weightedMode(linesOf.flat().map((l) => ({ v: l.size, w: l.text.length }))) ?? 0;
  const isHeading = (l: PdfLine): boolean => body > 0 && l.size >= body * HEADING_SIZE && l.text.length <= MAX_HEADING_CHARS;
  const gaps: number[] = [];
  for (const lines of linesOf) {
    for (let i = 1; i < lines.length; i++) {
      const g = lines[i - 1]!.y - lines[i]!.y;
      if (!isHeading(lines[i]!) && !isHeading(lines[i - 1]!) && g > 0 && g < 3 * body) gaps.push(g);
    }
  }
  gaps.sort((a, b) => a - b);
  const spacing = gaps.length ? gaps[Math.floor(gaps.length / 2)]! : 1.2 * body;
  const firstPage = linesOf.findIndex((l) => l.length > 0);
  let firstHeading: { text: string; size: number } | null = null;
  const out = linesOf.map((lines, pageIndex) => {
    const paras: { lines: string[]; heading: boolean; size: number }[] = [];
    let prev: PdfLine | null = null;
    for (const line of lines) {
      const heading = isHeading(line);
      const last = paras[paras.length - 1];
      const gap = prev ? prev.y - line.y : 0;
      if (last?.heading && heading && Math.abs(last.size - line.size) < 0.5 && gap > 0 && gap <= 1.6 * line.size)
        last.lines[0] = `${last.lines[0]} ${line.text}`;
      else if (last && !last.heading && !heading && gap > 0 && gap <= PARAGRAPH_GAP * spacing) last.lines.push(line.text);
      else paras.push({ lines: [line.text], heading, size: line.size });
      prev = line;
    }
    if (pageIndex === firstPage) {
      for (const p of paras) if (p.heading && (!firstHeading || p.size > firstHeading.size)) firstHeading = { text: p.lines[0]!, size: p.size };
    }
    return paras.map((p) => p.lines.join('\n')).join('\n\n');
  });
  const heading = firstHeading as { text: string } | null;
  return { pages: out, firstHeading: heading ? clipTitle(heading.text) : null };
}

/** A title of at most `max` characters, cut at a word. */
export function clipTitle(t: string, max = MAX_TITLE_CHARS): string {
  const s = t.replace(/\s+/g, ' ').trim();
  if (s.length <= max) return s;
  const cut = s.slice(0, max);
  return cut.slice(0, Math.max(cut.lastIndexOf(' '), max / 2)).replace(/[\s,;:–—-]+$/, '');
}

/** A PDF's title as its metadata gives it, or null when there is none or it is not a title (a file name, "Untitled", a word processor's "Microsoft Word - …"). */
export function metadataTitle(title: unknown): string | null {
  if (typeof title !== 'string') return null;
  const t = title.replace(/\s+/g, ' ').trim();
  if (
    !/\p{L}{2}/u.test(t) ||
    /^(untitled|unbenannt|sans titre|document\d*|title|titel)$/i.test(t) ||
    /^microsoft (word|powerpoint|excel)\b/i.test(t) ||
    /\.[a-z0-9]{2,5}$/i.test(t)
  )
    return null;
  return clipTitle(t);
}

/** A title printed at the top of a text: a Markdown "#" heading, else a short first line standing alone. */
export function titleFromText(text: string, format: 'text' | 'markdown'): string | null {
  if (format === 'markdown') {
    const h = /^\s{0,3}#{1,2}\s+(.+?)\s*#*\s*$/m.exec(text)?.[1];
    const t = h?.replace(/[*_`]/g, '').trim();
    if (t) return clipTitle(t);
  }
  const lines = text
    .replace(/^\uFEFF/, '')
    .trimStart()
    .split(/\r?\n/);
  const line = lines[0]?.trim() ?? '';
  if (!line || (lines[1] ?? '').trim() !== '' || !headingOf(line, true)) return null;
  return clipTitle(line);
}

/** An HTML document's title: its <title>, else its first <h1> (text only, from the inert parsed document). */
export function htmlTitle(html: string, parser: Pick<DOMParser, 'parseFromString'>): string | null {
  const doc = parser.parseFromString(html, 'text/html');
  const t = (doc.title || doc.querySelector('h1')?.textContent || '').replace(/\s+/g, ' ').trim();
  return t ? clipTitle(t) : null;
}
