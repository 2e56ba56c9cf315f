/**
 * Reading a document the user exported from the Library ("Export (JSON)") back in,
 * on this or another device: the file is checked field by field and turned into the
 * same input as an added file (title, jurisdiction, edition and the extracted text),
 * which is then chunked and embedded again with the running model. Pure: every
 * problem is a message that names the field and says what to do.
 */
import { MAX_FILE_BYTES, USER_FILE_FORMATS, validateUserDocumentForm, type UserFileFormat } from './form.js';
import { comparable, shown } from './validate.js';

export const USER_DOCUMENT_EXPORT_FORMAT = 'skycite-user-document';
/** Version 2 carries the extracted text (version 1 carried only the passages). */
export const USER_DOCUMENT_EXPORT_VERSION = 2;
/** The export's own suffix, so the file chooser can offer it. */
export const EXPORT_SUFFIX = '.skycite.json';

/** A document to add: the form's fields and the extracted text (an added file or an imported export alike). */
export interface UserDocumentInput {
  title: string;
  jurisdiction: string;
  edition: string;
  fileName: string;
  format: UserFileFormat;
  /** The extracted text: one string per PDF page, or the file's text (Markdown as written; HTML already as text). */
  pages: string[] | string;
}

/** What an import adds: the same fields as a file added from the form. */
export type ImportedDocument = UserDocumentInput;

export type ImportResult = { ok: true; value: ImportedDocument } | { ok: false; message: string };

const FORMATS = USER_FILE_FORMATS;
/** Pages of an exported document (a PDF's pages, one string each); more are refused unread. */
export const MAX_EXPORT_PAGES = 10_000;
const isRecord = (x: unknown): x is Record<string, unknown> => typeof x === 'object' && x !== null && !Array.isArray(x);

/**
 * Parse an exported document. `name` is the chosen file's name (for the messages),
 * `bytes` its size: files larger than an added document may be are refused unread.
 */
export function parseUserDocumentExport(name: string, text: string, bytes = text.length): ImportResult {
  const fail = (why: string): ImportResult => ({ ok: false, message: `${shown(name)}: ${why}` });
  // an export holds the text twice at most (pages and passages) with JSON's quoting
  if (bytes > 3 * MAX_FILE_BYTES)
    return fail(
      `the file is ${(bytes / 1048576).toFixed(0)} MB; an exported document is at most ${(3 * MAX_FILE_BYTES) / 1048576} MB. Choose the file SkyCite exported.`,
    );
  let data: unknown;
  try {
    data = JSON.parse(text);
  } catch (e) {
    return fail(`not valid JSON (${shown((e as Error).message, 120)}). The file may be cut short or edited; export the document again.`);
  }
  if (!isRecord(data) || data.format !== USER_DOCUMENT_EXPORT_FORMAT) {
    return fail(
      `not a document exported by SkyCite (no "format": "${USER_DOCUMENT_EXPORT_FORMAT}"). To add a PDF, text, Markdown or HTML file, use "Add documents".`,
    );
  }
  if (data.version === 1) {
    return fail('exported by an earlier version of SkyCite, which did not keep the document\'s text. Add the original file with "Add documents" instead.');
  }
  if (data.version !== USER_DOCUMENT_EXPORT_VERSION) {
    return fail(
      `export version ${shown(JSON.stringify(data.version) ?? 'none')} is not one this version of SkyCite reads (it reads version ${USER_DOCUMENT_EXPORT_VERSION}). Update the app, or add the original file.`,
    );
  }
  const doc = data.document;
  const source = data.source;
  if (!isRecord(doc)) return fail('the "document" part (title, jurisdiction, edition) is missing. Export the document again.');
  if (!isRecord(source)) return fail('the "source" part (the document\'s text) is missing. Export the document again.');
  const str = (x: unknown) => (typeof x === 'string' ? x : '');
  const format = source.format as UserFileFormat;
  if (!FORMATS.includes(format))
    return fail(`"source.format" is ${shown(JSON.stringify(source.format) ?? 'missing')}; expected one of ${FORMATS.join(', ')}. Export the document again.`);
  const pages = source.pages;
  if (Array.isArray(pages) && pages.length > MAX_EXPORT_PAGES)
    return fail(`"source.pages" holds ${pages.length} pages; an exported document has at most ${MAX_EXPORT_PAGES}. Export the document again.`);
  const pagesOk = typeof pages === 'string' || (Array.isArray(pages) && pages.length > 0 && pages.every((p) => typeof p === 'string'));
  if (!pagesOk) return fail('"source.pages" must be the document\'s text (a string, or one string per page). Export the document again.');
  const chars = typeof pages === 'string' ? pages.trim().length : pages.reduce((n, p) => n + p.trim().length, 0);
  if (!chars) return fail('the exported text is empty; there is nothing to index.');
  const fileName = str(source.fileName) || `${str(doc.title) || 'document'}.txt`;
  // the same checks as the form, so an edited export cannot carry what the form refuses
  const v = validateUserDocumentForm({
    fileName,
    fileBytes: Math.max(1, chars),
    title: str(doc.title),
    jurisdiction: str(doc.jurisdiction),
    edition: str(doc.edition),
  });
  if (!v.ok) return fail(`${Object.values(v.problems).join(' ')} (in the exported "document" part)`);
  return {
    ok: true,
    value: { title: v.value.title, jurisdiction: v.value.jurisdiction, edition: v.value.edition, fileName, format, pages: pages as string[] | string },
  };
}

/**
 * The document's title, edition and jurisdiction already among `existing`: an import would add it
 * twice. Compared in Unicode NFKC with format characters (zero-width space, bidirectional marks)
 * removed, whitespace collapsed and case ignored, so an invisible character does not make a copy new.
 */
export function duplicateOf<T extends { title: string; edition: string; jurisdiction: string }>(
  d: Pick<ImportedDocument, 'title' | 'edition' | 'jurisdiction'>,
  existing: readonly T[],
): T | undefined {
  const key = (x: { title: string; edition: string; jurisdiction: string }) =>
    `${comparable(x.title)}\u0000${comparable(x.edition)}\u0000${comparable(x.jurisdiction)}`;
  const k = key(d);
  return existing.find((x) => key(x) === k);
}
