/**
 * Test helper: the EASA source text, read through CORPUS_DIR (resolved against the repository
 * root), with page attribution by counting the page footers.
 */
import { existsSync, readFileSync } from 'node:fs';
import { resolve } from 'node:path';
import { fileURLToPath } from 'node:url';

export const REPO_ROOT = fileURLToPath(new URL('../..', import.meta.url));
export const CORPUS_DIR = resolve(REPO_ROOT, process.env.CORPUS_DIR ?? '../shared/corpus');
export const SOURCE_PATH = resolve(CORPUS_DIR, 'easa-amc-gm-2019-947', 'source.txt');
export const EVAL_DIR = resolve(CORPUS_DIR, '..', 'eval');

const FOOTER = /^\s*Annex to ED Decision 2025\/018\/R\s+Page (\d+) of 204\s*$/;

export interface SourceText {
  readonly lines: readonly string[];
  /** Page (1-based) of a line: 1 + the number of footers above it. */
  pageOf(lineIndex: number): number;
  /** Index of the single line whose trimmed text equals `text` (throws if absent or repeated). */
  lineEquals(text: string, from?: number, to?: number): number;
  /** Index of the last line at or before `before` whose trimmed text satisfies `test`. */
  findBackward(before: number, test: (trimmed: string) => boolean): number;
  /** Index of the first line at or after `from` whose trimmed text satisfies `test`. */
  findForward(from: number, test: (trimmed: string) => boolean): number;
}

export function loadSource(): SourceText {
  if (!existsSync(SOURCE_PATH)) {
    throw new Error(`Corpus not found at ${SOURCE_PATH}. Set CORPUS_DIR (relative to the repository root), e.g. CORPUS_DIR=../shared/corpus.`);
  }
  const lines = readFileSync(SOURCE_PATH, 'utf8').split(/\r?\n/);
  const footerBefore: number[] = [];
  let count = 0;
  lines.forEach((l, i) => {
    footerBefore[i] = count;
    const m = FOOTER.exec(l);
    if (m) {
      count += 1;
      if (Number(m[1]) !== count) throw new Error(`footer ${m[1]} found where page ${count} was expected (line ${i + 1})`);
    }
  });
  return {
    lines,
    pageOf: (i) => (footerBefore[i] ?? count) + 1,
    lineEquals(text, from = 0, to = lines.length) {
      const hits: number[] = [];
      for (let i = from; i < to; i++) if (lines[i]?.trim() === text) hits.push(i);
      if (hits.length !== 1) throw new Error(`expected exactly one line "${text}", found ${hits.length}`);
      return hits[0] as number;
    },
    findBackward(before, test) {
      for (let i = before; i >= 0; i--) if (test((lines[i] ?? '').trim())) return i;
      throw new Error('line not found (backward search)');
    },
    findForward(from, test) {
      for (let i = from; i < lines.length; i++) if (test((lines[i] ?? '').trim())) return i;
      throw new Error('line not found (forward search)');
    },
  };
}

/** Splits a layout line into cells at runs of two or more spaces. */
export function layoutCells(line: string): string[] {
  return line
    .trim()
    .split(/\s{2,}/)
    .filter((c) => c !== '');
}

/** Collapses whitespace runs to one space. */
export const collapse = (s: string): string => s.replace(/\s+/g, ' ').trim();
