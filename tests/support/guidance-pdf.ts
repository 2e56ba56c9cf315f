/**
 * A small invented national guidance PDF for the user-document tests (issue 26, item 6): two
 * pages, a title printed at 18 pt, numbered headings at 13 pt, body text at 10 pt; optionally
 * a title in its metadata. Read in Node with pdfjs' legacy build, as the browser reads it.
 */
import { createRequire } from 'node:module';
import path from 'node:path';
import { PDFDocument, StandardFonts } from 'pdf-lib';
import type { PdfjsLib } from '../../src/ui/library/extract-text.js';

export const PRINTED_TITLE = 'Drone flights near hospitals';
export const METADATA_TITLE = 'LBA guidance: drone flights near hospitals (invented sample)';

/** [size, text] lines per page, top to bottom; a gap before a heading. */
const PAGES: [number, string][][] = [
  [
    [18, PRINTED_TITLE],
    [13, '1 Scope'],
    [10, 'This guidance applies to UAS operators in Germany'],
    [10, 'and complements the EU rules for the specific category.'],
    [13, '2 Flights near hospitals'],
    [10, 'Helicopter landing sites of hospitals are protected airspace.'],
  ],
  [
    [13, '2.1 Consent of the hospital'],
    [10, 'Operators shall obtain the consent of the hospital before flying'],
    [10, 'within 100 m of its grounds.'],
    [10, 'The consent should be kept with the flight records.'],
    [13, '3 Records'],
    [10, 'Flight records are kept for two years.'],
  ],
];

export async function guidancePdf(opts: { metadataTitle?: string } = {}): Promise<Uint8Array> {
  const doc = await PDFDocument.create();
  if (opts.metadataTitle) doc.setTitle(opts.metadataTitle);
  const font = await doc.embedFont(StandardFonts.Helvetica);
  const bold = await doc.embedFont(StandardFonts.HelveticaBold);
  for (const lines of PAGES) {
    const page = doc.addPage([595, 842]);
    let y = 780;
    lines.forEach(([size, text], i) => {
      if (i > 0) y -= size > 10 ? 2.4 * size : 13;
      page.drawText(text, { x: 72, y, size, font: size > 10 ? bold : font });
    });
  }
  return doc.save({ useObjectStreams: false });
}

/** pdfjs' legacy build for Node, with the standard fonts' data (the browser build needs a worker URL). */
export async function nodePdfjs(): Promise<PdfjsLib> {
  const m = await import('pdfjs-dist/legacy/build/pdf.mjs');
  const standardFontDataUrl = path.join(path.dirname(createRequire(import.meta.url).resolve('pdfjs-dist/package.json')), 'standard_fonts') + path.sep;
  const getDocument = (src: Parameters<PdfjsLib['getDocument']>[0]) => m.getDocument({ ...(src as object), standardFontDataUrl });
  return { getDocument: getDocument as unknown as PdfjsLib['getDocument'] };
}
