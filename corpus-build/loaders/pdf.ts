/**
 * Generic PDF loader: text lines per page, in reading order, via pdfjs-dist (Node legacy build).
 *
 * pdfjs in Node: there is no Web Worker, so pdfjs runs its "fake worker" in the same thread; it
 * loads the worker module by dynamic import of `GlobalWorkerOptions.workerSrc`, which in Node
 * defaults to `./pdf.worker.mjs` next to the legacy `pdf.mjs` — nothing to configure. We only pass
 * `standardFontDataUrl` (a file-system directory in Node) so that PDFs using non-embedded
 * standard fonts get correct glyph widths, and `verbosity: ERRORS` to keep pdfjs quiet.
 *
 * Layout model: lines are rebuilt from positioned text items (same baseline within a tolerance,
 * ordered by x, a space where the gap between items is wider than a fraction of the font size).
 * Single-column reading order (top to bottom) is assumed. A vertical gap clearly larger than the
 * page's usual line spacing becomes an empty line, so chunkers can find paragraphs.
 */
import { createRequire } from 'node:module';
import path from 'node:path';
import type { TextItem } from 'pdfjs-dist/types/src/display/api.js';
import { SourceFormatError } from '../errors.js';
import type { LoadDiagnostics, PageAwareDocument, SourceLine } from '../../src/core/ingest/document-model.js';

/** A text run on a page, in PDF user-space units (origin bottom-left). */
export interface PositionedText {
  str: string;
  /** Left edge of the run. */
  x: number;
  /** Baseline. */
  y: number;
  /** Advance width of the run. */
  width: number;
  /** Font size (height of the em square). */
  fontSize: number;
}

export interface LoadPdfOptions {
  /** Lines (trimmed) matching any of these are running headers/footers and are dropped. */
  headerFooterPatterns?: RegExp[];
  /**
   * Seam around per-page extraction: called for every page with the default extractor; whatever
   * it returns (or throws) is used instead. Lets tests inject a page failure; also usable for
   * instrumentation. Default: `(page, extract) => extract()`.
   */
  extractPage?: (page: number, extract: () => Promise<PositionedText[]>) => Promise<PositionedText[]>;
}

/** A rebuilt line of a page. */
interface PageLine {
  text: string;
  y: number;
  fontSize: number;
}

/** pdfjs verbosity level "errors only" (VerbosityLevel.ERRORS). */
const PDFJS_ERRORS_ONLY = 0;

/** Items whose baselines differ by at most this fraction of the font size share a line. */
const SAME_LINE_TOLERANCE = 0.35;
/** A horizontal gap wider than this fraction of the font size is a word space. */
const WORD_GAP = 0.15;
/** A horizontal gap wider than this many font sizes is a column gap (rendered as two spaces). */
const COLUMN_GAP = 1.5;
/** A line gap wider than this multiple of the page's usual line spacing starts a paragraph. */
const PARAGRAPH_GAP = 1.4;

let pdfjsModule: Promise<typeof import('pdfjs-dist/legacy/build/pdf.mjs')> | undefined;
/** Load pdfjs lazily (it is large, and only PDF sources need it). */
function pdfjs(): Promise<typeof import('pdfjs-dist/legacy/build/pdf.mjs')> {
  pdfjsModule ??= import('pdfjs-dist/legacy/build/pdf.mjs');
  return pdfjsModule;
}

/** Directory of pdfjs' standard font data, with trailing separator; undefined if not found. */
function standardFontDataDir(): string | undefined {
  try {
    const pkg = createRequire(import.meta.url).resolve('pdfjs-dist/package.json');
    return path.join(path.dirname(pkg), 'standard_fonts') + path.sep;
  } catch {
    return undefined;
  }
}

/** Convert pdfjs text items to positioned runs (marked-content markers and empty runs dropped). */
export function toPositioned(items: ReadonlyArray<unknown>): PositionedText[] {
  const out: PositionedText[] = [];
  for (const it of items) {
    if (typeof it !== 'object' || it === null || !('str' in it)) continue;
    const t = it as TextItem;
    if (t.str === '' || !Array.isArray(t.transform)) continue;
    const [a, b, c, d, e, f] = t.transform as number[];
    const fontSize = Math.hypot(c ?? 0, d ?? 0) || Math.hypot(a ?? 0, b ?? 0) || t.height || 1;
    out.push({ str: t.str, x: e ?? 0, y: f ?? 0, width: t.width, fontSize });
  }
  return out;
}

/**
 * Rebuild lines from positioned runs: runs whose baselines are within a tolerance form a line,
 * ordered by x; lines are ordered top to bottom. Whitespace-only lines are dropped.
 */
export function buildLines(runs: readonly PositionedText[]): PageLine[] {
  const sorted = [...runs].sort((p, q) => q.y - p.y || p.x - q.x);
  const groups: PositionedText[][] = [];
  for (const run of sorted) {
    const g = groups[groups.length - 1];
    const ref = g?.[0];
    if (g && ref && Math.abs(ref.y - run.y) <= SAME_LINE_TOLERANCE * Math.min(ref.fontSize, run.fontSize)) {
      g.push(run);
    } else {
      groups.push([run]);
    }
  }
  const lines: PageLine[] = [];
  for (const g of groups) {
    g.sort((p, q) => p.x - q.x);
    let text = '';
    let prevEnd: number | null = null;
    let fontSize = 0;
    for (const run of g) {
      fontSize = Math.max(fontSize, run.fontSize);
      if (prevEnd !== null) {
        const gap = run.x - prevEnd;
        const em = run.fontSize;
        const hasSpace = /\s$/.test(text) || /^\s/.test(run.str);
        if (gap > COLUMN_GAP * em) text = text.trimEnd() + '  ' + run.str.trimStart();
        else if (gap > WORD_GAP * em && !hasSpace) text += ' ' + run.str;
        else text += run.str;
      } else {
        text = run.str;
      }
      prevEnd = Math.max(prevEnd ?? -Infinity, run.x + run.width);
    }
    text = text.replace(/\s+$/, '').replace(/^\s+/, '');
    if (text !== '') lines.push({ text, y: g[0]!.y, fontSize });
  }
  return lines;
}

/** Usual baseline-to-baseline distance of a page: the lower quartile of its line gaps. */
function usualLineSpacing(lines: readonly PageLine[]): number | null {
  const gaps: number[] = [];
  for (let i = 1; i < lines.length; i++) gaps.push(lines[i - 1]!.y - lines[i]!.y);
  const positive = gaps.filter((g) => g > 0).sort((p, q) => p - q);
  if (positive.length === 0) return null;
  return positive[Math.floor((positive.length - 1) / 4)]!;
}

const matchesAny = (text: string, patterns: readonly RegExp[]): boolean =>
  patterns.some((p) => {
    p.lastIndex = 0; // a /g or /y pattern would otherwise carry state between lines
    return p.test(text);
  });

const nonWs = (s: string): number => s.replace(/\s+/g, '').length;

/**
 * Load a PDF into a page-aware document.
 *
 * Page numbers are 1-based PDF page indices. Lines matching `headerFooterPatterns` are removed
 * (counted in `diagnostics.strippedLines`). A page that fails to load or to extract is listed in
 * `diagnostics.unreadablePages` with a warning, and loading continues with the next page; a page
 * with no text at all only gets a warning (it may be blank or a scanned image).
 *
 * Note: pdfjs repairs a damaged page tree by truncating it at the first broken page, so a broken
 * page in the middle of a file can also hide the pages after it (pageCount then shrinks).
 *
 * @throws SourceFormatError when the file cannot be opened as a PDF at all.
 */
export async function loadPdf(bytes: Uint8Array, sourceId: string, opts: LoadPdfOptions = {}): Promise<PageAwareDocument> {
  const patterns = opts.headerFooterPatterns ?? [];
  const extractHook = opts.extractPage ?? ((_page, extract) => extract());
  const { getDocument } = await pdfjs();

  const task = getDocument({
    // A copy: pdfjs transfers (detaches) the buffer it is given, which would empty the caller's
    // array; and pdfjs wants a plain Uint8Array, not a Node Buffer.
    data: new Uint8Array(bytes),
    verbosity: PDFJS_ERRORS_ONLY,
    isEvalSupported: false,
    standardFontDataUrl: standardFontDataDir(),
  });

  let pdf: Awaited<typeof task.promise>;
  try {
    pdf = await task.promise;
  } catch (e) {
    await task.destroy().catch(() => undefined);
    throw new SourceFormatError(
      sourceId,
      'the file',
      'PDF',
      `the file is not a readable PDF (${(e as Error).message}). Check that it is the complete, ` +
        `uncorrupted PDF (re-download it) and not another format renamed .pdf.`,
    );
  }

  const diagnostics: LoadDiagnostics = { strippedLines: 0, contentChars: 0, unreadablePages: [], warnings: [] };
  const lines: SourceLine[] = [];
  let lineNo = 0;

  try {
    for (let pageNo = 1; pageNo <= pdf.numPages; pageNo++) {
      let runs: PositionedText[];
      try {
        runs = await extractHook(pageNo, async () => {
          const page = await pdf.getPage(pageNo);
          try {
            const content = await page.getTextContent();
            return toPositioned(content.items);
          } finally {
            page.cleanup();
          }
        });
      } catch (e) {
        const reason = e instanceof Error ? e.message : String(e);
        diagnostics.unreadablePages.push({ page: pageNo, reason });
        diagnostics.warnings.push(`${sourceId}: page ${pageNo} could not be read and is skipped: ${reason}`);
        continue;
      }

      const kept: PageLine[] = [];
      for (const line of buildLines(runs)) {
        if (matchesAny(line.text, patterns)) diagnostics.strippedLines++;
        else kept.push(line);
      }
      if (kept.length === 0) {
        diagnostics.warnings.push(`${sourceId}: page ${pageNo} has no text ` + `(blank, a scanned image, or a damaged content stream).`);
        continue;
      }

      const spacing = usualLineSpacing(kept);
      kept.forEach((line, i) => {
        const prev = kept[i - 1];
        if (prev && spacing !== null) {
          const gap = prev.y - line.y;
          if (gap > PARAGRAPH_GAP * spacing && gap > 1.2 * Math.max(prev.fontSize, line.fontSize)) {
            lines.push({ text: '', page: pageNo, lineNo: ++lineNo });
          }
        }
        diagnostics.contentChars += nonWs(line.text);
        lines.push({ text: line.text, page: pageNo, lineNo: ++lineNo });
      });
    }
    return { sourceId, pageCount: pdf.numPages, lines, diagnostics };
  } finally {
    await pdf.destroy();
  }
}
