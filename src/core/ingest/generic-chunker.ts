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
  /** The source marks this paragraph (one line) as a heading of this level (SourceLine.heading). */
  heading?: number;
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
    if (line.heading !== undefined) {
      // a heading the source marks is a paragraph of its own, whatever surrounds it
      flush();
      out.push({ text: text.trim(), page, heading: line.heading });
      continue;
    }
    cur.push(text);
  }
  flush();
  return out;
}

/** Words ending in "." that do not end a sentence. */
const ABBREVIATIONS = new Set([
  'e.g',
  'i.e',
  'etc',
  'cf',
  'vs',
  'approx',
  'incl',
  'excl',
  'art',
  'arts',
  'no',
  'nos',
  'para',
  'paras',
  'fig',
  'figs',
  'sec',
  'ch',
  'vol',
  'p',
  'pp',
  'ed',
  'eds',
  'dr',
  'mr',
  'mrs',
  'ms',
  'st',
  'max',
  'min',
  'ref',
  'reg',
  'resp',
  'viz',
  'al',
  'ca',
  'op',
  'jan',
  'feb',
  'mar',
  'apr',
  'jun',
  'jul',
  'aug',
  'sep',
  'sept',
  'oct',
  'nov',
  'dec',
  'u.s',
  'z.b',
  'd.h',
  'bzw',
  'ggf',
  'vgl',
  'cit',
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
  const maxChars = maxCharsOf(meta);
  const groups = packParagraphs(paragraphs(doc), maxChars);
  const perPage = new Map<number, number>();
  return groups.map((group) => draftOf(group, meta, [meta.title], perPage));
}

function maxCharsOf(meta: GenericChunkMeta): number {
  const maxChars = meta.maxChars ?? DEFAULT_MAX_CHARS;
  if (!(maxChars > 0)) throw new RangeError(`maxChars must be positive, got ${maxChars}`);
  return maxChars;
}

/** Paragraphs packed, in order, into groups of at most `maxChars` characters (long paragraphs split at sentences). */
function packParagraphs(paras: readonly Paragraph[], maxChars: number): Piece[][] {
  const pieces: Piece[] = [];
  for (const para of paras) {
    if (para.text.length <= maxChars) {
      pieces.push({ text: para.text, page: para.page, sep: '\n\n' });
      continue;
    }
    splitSentences(para.text).forEach((s, i) => pieces.push({ text: s.text, page: para.page, sep: i === 0 ? '\n\n' : s.sep }));
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
  return groups;
}

/** The chunk of one group of pieces; `perPage` counts the chunks starting on each page (for the id). */
function draftOf(group: Piece[], meta: GenericChunkMeta, sectionPath: string[], perPage: Map<number, number>): Chunk {
  const text = group.map((p, i) => (i === 0 ? p.text : p.sep + p.text)).join('');
  const pages = group.map((p) => p.page).filter((p): p is number => p !== null);
  const pageStart = pages.length ? Math.min(...pages) : null;
  const pageEnd = pages.length ? Math.max(...pages) : null;
  const key = pageStart ?? 0;
  const n = (perPage.get(key) ?? 0) + 1;
  perPage.set(key, n);
  const title = sectionPath[sectionPath.length - 1] ?? meta.title;
  return {
    id: `${meta.docId}/p${key}-${n}`,
    docId: meta.docId,
    kind: 'pdf-section',
    title,
    sectionPath,
    pageStart,
    pageEnd,
    text,
    summary: '',
    keywords: [],
    jurisdiction: meta.jurisdiction,
    edition: meta.edition,
    language: meta.language,
    links: [],
    retrieval: `${title} ${title}. ${text}`,
  };
}

/**
 * Numbered headings: "1 Scope", "2.1 Consent", "3. Night flights", "A.2 Records", "Section 4 …",
 * "Annex B …", "Kapitel 2 …", "II. Scope". The words after the number start with a capital letter.
 */
const NUMBERED_HEADING =
  /^(?:(?:Section|Chapter|Article|Annex|Appendix|Part|Abschnitt|Kapitel|Artikel|Anhang|Anlage|Teil|Chapitre|Annexe|Partie)\s+(?:\d{1,3}|[IVXLC]{1,6}|[A-Z])\b\.?(?:\s+\S.*)?|(?:\d{1,2}(?:\.\d{1,2}){0,4}|[A-Z]\.\d{1,2}(?:\.\d{1,2}){0,3}|[IVX]{1,5})\.?\s+[\p{Lu}"'“(].*)$/u;
/** Longest heading (characters and words); a longer line is text. */
const MAX_HEADING_CHARS = 120;
const MAX_HEADING_WORDS = 16;

/**
 * A line's heading level by its form, or null when it is not a heading: `level` is the
 * numbering's depth ("2.1" → 2; "Annex B" → 1), or null for an unnumbered heading (only a
 * line standing alone as a paragraph: short, starting with a capital, no closing punctuation).
 */
export function headingOf(line: string, standalone: boolean): { level: number | null } | null {
  const t = line.replace(/\s+/g, ' ').trim();
  if (!t || t.length > MAX_HEADING_CHARS || t.split(' ').length > MAX_HEADING_WORDS) return null;
  if (!/\p{L}/u.test(t) || /[.,;:!?]$/.test(t) || /^(?:page|seite|p\.)\s*\d+/i.test(t)) return null;
  const numbered = NUMBERED_HEADING.exec(t);
  if (numbered) {
    const label = t.split(' ')[0]!.replace(/\.$/, '');
    const level = /^[\d]|^[A-Z]\.\d/.test(label) ? label.split('.').filter(Boolean).length : 1;
    return { level };
  }
  if (standalone && /^[\p{Lu}\d]/u.test(t)) return { level: null };
  return null;
}

type Block = { heading: true; text: string; level: number; page: number | null } | { heading: false; para: Paragraph };

/**
 * Chunk a document by its headings and pages (the user's own documents): a heading — a numbered
 * line starting a paragraph, or a short line standing alone (the PDF reader sets a line printed
 * larger than the body text apart) — opens a section; unnumbered headings sit under the numbered
 * one before them. A heading followed by no text before the next heading of its level or above
 * is text (a document title above "1 Scope"); a heading that is the document's title is left
 * out (it is the passages' document title). Each section's paragraphs are packed as
 * chunkParagraphs packs them, a chunk never spans two sections or two pages, and a chunk's
 * title is its heading (its section path: the document title, then the headings above it);
 * the heading is not repeated in the chunk's text. Ids as chunkParagraphs makes them.
 */
export function chunkSections(doc: PageAwareDocument, meta: GenericChunkMeta): Chunk[] {
  const maxChars = maxCharsOf(meta);
  const blocks: Block[] = [];
  for (const para of paragraphs(doc)) {
    if (para.heading !== undefined) {
      const text = para.text.replace(/\s+/g, ' ').trim();
      if (text.toLowerCase() !== meta.title.replace(/\s+/g, ' ').trim().toLowerCase())
        blocks.push({ heading: true, text, level: para.heading, page: para.page });
      continue;
    }
    const lines = para.text.split('\n');
    const h = headingOf(lines[0]!, lines.length === 1);
    // a numbered line opening a longer paragraph is a heading when it is clearly shorter than the text under it (not a list item's first line)
    const setApart = lines.length === 1 || (h?.level !== null && lines[0]!.trim().length <= 0.75 * lines[1]!.trim().length);
    if (!h || !setApart) {
      blocks.push({ heading: false, para });
      continue;
    }
    const text = lines[0]!.replace(/\s+/g, ' ').trim();
    // the document's own title printed as a heading is its title, not a section
    if (text.toLowerCase() !== meta.title.replace(/\s+/g, ' ').trim().toLowerCase()) blocks.push({ heading: true, text, level: h.level ?? 0, page: para.page });
    if (lines.length > 1) blocks.push({ heading: false, para: { text: lines.slice(1).join('\n'), page: para.page } });
  }
  // unnumbered headings: under the numbered heading before them (level 0 marks them above)
  const numbered = blocks.some((b) => b.heading && b.level > 0);
  let open = 0;
  for (const b of blocks) {
    if (!b.heading) continue;
    if (b.level > 0) open = b.level;
    else b.level = numbered ? open + 1 : 1;
  }
  // a heading with nothing under it is text
  for (let i = blocks.length - 1; i >= 0; i--) {
    const b = blocks[i]!;
    const next = blocks[i + 1];
    if (b.heading && (!next || (next.heading && next.level <= b.level))) blocks[i] = { heading: false, para: { text: b.text, page: b.page } };
  }

  const stack: { level: number; text: string }[] = [];
  const perPage = new Map<number, number>();
  const out: Chunk[] = [];
  let run: Paragraph[] = [];
  const flush = (): void => {
    if (!run.length) return;
    const path = [meta.title, ...stack.map((s) => s.text)];
    for (const group of packParagraphs(run, maxChars)) out.push(draftOf(group, meta, path, perPage));
    run = [];
  };
  for (const b of blocks) {
    if (b.heading) {
      flush();
      while (stack.length && stack[stack.length - 1]!.level >= b.level) stack.pop();
      stack.push({ level: b.level, text: b.text });
      continue;
    }
    if (run.length && run[run.length - 1]!.page !== b.para.page) flush();
    run.push(b.para);
  }
  flush();
  // nothing but the title: the paragraphs as they are
  return out.length ? out : chunkParagraphs(doc, meta);
}
