/**
 * Loader for EASA layout text (a layout-preserving extraction of an EASA PDF).
 *
 * Every page of such a text ends with a footer line, e.g.
 *   `Annex to ED Decision 2025/018/R            Page 24 of 204`
 * followed by the running header of the next page (two centred lines). The loader
 * attributes each line to the page whose footer follows it, removes footers and
 * running headers, and marks footnote blocks at the bottom of pages so the chunker
 * can treat them as part of the page but not as structure.
 */
import type { LoadDiagnostics, PageAwareDocument, SourceLine } from '../../src/core/ingest/document-model.js';

export interface LayoutTextOptions {
  /** Footer line; group 1 = page number, group 2 = page count. */
  footer: RegExp;
  /** Running-header lines that follow a footer, in order. */
  header: RegExp[];
}

/** The layout of `easa-amc-gm-2019-947/source.txt`. */
export const EASA_AMC_GM_LAYOUT: LayoutTextOptions = {
  footer: /^\s*Annex to ED Decision \d{4}\/\d{3}\/R\s+Page (\d+) of (\d+)\s*$/,
  header: [/^\s*AMC & GM to Regulation \(EU\) 2019\/947\s*$/, /^\s*Issue 1, Amendment \d+\s*$/],
};

export interface LayoutLine extends SourceLine {
  /** True for lines of a footnote block at the bottom of a page. */
  footnote: boolean;
}

export interface LayoutDocument extends PageAwareDocument {
  lines: LayoutLine[];
}

const nonWs = (s: string): number => s.replace(/\s+/g, '').length;

/**
 * Split layout text into pages, strip footers and running headers, keep page numbers.
 * Lines after the last footer (if any) are attributed to the page after it.
 */
export function loadLayoutText(text: string, sourceId: string, options: LayoutTextOptions = EASA_AMC_GM_LAYOUT): LayoutDocument {
  const raw = text.replace(/\r\n?/g, '\n').split('\n');
  const diagnostics: LoadDiagnostics = { strippedLines: 0, contentChars: 0, unreadablePages: [], warnings: [] };
  const lines: LayoutLine[] = [];
  let pending: { text: string; lineNo: number }[] = [];
  let pageCount: number | null = null;
  let lastPage = 0;
  let headerIdx = -1; // >= 0 while skipping the running header after a footer

  const flush = (page: number): void => {
    for (const p of pending) lines.push({ text: p.text, page, lineNo: p.lineNo, footnote: false });
    pending = [];
  };

  raw.forEach((line, i) => {
    const lineNo = i + 1;
    const m = options.footer.exec(line);
    if (m) {
      const page = Number(m[1]);
      pageCount = Number(m[2]);
      if (page !== lastPage + 1) {
        diagnostics.warnings.push(`Footer on line ${lineNo} says page ${page}; expected ${lastPage + 1}.`);
      }
      flush(page);
      lastPage = page;
      diagnostics.strippedLines++;
      headerIdx = 0;
      return;
    }
    if (headerIdx >= 0) {
      if (line.trim() === '') return; // blank lines between footer and header
      const expected = options.header[headerIdx];
      if (expected && expected.test(line)) {
        diagnostics.strippedLines++;
        headerIdx++;
        if (headerIdx >= options.header.length) headerIdx = -1;
        return;
      }
      headerIdx = -1; // not a header after all: keep the line
    }
    pending.push({ text: line.replace(/\s+$/, ''), lineNo });
  });
  if (pending.some((p) => p.text.trim() !== '')) {
    diagnostics.warnings.push(`${pending.length} lines after the last footer were attributed to page ${lastPage + 1}.`);
  }
  flush(lastPage + 1);

  markFootnotes(lines);
  diagnostics.contentChars = lines.reduce((n, l) => n + nonWs(l.text), 0);
  if (pageCount !== null && lastPage !== pageCount) {
    diagnostics.warnings.push(`Last footer is page ${lastPage} but the document declares ${pageCount} pages.`);
  }
  return { sourceId, pageCount, lines, diagnostics };
}

const FOOTNOTE_START = /^\s{0,6}(\d{1,3})(?:\s{2,}(\S.*))?$/;

/**
 * Footnotes sit at the bottom of a page and are numbered in sequence through the
 * document. A line starts a footnote block when it is `<n>  text` (or `<n>` alone)
 * with n within a few numbers after the last footnote seen, and every following
 * non-blank line up to the page end is a footnote start or an indented continuation.
 */
function markFootnotes(lines: LayoutLine[]): void {
  let last = 0;
  let start = 0;
  while (start < lines.length) {
    const page = lines[start]!.page;
    let end = start;
    while (end < lines.length && lines[end]!.page === page) end++;
    // scan this page [start, end)
    for (let i = start; i < end; i++) {
      const m = FOOTNOTE_START.exec(lines[i]!.text);
      if (!m) continue;
      const n = Number(m[1]);
      if (n < last || n > last + 3 || n === 0) continue;
      // every later non-blank line on the page must be a footnote start or an indented continuation
      let ok = true;
      let expect = n;
      for (let j = i + 1; j < end; j++) {
        const t = lines[j]!.text;
        if (t.trim() === '') continue;
        const mj = FOOTNOTE_START.exec(t);
        if (mj && Number(mj[1]) > expect && Number(mj[1]) <= expect + 2) {
          expect = Number(mj[1]);
          continue;
        }
        if (/^\s{4,}\S/.test(t) || /^\s*https?:\/\//.test(t)) continue;
        ok = false;
        break;
      }
      if (!ok) continue;
      for (let j = i; j < end; j++) lines[j]!.footnote = true;
      last = expect;
      break;
    }
    start = end;
  }
}
