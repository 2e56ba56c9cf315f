/**
 * Generic paragraph chunker for sources without a known structure (e.g. an arbitrary PDF).
 *
 * Lines are grouped into paragraphs (an empty line or a page change ends a paragraph);
 * paragraphs are packed, in order, into chunks of at most `maxChars` characters. A paragraph
 * longer than `maxChars` is split at sentence boundaries only: a chunk never ends
 * mid-sentence, and a single sentence longer than `maxChars` is kept whole in its own chunk.
 */
import type { Chunk } from '../model/chunk.js';
import type { PageAwareDocument } from './document-model.js';

export interface GenericChunkMeta {
  docId: string;
  title: string;
  edition: string;
  jurisdiction: string;
  language: string;
  /** Upper bound on a chunk's text length (characters), except for single over-long sentences. Default 1500. */
  maxChars?: number;
}

export const DEFAULT_MAX_CHARS = 1500;

/** A paragraph: consecutive non-empty lines of one page, joined with newlines. */
export interface Paragraph {
  text: string;
  page: number | null;
}

/** Group a document's lines into paragraphs (empty line or page change = boundary). */
export function paragraphs(doc: PageAwareDocument): Paragraph[] {
  const out: Paragraph[] = [];
  let cur: string[] = [];
  let page: number | null = null;
  const flush = (): void => {
    if (cur.length) out.push({ text: cur.join('\n'), page });
    cur = [];
  };
  for (const line of doc.lines) {
    const text = line.text.trimEnd();
    if (text.trim() === '') {
      flush();
      continue;
    }
    if (cur.length && line.page !== page) flush();
    page = line.page;
    cur.push(text);
  }
  flush();
  return out;
}

/** Words ending in "." that do not end a sentence. */
const ABBREVIATIONS = new Set([
  'e.g', 'i.e', 'etc', 'cf', 'vs', 'approx', 'incl', 'excl', 'art', 'arts', 'no', 'nos', 'para', 'paras',
  'fig', 'figs', 'sec', 'ch', 'vol', 'p', 'pp', 'ed', 'eds', 'dr', 'mr', 'mrs', 'ms', 'st', 'max', 'min',
  'ref', 'reg', 'resp', 'viz', 'al', 'ca', 'op', 'jan', 'feb', 'mar', 'apr', 'jun', 'jul', 'aug',
  'sep', 'sept', 'oct', 'nov', 'dec', 'u.s', 'z.b', 'd.h', 'bzw', 'ggf', 'vgl', 'cit',
]);

/** A sentence of a paragraph with the whitespace that preceded it in the paragraph. */
interface Sentence {
  text: string;
  /** ' ' or '\n' (the separator to restore when re-joining); '' for the first sentence. */
  sep: string;
}

/**
 * Split a paragraph into sentences. A boundary is terminal punctuation (. ! ? …), optionally
 * followed by closing quotes/brackets, then whitespace, then an upper-case letter, a digit or an
 * opening quote/bracket. A "." after a known abbreviation or a single letter (an initial) is
 * not a boundary. Joining the sentences with their `sep` restores the paragraph (whitespace
 * runs at boundaries normalised).
 */
export function splitSentences(text: string): Sentence[] {
  const boundary = /([.!?…]+)(["'”’»)\]]*)(\s+)(?=["'“‘«(\[]?[\p{Lu}\p{N}])/gu;
  const out: Sentence[] = [];
  let start = 0;
  let sep = '';
  for (const m of text.matchAll(boundary)) {
    const end = m.index + m[1]!.length + m[2]!.length;
    if (m[1] === '.' && m[2] === '') {
      const word = /(\S+)$/.exec(text.slice(start, m.index))?.[1] ?? '';
      const bare = word.replace(/^[("'“‘«[]+/, '').toLowerCase();
      if (ABBREVIATIONS.has(bare) || /^\p{L}$/u.test(bare)) continue;
    }
    out.push({ text: text.slice(start, end), sep });
    sep = m[3]!.includes('\n') ? '\n' : ' ';
    start = end + m[3]!.length;
  }
  if (start < text.length) out.push({ text: text.slice(start), sep });
  return out.filter((s) => s.text.trim() !== '');
}

/** A piece of text to pack: a whole paragraph, or one sentence of a long paragraph. */
interface Piece {
  text: string;
  page: number | null;
  /** Separator before this piece when it shares a chunk with the previous piece. */
  sep: string;
}

/**
 * Chunk a page-aware document by paragraphs.
 *
 * Chunk ids are `${docId}/p${pageStart}-${n}` where n counts the chunks starting on that page
 * (from 1; pageStart 0 stands for an unpaged source), so ids are stable for a given input and
 * `maxChars`. Paragraphs within a chunk are separated by an empty line.
 */
export function chunkParagraphs(doc: PageAwareDocument, meta: GenericChunkMeta): Chunk[] {
  const maxChars = meta.maxChars ?? DEFAULT_MAX_CHARS;
  if (!(maxChars > 0)) throw new RangeError(`maxChars must be positive, got ${maxChars}`);

  const pieces: Piece[] = [];
  for (const para of paragraphs(doc)) {
    if (para.text.length <= maxChars) {
      pieces.push({ text: para.text, page: para.page, sep: '\n\n' });
      continue;
    }
    splitSentences(para.text).forEach((s, i) =>
      pieces.push({ text: s.text, page: para.page, sep: i === 0 ? '\n\n' : s.sep }),
    );
  }

  const groups: Piece[][] = [];
  let cur: Piece[] = [];
  let curLen = 0;
  for (const piece of pieces) {
    const added = cur.length === 0 ? piece.text.length : curLen + piece.sep.length + piece.text.length;
    if (cur.length > 0 && added > maxChars) {
      groups.push(cur);
      cur = [piece];
      curLen = piece.text.length;
    } else {
      cur.push(piece);
      curLen = added;
    }
  }
  if (cur.length) groups.push(cur);

  const perPage = new Map<number, number>();
  return groups.map((group): Chunk => {
    const text = group.map((p, i) => (i === 0 ? p.text : p.sep + p.text)).join('');
    const pages = group.map((p) => p.page).filter((p): p is number => p !== null);
    const pageStart = pages.length ? Math.min(...pages) : null;
    const pageEnd = pages.length ? Math.max(...pages) : null;
    const key = pageStart ?? 0;
    const n = (perPage.get(key) ?? 0) + 1;
    perPage.set(key, n);
    return {
      id: `${meta.docId}/p${key}-${n}`,
      docId: meta.docId,
      kind: 'pdf-section',
      title: meta.title,
      sectionPath: [meta.title],
      pageStart,
      pageEnd,
      text,
      summary: '',
      keywords: [],
      jurisdiction: meta.jurisdiction,
      edition: meta.edition,
      language: meta.language,
      links: [],
      retrieval: `${meta.title} ${meta.title}. ${text}`,
    };
  });
}
