/**
 * The user's own documents (issue 12, item 4), the part shared with the build: text
 * (plain, Markdown, or the text layer of a PDF, one string per page) → page-aware
 * document → chunks by its headings and pages (generic-chunker.ts chunkSections: a passage
 * never spans two sections or two pages, its title is its heading) → the build's enrichment
 * → chunks and one logical document with its summary index. Pure: runs in the browser worker and in Node.
 * Embedding, storage and the UI are not here.
 */
import type { Chunk } from '../model/chunk.js';
import type { PageAwareDocument, SourceLine } from './document-model.js';
import { type DocumentUnit, splitSourceDocuments } from './documents.js';
import { enrichDrafts } from './enrich/drafts.js';
import { retrievalString } from './enrich/retrieval-string.js';
import { chunkSections } from './generic-chunker.js';
import { shown, UserDocumentError } from '../userdocs/validate.js';

export interface UserDocumentMeta {
  /** Stable id, e.g. "user/lba-guidance-2024"; must not collide with a built-in source. */
  id: string;
  title: string;
  /** 'EU' or an ISO 3166-1 alpha-2 country code ("DE"). */
  jurisdiction: string;
  /** Edition or date as the user gives it. */
  edition: string;
  language?: string;
}

/** Inline Markdown markup that is not text: emphasis, link and image targets. */
function markdownInline(md: string): string {
  return md
    .replace(/!\[([^\]]*)\]\([^)]*\)/g, '$1')
    .replace(/\[([^\]]+)\]\([^)]*\)/g, '$1')
    .replace(/(\*\*|__)(.+?)\1/g, '$2')
    .replace(/(^|\W)[*_](\S(?:.*?\S)?)[*_](?=\W|$)/g, '$1$2');
}

/** Markdown markup that is not text: heading marks, emphasis, link targets, code fences. */
export function markdownToText(md: string): string {
  return markdownInline(md.replace(/^```.*$/gm, '').replace(/^\s{0,3}#{1,6}\s+/gm, ''));
}

/** An ATX heading ("## Night flights", closing hashes allowed): its level and text. */
const ATX = /^\s{0,3}(#{1,6})\s+(.*?)(?:\s+#+)?\s*$/;
/** A setext underline ("====" under a level-1 heading, "----" under a level-2 one). */
const SETEXT = /^\s{0,3}(=+|-+)\s*$/;

/**
 * A Markdown file as a page-aware document whose headings are marked (SourceLine.heading): "#" … "######"
 * and setext headings, outside code fences, become headings of their level, so that each section is
 * its own passage titled by its heading (the chunker does not have to guess them from their form);
 * the rest loses its markup as markdownToText drops it. Pages as textToDocument reads them.
 */
export function markdownDocument(sourceId: string, pages: string | string[]): PageAwareDocument {
  const doc = textToDocument(sourceId, pages);
  const lines: SourceLine[] = [];
  let fenced = false;
  for (const [i, line] of doc.lines.entries()) {
    if (/^\s{0,3}(```|~~~)/.test(line.text)) {
      fenced = !fenced;
      lines.push({ ...line, text: '' });
      continue;
    }
    const atx = fenced ? null : ATX.exec(line.text);
    if (atx && atx[2]!.trim()) {
      lines.push({ ...line, text: markdownInline(atx[2]!).trim(), heading: atx[1]!.length });
      continue;
    }
    const next = doc.lines[i + 1];
    const prev = lines[lines.length - 1];
    // setext: a single text line, then its underline (a "---" after a blank line is a rule, not a heading)
    if (
      !fenced &&
      line.text.trim() &&
      next &&
      next.page === line.page &&
      SETEXT.test(next.text) &&
      (!prev || prev.text.trim() === '' || prev.heading !== undefined)
    ) {
      lines.push({ ...line, text: markdownInline(line.text).trim(), heading: next.text.trim().startsWith('=') ? 1 : 2 });
      continue;
    }
    if (!fenced && SETEXT.test(line.text) && prev?.heading !== undefined && prev.lineNo === line.lineNo - 1) {
      lines.push({ ...line, text: '' });
      continue;
    }
    lines.push({ ...line, text: fenced ? line.text : markdownInline(line.text) });
  }
  return { ...doc, lines };
}

/**
 * Pages: one string per page (a PDF's text layer), or one string whose form feeds
 * separate pages (text exported from a PDF); a text without form feeds is unpaged.
 */
export function textToDocument(sourceId: string, pages: string | string[]): PageAwareDocument {
  const paged = Array.isArray(pages) || pages.includes('\f');
  const list = Array.isArray(pages) ? pages : pages.split('\f');
  const lines: SourceLine[] = [];
  let lineNo = 0;
  list.forEach((p, i) => {
    for (const text of p.replace(/\r\n?/g, '\n').split('\n')) lines.push({ text: text.trimEnd(), page: paged ? i + 1 : null, lineNo: ++lineNo });
    lines.push({ text: '', page: paged ? i + 1 : null, lineNo: ++lineNo });
  });
  const contentChars = lines.reduce((n, l) => n + l.text.replace(/\s/g, '').length, 0);
  return {
    sourceId,
    pageCount: paged ? list.length : null,
    lines,
    diagnostics: { strippedLines: 0, contentChars, unreadablePages: [], warnings: [] },
  };
}

const JURISDICTION = /^(EU|[A-Z]{2})$/;

/** Chunk, enrich and describe a user's document; every chunk belongs to the one document. */
export function ingestUserDocument(
  meta: UserDocumentMeta,
  doc: PageAwareDocument,
  reservedIds: readonly string[] = [],
): { chunks: Chunk[]; document: DocumentUnit } {
  if (!meta.title.trim()) throw new UserDocumentError('Give the document a title.');
  if (!JURISDICTION.test(meta.jurisdiction)) {
    throw new UserDocumentError(`Jurisdiction "${shown(meta.jurisdiction)}" is not "EU" or a two-letter country code (e.g. "DE").`);
  }
  if (!/^[a-z0-9][a-z0-9/._-]*$/.test(meta.id) || reservedIds.includes(meta.id)) {
    throw new UserDocumentError(`The document id "${meta.id}" is not usable (lower-case letters, digits, / . _ - only, and not an id already in the library).`);
  }
  if (doc.diagnostics.contentChars === 0) {
    throw new UserDocumentError('The document has no text (a scanned PDF without a text layer?): nothing can be indexed. Run OCR on it first.');
  }
  const language = meta.language ?? 'en';
  const drafts = chunkSections(doc, { docId: meta.id, title: meta.title, edition: meta.edition, jurisdiction: meta.jurisdiction, language });
  // a passage is found by its document's title and its heading
  const chunks = enrichDrafts(drafts).map((c) => ({
    ...c,
    documentId: meta.id,
    retrieval: retrievalString(c.title === meta.title ? meta.title : `${meta.title}: ${c.title}`, c.text),
  }));
  const [document] = splitSourceDocuments(chunks, { id: meta.id, title: meta.title, edition: meta.edition, jurisdiction: meta.jurisdiction });
  return { chunks, document: document! };
}
