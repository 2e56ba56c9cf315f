/**
 * The question bank: questions as people ask them, written by careful reading of each passage
 * (docs/question-bank.md). Each question marks the passage's answering sentence(s) as character
 * spans of the chunk text — never as copied text, so no source wording enters the repository —
 * with a hash of each span's whitespace-collapsed text, so a span can be found again after a
 * rebuild moves it (same chunk or another chunk of the same source).
 *
 * Drafts (written by hand, outside git, `.tmp/bank/*.jsonl`) carry the answering text as quotes;
 * `npm run bank -- build` turns them into the committed `corpus-build/data/question-bank.jsonl`.
 */
import { createHash } from 'node:crypto';

export const BANK_FILE = 'question-bank.jsonl';
export const BANK_META_FILE = 'question-bank.meta.json';

export const PERSONAS = ['operator', 'inspector', 'newcomer', 'engineer'] as const;
export type Persona = (typeof PERSONAS)[number];
/** lay: everyday words; situation: framed as the asker's case; terse: incomplete or keyword-like; document: the document's own terms. */
export const STYLES = ['lay', 'situation', 'terse', 'document'] as const;
export type Style = (typeof STYLES)[number];

/** One line of a draft file. */
export interface DraftQuestion {
  chunk: string;
  q: string;
  persona: Persona;
  style: Style;
  /** Verbatim quotes of the passage that answer the question (whitespace may differ). */
  answer: string[];
}
/** A passage the writer read and found nothing to ask about (with the reason). */
export interface DraftSkip {
  chunk: string;
  skip: string;
}
export type DraftLine = DraftQuestion | DraftSkip;

export interface AnswerSpan {
  start: number;
  end: number;
  /** Words in the span (whitespace-separated): the window length used to find it again. */
  words: number;
  /** First 16 hex of the SHA-256 of the span's whitespace-collapsed text. */
  sha: string;
}

export type Split = 'train' | 'heldout';

export interface BankQuestion {
  id: string;
  chunk: string;
  /** First 16 hex of the SHA-256 of the chunk text the spans index into. */
  textSha: string;
  q: string;
  persona: Persona;
  style: Style;
  answer: AnswerSpan[];
  /** The document section the question belongs to: splits and CV folds never cut a group. */
  group: string;
  split: Split;
  /** Group-wise CV fold (0..CV_FOLDS-1) for train questions; -1 for held-out. */
  fold: number;
  /** Which draft file (writer) it came from. */
  writer: string;
}

export interface BankSkip {
  chunk: string;
  textSha: string;
  skip: string;
  writer: string;
}

export const CV_FOLDS = 5;
/** Share of section groups kept out of every choice until the report (by hash of the group). */
export const HELDOUT_SHARE = 0.2;

export const sha16 = (s: string): string => createHash('sha256').update(s).digest('hex').slice(0, 16);
export const collapse = (s: string): string => s.replace(/\s+/g, ' ').trim();

/** The normalised form used to match quotes: whitespace collapsed, typographic quotes and dashes folded. */
function fold(ch: string): string {
  if (/[\u2018\u2019\u201a\u201b`´]/.test(ch)) return "'";
  if (/[\u201c\u201d\u201e\u201f]/.test(ch)) return '"';
  if (/[\u2010-\u2015\u2212]/.test(ch)) return '-';
  return ch;
}

/** The text with whitespace runs collapsed to one space and characters folded, with each kept character's offset in the original. */
function normalisedWithOffsets(text: string): { norm: string; at: number[] } {
  let norm = '';
  const at: number[] = [];
  let space = false;
  for (let i = 0; i < text.length; i++) {
    const ch = text[i]!;
    if (/\s/.test(ch)) {
      space = norm.length > 0;
      continue;
    }
    if (space) {
      norm += ' ';
      at.push(i - 1);
      space = false;
    }
    norm += fold(ch);
    at.push(i);
  }
  return { norm, at };
}

/** Where a quote stands in a text (whitespace, quote marks and dashes may differ), or null. */
export function locateQuote(text: string, quote: string): AnswerSpan | null {
  const q = normalisedWithOffsets(quote).norm;
  if (q.length === 0) return null;
  const { norm, at } = normalisedWithOffsets(text);
  const i = norm.indexOf(q);
  if (i < 0) return null;
  const start = at[i]!;
  const end = at[i + q.length - 1]! + 1;
  return spanOf(text, start, end);
}

export function spanOf(text: string, start: number, end: number): AnswerSpan {
  const body = collapse(text.slice(start, end));
  return { start, end, words: body.split(' ').length, sha: sha16(body) };
}

/** The span's text, or null when the text no longer holds it at those offsets. */
export function spanText(text: string, span: AnswerSpan): string | null {
  const body = collapse(text.slice(span.start, span.end));
  return sha16(body) === span.sha ? body : null;
}

/**
 * Find a span again in a changed text: the window of `span.words` words whose collapsed text has
 * the span's hash. Returns the new span or null.
 */
export function relocateSpan(text: string, span: AnswerSpan): AnswerSpan | null {
  if (spanText(text, span) !== null) return span;
  const words: { start: number; end: number }[] = [];
  for (const m of text.matchAll(/\S+/g)) words.push({ start: m.index, end: m.index + m[0].length });
  for (let i = 0; i + span.words <= words.length; i++) {
    const start = words[i]!.start;
    const end = words[i + span.words - 1]!.end;
    // a quote may start or end inside a word (punctuation glued to it): try the exact window only
    if (sha16(collapse(text.slice(start, end))) === span.sha) return spanOf(text, start, end);
  }
  return null;
}

/** The section group of a chunk: document id and the first three levels of its section path. */
export function groupOf(chunk: { id: string; docId: string; documentId?: string; sectionPath: string[] }): string {
  const doc = chunk.documentId ?? chunk.docId;
  if (chunk.docId === 'skysafe-sora-curated') return `${doc}/${chunk.sectionPath[0] ?? chunk.id}`;
  const top = chunk.sectionPath.slice(0, 3).join(' › ');
  return `${doc}/${top}`;
}

/** FNV-1a 32-bit: a stable hash for split assignment. */
export function fnv1a(s: string): number {
  let h = 0x811c9dc5;
  for (let i = 0; i < s.length; i++) {
    h ^= s.charCodeAt(i);
    h = Math.imul(h, 0x01000193) >>> 0;
  }
  return h >>> 0;
}

/** Held-out or train (with its CV fold), by the group's hash: never by reading a question. */
export function splitOf(group: string): { split: Split; fold: number } {
  const h = fnv1a(group);
  if ((h % 1000) / 1000 < HELDOUT_SHARE) return { split: 'heldout', fold: -1 };
  return { split: 'train', fold: fnv1a(`fold:${group}`) % CV_FOLDS };
}

export function isSkip(line: DraftLine): line is DraftSkip {
  return 'skip' in line;
}

/** Problems of one draft line against its chunk; empty when the line is usable. */
export function draftProblems(line: DraftLine, chunkText: string | undefined): string[] {
  const out: string[] = [];
  if (chunkText === undefined) return [`unknown chunk id "${line.chunk}"`];
  if (isSkip(line)) return line.skip.trim() ? [] : ['skip needs a reason'];
  if (typeof line.q !== 'string' || line.q.trim().length < 8) out.push('question missing or too short');
  if (!PERSONAS.includes(line.persona)) out.push(`persona must be one of ${PERSONAS.join(', ')}`);
  if (!STYLES.includes(line.style)) out.push(`style must be one of ${STYLES.join(', ')}`);
  if (!Array.isArray(line.answer) || line.answer.length === 0) out.push('answer needs at least one quote');
  else
    for (const a of line.answer) {
      if (typeof a !== 'string' || collapse(a).length < 12) out.push(`quote too short: ${JSON.stringify(a)}`);
      else if (!locateQuote(chunkText, a)) out.push(`quote not found in the passage: ${JSON.stringify(a.slice(0, 80))}`);
    }
  return out;
}
