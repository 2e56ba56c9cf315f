/**
 * Checks on the user's documents as they come back from the device (issue 27, items 6 and 8):
 * a stored document is only loaded into the search when its passages, its document summary and
 * its vectors fit together, every number is finite and its id is one SkyCite gives a user's
 * document (never a built-in document's). Also the helpers every message about a user's value
 * goes through (values are shown cut short) and the comparison key of the duplicate check.
 * Pure: the store, the runtime and the tests share it.
 */
import { SkyCiteError } from '../errors.js';
import type { DocumentUnit } from '../ingest/documents.js';
import type { Chunk } from '../model/chunk.js';
import type { UserDocumentVectors } from './vectors.js';

/** A user's document, or a file offered as one, that cannot be added: the message names the file and what to do. */
export class UserDocumentError extends SkyCiteError {
  override name = 'UserDocumentError';
  override readonly code = 'user-document';
}

/** Every user document id starts with this (core/userdocs/form.ts userDocumentId); other ids are reserved. */
export const USER_DOCUMENT_ID_PREFIX = 'user/';
/** userDocumentId makes at most `user/` + 48 + `-NNN`; room to spare. */
export const MAX_DOCUMENT_ID_CHARS = 120;
/** Characters of a user's value repeated in a message. */
export const MAX_SHOWN_CHARS = 60;
/** Embedding dimensions a stored document may claim (the models offered use 384 to 1024). */
export const MAX_VECTOR_DIMENSION = 8192;

/** Unicode format characters (zero-width spaces and joiners, bidirectional controls, BOM …). */
const FORMAT_CHARS = /\p{Cf}/gu;
const CONTROL_CHARS = /\p{Cc}/gu;

/**
 * A user's value as a message may repeat it: control characters as spaces, format characters
 * (zero-width, bidirectional overrides) removed, and at most `max` characters followed by "…".
 */
export function shown(value: unknown, max = MAX_SHOWN_CHARS): string {
  const s = typeof value === 'string' ? value : String(value);
  // cut first: a 3-million-character value is not cleaned whole only to be cut
  const head = s.length > max * 4 ? s.slice(0, max * 4) : s;
  const clean = head.replace(CONTROL_CHARS, ' ').replace(FORMAT_CHARS, '');
  const chars = [...clean];
  return chars.length > max || head.length < s.length ? `${chars.slice(0, max).join('')}…` : clean;
}

/**
 * The form of a title, edition or jurisdiction two documents are compared in: NFKC (full-width
 * and compatibility forms folded), format characters (zero-width space, joiners, bidirectional
 * marks) removed, whitespace collapsed, lower case.
 */
export function comparable(s: string): string {
  return s.normalize('NFKC').replace(FORMAT_CHARS, '').replace(/\s+/gu, ' ').trim().toLowerCase();
}

const isObj = (x: unknown): x is Record<string, unknown> => typeof x === 'object' && x !== null && !Array.isArray(x);
const isInt = (x: unknown): x is number => typeof x === 'number' && Number.isInteger(x);
const isStr = (x: unknown): x is string => typeof x === 'string';
const isPage = (x: unknown) => x === null || (isInt(x) && x >= 0);

/** True when every value of the array is a finite number (no NaN, no ±Infinity). */
export function allFinite(a: Float32Array): boolean {
  for (let i = 0; i < a.length; i++) if (!Number.isFinite(a[i]!)) return false;
  return true;
}

/** Why an id cannot be a user's document, or null. `reserved` holds the built-in documents' ids (and any other taken id). */
export function userDocumentIdProblem(id: unknown, reserved: ReadonlySet<string> = new Set()): string | null {
  if (!isStr(id) || id.length === 0) return 'it has no id';
  if (id.length > MAX_DOCUMENT_ID_CHARS) return `its id has ${id.length} characters; at most ${MAX_DOCUMENT_ID_CHARS}`;
  if (reserved.has(id)) return 'its id is that of a built-in document';
  if (!id.startsWith(USER_DOCUMENT_ID_PREFIX) || !/^[a-z0-9][a-z0-9/._-]*$/.test(id)) return 'its id is not one SkyCite gives your documents';
  return null;
}

function chunkProblem(c: unknown, docId: string): string | null {
  if (!isObj(c)) return 'a passage is not an object';
  if (!isStr(c['id']) || !c['id'].startsWith(`${docId}/`) || c['id'].length > MAX_DOCUMENT_ID_CHARS + 40) return 'a passage id does not belong to the document';
  if (c['docId'] !== docId || (c['documentId'] !== undefined && c['documentId'] !== docId)) return 'a passage belongs to another document';
  for (const k of ['title', 'text', 'summary', 'retrieval', 'kind', 'jurisdiction', 'edition'] as const) {
    if (!isStr(c[k])) return `a passage's ${k} is missing`;
  }
  if (!Array.isArray(c['sectionPath']) || !c['sectionPath'].every(isStr)) return "a passage's section path is damaged";
  if (!Array.isArray(c['keywords']) || !c['keywords'].every(isStr)) return "a passage's keywords are damaged";
  if (!Array.isArray(c['links']) || !c['links'].every(isObj)) return "a passage's links are damaged";
  if (!isPage(c['pageStart']) || !isPage(c['pageEnd'])) return "a passage's pages are not numbers";
  return null;
}

function documentProblem(d: unknown, docId: string, chunkIds: readonly string[]): string | null {
  if (!isObj(d) || d['id'] !== docId) return 'its document summary is missing';
  for (const k of ['title', 'edition', 'jurisdiction', 'summary', 'description'] as const) if (!isStr(d[k])) return `its document summary has no ${k}`;
  if (!isPage(d['pageStart']) || !isPage(d['pageEnd'])) return "its document summary's pages are not numbers";
  const ids = d['chunkIds'];
  if (!Array.isArray(ids) || ids.length !== chunkIds.length || ids.some((id, i) => id !== chunkIds[i]))
    return 'its document summary does not list its passages';
  if (d['entries'] !== undefined && (!Array.isArray(d['entries']) || !d['entries'].every(isStr))) return "its document summary's entries are damaged";
  const known = new Set(chunkIds);
  const sections = d['sections'];
  if (!Array.isArray(sections)) return 'its document summary has no sections';
  for (const s of sections) {
    if (!isObj(s) || !Array.isArray(s['path']) || !s['path'].every(isStr) || !isStr(s['summary'])) return 'a section of its document summary is damaged';
    if (!Array.isArray(s['chunkIds']) || !s['chunkIds'].every((id) => isStr(id) && known.has(id))) return 'a section lists passages the document does not have';
  }
  return null;
}

/** Why stored vectors cannot be used with this document and dimension, or null when they fit (shape, lengths and finite values). */
export function vectorsShapeProblem(
  d: { chunks: readonly { text: string }[]; document: { sections: readonly unknown[] } },
  v: unknown,
  dim: number,
): string | null {
  if (!isObj(v)) return 'its vectors are missing';
  if (!isStr(v['modelId'])) return 'its vectors do not name their model';
  if (!isInt(v['dimension']) || v['dimension'] < 1 || v['dimension'] > MAX_VECTOR_DIMENSION) return 'its vectors have no valid dimension';
  if (v['dimension'] !== dim) return `its vectors have ${String(v['dimension'])} dimensions, the model ${dim}`;
  const n = d.chunks.length;
  const f32 = (x: unknown, rows: number): boolean => x instanceof Float32Array && x.length === rows * dim;
  if (!f32(v['retrieval'], n)) return 'its retrieval vectors do not match its passages';
  if (!f32(v['summary'], n)) return 'its summary vectors do not match its passages';
  const w = v['windows'];
  if (!isObj(w) || !Array.isArray(w['chunk']) || !Array.isArray(w['start']) || !Array.isArray(w['end'])) return 'its passage windows are missing';
  const [chunk, start, end] = [w['chunk'] as unknown[], w['start'] as unknown[], w['end'] as unknown[]];
  if (!f32(w['vectors'], chunk.length) || start.length !== chunk.length || end.length !== chunk.length) return 'its passage windows do not match their vectors';
  for (let i = 0; i < chunk.length; i++) {
    const c = chunk[i];
    if (!isInt(c) || c < 0 || c >= n || (i > 0 && c < (chunk[i - 1] as number))) return 'its passage windows point outside the document';
    const s = start[i];
    const e = end[i];
    if (!isInt(s) || !isInt(e) || s < 0 || e < s || e > d.chunks[c]!.text.length) return 'its passage windows point outside their passages';
  }
  if (!f32(v['nodes'], 1 + d.document.sections.length)) return 'its summary-index vectors do not match its sections';
  for (const a of [v['retrieval'], v['summary'], w['vectors'], v['nodes']] as Float32Array[]) {
    if (!allFinite(a)) return 'its vectors hold numbers that are not finite (NaN or infinity)';
  }
  return null;
}

/**
 * Why a stored document's passages, summary and vectors cannot be searched, or null. Checks the
 * structure every later step reads (passages, sections, windows) so that one damaged document is
 * refused here and never breaks the merge of the index, the keyword index or the Library's list.
 */
export function indexedDocumentProblem(id: string, chunks: unknown, document: unknown, vectors: unknown): string | null {
  if (!Array.isArray(chunks) || chunks.length === 0) return 'its passages are missing';
  const ids = new Set<string>();
  for (const c of chunks) {
    const p = chunkProblem(c, id);
    if (p) return p;
    const cid = (c as Chunk).id;
    if (ids.has(cid)) return 'two of its passages have the same id';
    ids.add(cid);
  }
  const typed = chunks as Chunk[];
  const dp = documentProblem(
    document,
    id,
    typed.map((c) => c.id),
  );
  if (dp) return dp;
  const dim = isObj(vectors) && isInt(vectors['dimension']) ? vectors['dimension'] : NaN;
  return vectorsShapeProblem({ chunks: typed, document: document as DocumentUnit }, vectors as UserDocumentVectors, dim);
}
