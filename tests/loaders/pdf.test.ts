import { describe, it, expect } from 'vitest';
import { PDFDocument, StandardFonts } from 'pdf-lib';
import { loadPdf } from '../../corpus-build/loaders/pdf.js';
import { SourceFormatError } from '../../corpus-build/errors.js';

const HEADER = 'Riverside Model Flying Club - Field Handbook (invented sample)';
const patterns = [/^Riverside Model Flying Club - Field Handbook/, /^Page \d+ of \d+$/];

/** Invented body text: two paragraphs of two lines per page. */
const paragraphsOf = (n: number): string[][] => [
  [`Section ${n}. Pilots sign the field book before the first flight of the day.`, `The duty officer checks each entry at noon and again at dusk.`],
  [`Batteries for page ${n} flights are charged in the metal cabinet only.`, `Nobody leaves a charger running while the clubhouse is empty.`],
];

/**
 * A three-page A4 PDF with a running header, two paragraphs and a footer "Page N of 3" per page.
 * Drawing order is deliberately not reading order: footer first, paragraphs bottom-up, and the
 * first body line drawn in two pieces right-half first.
 */
async function samplePdf(): Promise<Uint8Array> {
  const doc = await PDFDocument.create();
  const font = await doc.embedFont(StandardFonts.Helvetica);
  const size = 11;
  for (let n = 1; n <= 3; n++) {
    const page = doc.addPage([595, 842]);
    page.drawText(`Page ${n} of 3`, { x: 270, y: 40, size: 9, font });
    const [p1, p2] = paragraphsOf(n);
    // second paragraph first, starting at y = 640 (paragraph gap 28pt vs line spacing 14pt)
    p2!.forEach((line, i) => page.drawText(line, { x: 72, y: 640 - 14 * i, size, font }));
    // first paragraph: line 1 split into two runs, right run drawn first
    const [l1, l2] = p1!;
    const cut = l1!.indexOf(' sign ');
    const left = l1!.slice(0, cut);
    const right = l1!.slice(cut + 1);
    const rightX = 72 + font.widthOfTextAtSize(left + ' ', size);
    page.drawText(right, { x: rightX, y: 682, size, font });
    page.drawText(left, { x: 72, y: 682, size, font });
    page.drawText(l2!, { x: 72, y: 668, size, font });
    page.drawText(HEADER, { x: 72, y: 800, size: 9, font });
  }
  return doc.save({ useObjectStreams: false });
}

/** Overwrite the `N 0 obj` header of page `pageNo`'s page object with garbage. */
function corruptPageObject(bytes: Uint8Array, pageNo: number): Uint8Array {
  const text = Buffer.from(bytes).toString('latin1');
  const pageObjects = [...text.matchAll(/\d+ 0 obj\s*<<\s*\/Type \/Page\b(?!s)/g)];
  const target = pageObjects[pageNo - 1];
  if (!target) throw new Error(`page object ${pageNo} not found`);
  const out = new Uint8Array(bytes);
  out.set(new TextEncoder().encode('%% damaged %%'), target.index);
  return out;
}

describe('loadPdf', () => {
  it('reads pages in order with 1-based page numbers, reading order and headers/footers stripped', async () => {
    const bytes = await samplePdf();
    const doc = await loadPdf(bytes, 'sample', { headerFooterPatterns: patterns });
    expect(bytes.byteLength).toBeGreaterThan(0); // the caller's bytes are not detached by pdfjs
    expect(doc.sourceId).toBe('sample');
    expect(doc.pageCount).toBe(3);
    expect(doc.diagnostics.unreadablePages).toEqual([]);
    expect(doc.diagnostics.strippedLines).toBe(6);
    for (let n = 1; n <= 3; n++) {
      const [p1, p2] = paragraphsOf(n);
      const page = doc.lines.filter((l) => l.page === n).map((l) => l.text);
      // paragraph gap → one empty line between the two paragraphs
      expect(page).toEqual([...p1!, '', ...p2!]);
    }
    expect(doc.lines.map((l) => l.lineNo)).toEqual(doc.lines.map((_, i) => i + 1));
    expect(doc.lines.some((l) => /Page \d of 3|Field Handbook/.test(l.text))).toBe(false);
    const kept = doc.lines.map((l) => l.text).join('');
    expect(doc.diagnostics.contentChars).toBe(kept.replace(/\s+/g, '').length);
  });

  it('keeps header and footer lines when no pattern is given', async () => {
    const doc = await loadPdf(await samplePdf(), 'sample');
    expect(doc.diagnostics.strippedLines).toBe(0);
    const page2 = doc.lines.filter((l) => l.page === 2).map((l) => l.text);
    expect(page2[0]).toBe(HEADER);
    expect(page2.at(-1)).toBe('Page 2 of 3');
  });

  it('throws SourceFormatError naming the source for a truncated PDF and for garbage', async () => {
    const good = await samplePdf();
    for (const bad of [good.slice(0, 400), new TextEncoder().encode('this is not a PDF'), new Uint8Array(0)]) {
      const err = await loadPdf(bad, 'broken-src').catch((e: unknown) => e);
      expect(err).toBeInstanceOf(SourceFormatError);
      expect((err as Error).message).toMatch(/"broken-src".*not a readable PDF/s);
    }
  });

  it('reports a page whose object is damaged as unreadable and still loads the other pages', async () => {
    const bytes = corruptPageObject(await samplePdf(), 3);
    const doc = await loadPdf(bytes, 'sample', { headerFooterPatterns: patterns });
    expect(doc.diagnostics.unreadablePages.map((u) => u.page)).toEqual([3]);
    expect(doc.diagnostics.unreadablePages[0]!.reason).not.toBe('');
    expect(doc.diagnostics.warnings.some((w) => /page 3 could not be read/.test(w))).toBe(true);
    expect([...new Set(doc.lines.map((l) => l.page))]).toEqual([1, 2]);
    expect(doc.lines.filter((l) => l.page === 2).map((l) => l.text)[0]).toBe(paragraphsOf(2)[0]![0]);
  });

  it('continues after a failing page in the middle (failure injected through extractPage)', async () => {
    const doc = await loadPdf(await samplePdf(), 'sample', {
      headerFooterPatterns: patterns,
      extractPage: (page, extract) => (page === 2 ? Promise.reject(new Error('injected failure')) : extract()),
    });
    expect(doc.diagnostics.unreadablePages).toEqual([{ page: 2, reason: 'injected failure' }]);
    expect([...new Set(doc.lines.map((l) => l.page))]).toEqual([1, 3]);
    expect(doc.pageCount).toBe(3);
  });
});
