/**
 * The Library's "Add documents" form: which files can be read, and the title,
 * jurisdiction and edition the user gives each one, checked field by field with a
 * message that says what to enter. Pure.
 */
import { shown } from './validate.js';

export type UserFileFormat = 'pdf' | 'text' | 'markdown' | 'html';

/** Larger files are refused before they are read (a 200 MB PDF would stall the tab). */
export const MAX_FILE_BYTES = 30 * 1024 * 1024;
export const MAX_TITLE_CHARS = 200;
export const MAX_EDITION_CHARS = 80;
/** The longest file name most file systems allow; a longer one is refused (it is stored and shown). */
export const MAX_FILE_NAME_CHARS = 255;
/** 'EU' or an ISO 3166-1 alpha-2 code: two characters; a longer entry is refused before it is read further. */
export const MAX_JURISDICTION_CHARS = 16;
/** The formats a document can be read in. */
export const USER_FILE_FORMATS: readonly UserFileFormat[] = ['pdf', 'text', 'markdown', 'html'];

const EXTENSIONS: Record<string, UserFileFormat> = {
  pdf: 'pdf',
  txt: 'text',
  text: 'text',
  md: 'markdown',
  markdown: 'markdown',
  html: 'html',
  htm: 'html',
};

/** The accept attribute of the file input. */
export const ACCEPTED_FILES = Object.keys(EXTENSIONS)
  .map((e) => `.${e}`)
  .join(',');

/** The format of a file by its extension (then its MIME type), or null when it cannot be read. */
export function fileFormat(name: string, mime = ''): UserFileFormat | null {
  const ext = /\.([a-z0-9]+)$/i.exec(name)?.[1]?.toLowerCase();
  if (ext && EXTENSIONS[ext]) return EXTENSIONS[ext]!;
  if (mime === 'application/pdf') return 'pdf';
  if (mime === 'text/html') return 'html';
  if (mime === 'text/markdown') return 'markdown';
  if (mime === 'text/plain') return 'text';
  return null;
}

export interface UserDocumentForm {
  fileName: string;
  fileBytes: number;
  mime?: string;
  title: string;
  jurisdiction: string;
  edition: string;
}

export interface ValidForm {
  format: UserFileFormat;
  title: string;
  /** 'EU' or an upper-case ISO 3166-1 alpha-2 code. */
  jurisdiction: string;
  edition: string;
}

export type FormField = 'file' | 'title' | 'jurisdiction' | 'edition';

/** The cleaned values, or one message per invalid field. */
export function validateUserDocumentForm(f: UserDocumentForm): { ok: true; value: ValidForm } | { ok: false; problems: Partial<Record<FormField, string>> } {
  const problems: Partial<Record<FormField, string>> = {};
  const nameTooLong = f.fileName.length > MAX_FILE_NAME_CHARS;
  const format = f.fileName && !nameTooLong ? fileFormat(f.fileName, f.mime) : null;
  if (!f.fileName) problems.file = 'Choose a file (PDF, plain text, Markdown or HTML).';
  else if (nameTooLong)
    problems.file = `The file name “${shown(f.fileName)}” has ${f.fileName.length} characters; at most ${MAX_FILE_NAME_CHARS}. Rename the file and add it again.`;
  else if (!format)
    problems.file = `“${shown(f.fileName)}” is not a PDF, plain-text (.txt), Markdown (.md) or HTML (.html) file. Save it in one of these formats first.`;
  else if (f.fileBytes === 0) problems.file = `“${shown(f.fileName)}” is empty.`;
  else if (f.fileBytes > MAX_FILE_BYTES) {
    problems.file = `“${shown(f.fileName)}” is ${(f.fileBytes / 1048576).toFixed(0)} MB; files up to ${MAX_FILE_BYTES / 1048576} MB can be added. Split it, or add only the chapters you need.`;
  }
  const title = f.title.replace(/\s+/g, ' ').trim();
  if (!title) problems.title = 'Give the document a title (e.g. “LBA guidance on flights near hospitals”).';
  else if (title.length > MAX_TITLE_CHARS) problems.title = `The title has ${title.length} characters; at most ${MAX_TITLE_CHARS}.`;
  const jurisdiction = f.jurisdiction.length > MAX_JURISDICTION_CHARS ? '' : f.jurisdiction.trim().toUpperCase();
  if (!/^(EU|[A-Z]{2})$/.test(jurisdiction)) {
    problems.jurisdiction = `“${shown(f.jurisdiction.trim())}” is not a jurisdiction: enter EU, or the two-letter ISO country code (DE for Germany, FR for France).`;
  }
  const edition = f.edition.replace(/\s+/g, ' ').trim();
  if (!edition) problems.edition = 'Give the edition or date as printed on the document (e.g. “2024-03” or “Edition 2”).';
  else if (edition.length > MAX_EDITION_CHARS) problems.edition = `The edition has ${edition.length} characters; at most ${MAX_EDITION_CHARS}.`;
  if (Object.keys(problems).length || !format) return { ok: false, problems };
  return { ok: true, value: { format, title, jurisdiction, edition } };
}

/** A document id from its title, unique among `taken`: "user/lba-guidance-on-…", then "-2", "-3" … */
export function userDocumentId(title: string, taken: readonly string[]): string {
  const slug =
    title
      .normalize('NFKD')
      .replace(/[\u0300-\u036f]/g, '')
      .toLowerCase()
      .replace(/[^a-z0-9]+/g, '-')
      .replace(/^-+|-+$/g, '')
      .slice(0, 48)
      .replace(/-+$/, '') || 'document';
  const base = `user/${slug}`;
  let id = base;
  for (let i = 2; taken.includes(id); i++) id = `${base}-${i}`;
  return id;
}
