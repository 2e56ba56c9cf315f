/**
 * Text from a file the user adds (main thread, on the device; nothing is sent anywhere):
 * a PDF's text layer, one string per page, by pdfjs-dist in its own Web Worker; HTML as
 * text through DOMParser (an inert document: no script runs, nothing is inserted into
 * the page); plain text and Markdown as written (the runtime drops Markdown markup).
 */
import { SkyCiteError } from '../../core/errors.js';
import type { UserFileFormat } from '../../core/userdocs/form.js';

export class FileReadError extends SkyCiteError {
  override name = 'FileReadError';
}

/** Elements whose text is not document text. */
const SKIP = new Set(['SCRIPT', 'STYLE', 'NOSCRIPT', 'TEMPLATE', 'IFRAME', 'OBJECT', 'SVG', 'HEAD']);
/** Elements that start a new paragraph (a blank line around them). */
const BLOCK = /^(P|DIV|SECTION|ARTICLE|HEADER|FOOTER|MAIN|ASIDE|NAV|H[1-6]|UL|OL|LI|DL|DT|DD|TABLE|TR|PRE|BLOCKQUOTE|FIGURE|FIGCAPTION|CAPTION|ADDRESS|HR)$/;

/** The text of an HTML document, paragraphs as blank-line separated blocks, table cells tab-separated. */
export function htmlToText(html: string, parser: Pick<DOMParser, 'parseFromString'> = new DOMParser()): string {
  const doc = parser.parseFromString(html, 'text/html');
  const out: string[] = [];
  const walk = (node: Node): void => {
    if (node.nodeType === 3) {
      out.push((node.nodeValue ?? '').replace(/\s+/g, ' '));
      return;
    }
    if (node.nodeType !== 1) return;
    const tag = (node as Element).tagName.toUpperCase();
    if (SKIP.has(tag)) return;
    if (tag === 'BR') out.push('\n');
    const block = BLOCK.test(tag);
    if (block) out.push('\n\n');
    for (const child of Array.from(node.childNodes)) walk(child);
    if (tag === 'TD' || tag === 'TH') out.push('\t');
    if (block) out.push('\n\n');
  };
  if (doc.body) walk(doc.body);
  return out
    .join('')
    .split('\n')
    .map((l) => l.replace(/[ \t]+/g, ' ').trim())
    .join('\n')
    .replace(/\n{3,}/g, '\n\n')
    .trim();
}

/** One string per page from a PDF's text layer (pdfjs marks line ends with `hasEOL`). */
export async function pdfPages(bytes: Uint8Array): Promise<string[]> {
  const [pdfjs, worker] = await Promise.all([import('pdfjs-dist'), import('pdfjs-dist/build/pdf.worker.min.mjs?url')]);
  pdfjs.GlobalWorkerOptions.workerSrc = worker.default;
  const task = pdfjs.getDocument({ data: bytes, isEvalSupported: false, verbosity: 0, disableFontFace: true, useSystemFonts: false, stopAtErrors: false });
  let pdf: Awaited<typeof task.promise>;
  try {
    pdf = await task.promise;
  } catch (e) {
    await task.destroy().catch(() => undefined);
    const err = e as Error;
    if (err.name === 'PasswordException') throw new FileReadError('The PDF is password-protected (encrypted). Save an unprotected copy (print to PDF) and add that.');
    throw new FileReadError(`The file is not a readable PDF (${err.message}). Check that it is the complete file and not another format renamed .pdf.`);
  }
  try {
    const pages: string[] = [];
    for (let n = 1; n <= pdf.numPages; n++) {
      const page = await pdf.getPage(n);
      const content = await page.getTextContent();
      pages.push(content.items.map((it) => ('str' in it ? it.str + (it.hasEOL ? '\n' : '') : '')).join(''));
      page.cleanup();
    }
    return pages;
  } finally {
    await pdf.destroy();
  }
}

/** The file's text for the runtime: pages of a PDF, or the whole text. */
export async function extractText(file: Pick<File, 'name' | 'arrayBuffer' | 'text'>, format: UserFileFormat): Promise<string[] | string> {
  switch (format) {
    case 'pdf':
      return pdfPages(new Uint8Array(await file.arrayBuffer()));
    case 'html':
      return htmlToText(await file.text());
    case 'text':
    case 'markdown':
      return file.text();
  }
}
