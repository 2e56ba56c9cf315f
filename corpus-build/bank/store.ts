/**
 * Reading the committed question bank and holding it against today's chunks: a question whose
 * spans moved (same chunk, new offsets; or another chunk of the same source after a re-chunking)
 * is carried over; one whose spans are nowhere is reported by id, never dropped silently.
 */
import { existsSync, readFileSync } from 'node:fs';
import { resolve } from 'node:path';
import { DataFileError } from '../errors.js';
import { parseJsonl, sha256 } from '../synth/store.js';
import { BANK_FILE, BANK_META_FILE, type AnswerSpan, type BankQuestion, relocateSpan, sha16 } from './bank.js';

const REBUILD = 'npm run bank -- build (from the drafts; docs/question-bank.md)';

export function readBank(dir: string): BankQuestion[] {
  const path = resolve(dir, BANK_FILE);
  const metaPath = resolve(dir, BANK_META_FILE);
  if (!existsSync(path) || !existsSync(metaPath)) throw new DataFileError(`corpus-build/data/${BANK_FILE}`, null, null, REBUILD);
  const meta = JSON.parse(readFileSync(metaPath, 'utf8')) as { files: Record<string, { sha256: string }> };
  const bytes = readFileSync(path);
  const expected = meta.files[BANK_FILE]?.sha256 ?? null;
  const actual = sha256(bytes);
  if (expected !== actual) throw new DataFileError(`corpus-build/data/${BANK_FILE}`, expected, actual, REBUILD);
  return parseJsonl<BankQuestion>(bytes.toString('utf8'), `corpus-build/data/${BANK_FILE}`);
}

/** The committed bank file's SHA-256 (for an index's provenance). */
export function readBankSha(dir: string): string {
  return sha256(readFileSync(resolve(dir, BANK_FILE)));
}

export interface BankCheck {
  current: number;
  /** Questions whose spans were found again (new offsets or another chunk). */
  moved: { id: string; from: string; to: string }[];
  lost: { id: string; chunk: string; why: string }[];
  /** Every question that is usable today, with spans against today's chunk text. */
  usable: BankQuestion[];
}

/** The bank held against today's chunks. */
export function checkBank(bank: BankQuestion[], chunks: { id: string; docId: string; text: string }[]): BankCheck {
  const byId = new Map(chunks.map((c) => [c.id, c]));
  const out: BankCheck = { current: 0, moved: [], lost: [], usable: [] };
  for (const q of bank) {
    const c = byId.get(q.chunk);
    if (c && sha16(c.text) === q.textSha) {
      out.current++;
      out.usable.push(q);
      continue;
    }
    const relocate = (text: string): AnswerSpan[] | null => {
      const spans = q.answer.map((s) => relocateSpan(text, s));
      return spans.every((s) => s !== null) ? (spans as AnswerSpan[]) : null;
    };
    let found: { chunk: string; text: string; spans: AnswerSpan[] } | null = null;
    if (c) {
      const spans = relocate(c.text);
      if (spans) found = { chunk: c.id, text: c.text, spans };
    }
    if (!found) {
      const doc = q.chunk.split('/')[0];
      for (const other of chunks) {
        if (other.docId !== doc || other.id === q.chunk) continue;
        const spans = relocate(other.text);
        if (spans) {
          found = { chunk: other.id, text: other.text, spans };
          break;
        }
      }
    }
    if (!found) {
      out.lost.push({
        id: q.id,
        chunk: q.chunk,
        why: c
          ? 'passage changed and its answering text is no longer in it or its source'
          : 'passage no longer exists and its answering text is nowhere in its source',
      });
      continue;
    }
    out.moved.push({ id: q.id, from: q.chunk, to: found.chunk });
    out.usable.push({ ...q, chunk: found.chunk, textSha: sha16(found.text), answer: found.spans });
  }
  return out;
}
