/**
 * Text from a file the user adds (main thread, on the device; nothing is sent anywhere):
 * a PDF's text layer, one string per page, by pdfjs-dist in its own Web Worker; HTML as
 * text through DOMParser (an inert document: no script runs, nothing is inserted into
 * the page); plain text and Markdown as written (the runtime drops Markdown markup).
 * Read with limits (IMPORT_LIMITS): a file whose size alone shows it is too long is refused
 * before a byte is read, a PDF with too many pages before its text is extracted, and a text
 * longer than a device indexes in reasonable time as soon as it is counted.
 */
import { SkyCiteError, type ErrorCode } from '../../core/errors.js';
import type { UserFileFormat } from '../../core/userdocs/form.js';
import { shown } from '../../core/userdocs/validate.js';
import { IMPORT_LIMITS } from '../../runtime/user-documents.js';
import { htmlTitle, layoutPdf, metadataTitle, pdfRuns, titleFromText, type PdfRun } from './pdf-layout.js';

export class FileReadError extends SkyCiteError {
  override name = 'FileReadError';
  override readonly code: ErrorCode = 'file-read';
}

/** A file over IMPORT_LIMITS: refused at once, nothing added. */
export class FileTooLargeError extends FileReadError {
  override name = 'FileTooLargeError';
  override readonly code = 'file-too-large';
}

/** The user pressed Cancel while the file was being read. */
export class FileReadCancelledError extends FileReadError {
  override name = 'FileReadCancelledError';
  override readonly code = 'import-cancelled';
  constructor(fileName: string) {
    super(`Reading “${shown(fileName)}” was cancelled. Nothing was added.`);
  }
}

const why = `what a phone, tablet or laptop indexes in about ${IMPORT_LIMITS.budgetMinutes} minutes`;
const fix = 'Nothing was added. Split it, or add only the chapters you need.';
const mb = (bytes: number) => `${(bytes / 1e6).toFixed(1)} MB`;

/** Refuse a file by its size, before it is read: null when it may be read. */
export function fileSizeProblem(file: Pick<File, 'name' | 'size'>, format: UserFileFormat): string | null {
  const max = format === 'html' ? IMPORT_LIMITS.maxHtmlFileBytes : format === 'pdf' ? null : IMPORT_LIMITS.maxTextFileBytes;
  if (max === null || file.size <= max) return null;
  const kind = format === 'html' ? 'an HTML file' : 'a text or Markdown file';
  return `“${shown(file.name)}” is ${mb(file.size)}; ${kind} can be at most ${mb(max)} (about ${IMPORT_LIMITS.maxTextChars.toLocaleString('en')} characters of text, ${why}). ${fix}`;
}

const charsProblem = (name: string, chars: number, more = false) =>
  `“${shown(name)}” has ${more ? 'more than ' : ''}${chars.toLocaleString('en')} characters of text; a document can have at most ${IMPORT_LIMITS.maxTextChars.toLocaleString('en')} (${why}). ${fix}`;

/** The text's length checked once it is read. */
function checked<T extends string | string[]>(name: string, text: T): T {
  const chars = typeof text === 'string' ? text.length : text.reduce((n, p) => n + p.length, 0);
  if (chars > IMPORT_LIMITS.maxTextChars) throw new FileTooLargeError(charsProblem(name, chars));
  return text;
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

/** What readPdf needs of pdfjs (the browser build here; Node's legacy build in tests). */
export interface PdfjsLib {
  getDocument: (typeof import('pdfjs-dist'))['getDocument'];
}

/** pdfjs in the browser, its worker a Web Worker of its own. */
async function browserPdfjs(): Promise<PdfjsLib> {
  const [pdfjs, worker] = await Promise.all([import('pdfjs-dist'), import('pdfjs-dist/build/pdf.worker.min.mjs?url')]);
  pdfjs.GlobalWorkerOptions.workerSrc = worker.default;
  return pdfjs;
}

/**
 * A PDF's text layer, one string per page laid out in paragraphs and headings by font size and
 * spacing (pdf-layout.ts), and its title: the title metadata, else the first page's main
 * heading (null when neither). Refused before extraction when it has more than
 * IMPORT_LIMITS.maxPdfPages pages, and as soon as its text passes IMPORT_LIMITS.maxTextChars;
 * `signal` stops it between two pages.
 */
export async function readPdf(
  bytes: Uint8Array,
  fileName = 'The PDF',
  signal?: AbortSignal,
  load: () => Promise<PdfjsLib> = browserPdfjs,
  /** Read only this many pages (the default title needs the first ones). */
  maxPages = Infinity,
): Promise<{ pages: string[]; title: string | null }> {
  const pdfjs = await load();
  const task = pdfjs.getDocument({ data: bytes, isEvalSupported: false, verbosity: 0, disableFontFace: true, useSystemFonts: false, stopAtErrors: false });
  // pdf.js asks for a password through this callback (its typed way): refuse, and say why
  const encrypted = new FileReadError('The PDF is password-protected (encrypted). Save an unprotected copy (print to PDF) and add that.');
  let needsPassword = false;
  task.onPassword = (answer: (password: string | Error) => void) => {
    needsPassword = true;
    answer(encrypted);
  };
  let pdf: Awaited<typeof task.promise>;
  try {
    pdf = await task.promise;
  } catch (e) {
    await task.destroy().catch(() => undefined);
    if (needsPassword) throw encrypted;
    throw new FileReadError(
      `The file is not a readable PDF (${(e as Error).message}). Check that it is the complete file and not another format renamed .pdf.`,
    );
  }
  try {
    if (pdf.numPages > IMPORT_LIMITS.maxPdfPages) {
      throw new FileTooLargeError(`“${shown(fileName)}” has ${pdf.numPages} pages; a PDF can have at most ${IMPORT_LIMITS.maxPdfPages} (${why}). ${fix}`);
    }
    const runs: PdfRun[][] = [];
    let chars = 0;
    for (let n = 1; n <= Math.min(pdf.numPages, maxPages); n++) {
      if (signal?.aborted) throw new FileReadCancelledError(fileName);
      const page = await pdf.getPage(n);
      const content = await page.getTextContent();
      const pageRuns = pdfRuns(content.items);
      page.cleanup();
      chars += pageRuns.reduce((n, r) => n + r.str.length + (r.eol ? 1 : 0), 0);
      if (chars > IMPORT_LIMITS.maxTextChars) throw new FileTooLargeError(charsProblem(fileName, IMPORT_LIMITS.maxTextChars, true));
      runs.push(pageRuns);
    }
    const layout = layoutPdf(runs);
    const meta = await pdf.getMetadata().catch(() => null);
    const title =
      metadataTitle((meta?.info as { Title?: unknown } | undefined)?.Title) ?? metadataTitle(meta?.metadata?.get('dc:title')) ?? layout.firstHeading;
    return { pages: layout.pages, title };
  } finally {
    await pdf.destroy();
  }
}

/** One string per page from a PDF's text layer (readPdf). */
export async function pdfPages(bytes: Uint8Array, fileName = 'The PDF', signal?: AbortSignal): Promise<string[]> {
  return (await readPdf(bytes, fileName, signal)).pages;
}

/**
 * A default title for a chosen file, read on the device (null when it has none, or cannot be
 * read: the add reports that): a PDF's title metadata or first heading, an HTML document's
 * title or first heading, a Markdown heading, a text's first line standing alone.
 */
export async function suggestedTitle(file: Pick<File, 'name' | 'size' | 'arrayBuffer' | 'text'>, format: UserFileFormat): Promise<string | null> {
  try {
    if (fileSizeProblem(file, format)) return null;
    switch (format) {
      case 'pdf':
        return (await readPdf(new Uint8Array(await file.arrayBuffer()), file.name, undefined, browserPdfjs, 2)).title;
      case 'html':
        return htmlTitle(await file.text(), new DOMParser());
      case 'text':
      case 'markdown':
        return titleFromText(await file.text(), format);
    }
  } catch {
    return null;
  }
}

/**
 * The file's text for the runtime: pages of a PDF, or the whole text. A file over the limits is
 * refused (FileTooLargeError) before it is read where its size shows it; `signal` cancels.
 */
export async function extractText(
  file: Pick<File, 'name' | 'size' | 'arrayBuffer' | 'text'>,
  format: UserFileFormat,
  signal?: AbortSignal,
): Promise<string[] | string> {
  const tooBig = fileSizeProblem(file, format);
  if (tooBig) throw new FileTooLargeError(tooBig);
  if (signal?.aborted) throw new FileReadCancelledError(file.name);
  switch (format) {
    case 'pdf':
      return pdfPages(new Uint8Array(await file.arrayBuffer()), file.name, signal);
    case 'html':
      return checked(file.name, htmlToText(await file.text()));
    case 'text':
    case 'markdown':
      return checked(file.name, await file.text());
  }
}
