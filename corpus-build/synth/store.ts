/**
 * The committed synthetic-question data: `corpus-build/data/synthetic-questions.jsonl`
 * (one record per passage) and `corpus-build/data/offtopic-questions.jsonl` (negatives
 * for the evidence gate), described by `synthetic-questions.meta.json` (model and
 * its SHA-256, prompt versions, sampling settings, timings, and the SHA-256 of each
 * data file). Readers verify the hashes and name the regenerating command on failure.
 */
import { createHash } from 'node:crypto';
import { existsSync, readFileSync } from 'node:fs';
import { resolve } from 'node:path';
import { DataFileError } from '../errors.js';
import type { QuestionStyle } from './prompt.js';

export const DATA_DIR = resolve(process.env.SKYCITE_DATA_DIR ?? 'corpus-build/data');
export const SYNTH_FILE = 'synthetic-questions.jsonl';
export const OFFTOPIC_FILE = 'offtopic-questions.jsonl';
export const META_FILE = 'synthetic-questions.meta.json';
export const REGENERATE = 'npm run synth:questions -- --model <Qwen2.5-Coder-1.5B-Instruct GGUF> (see docs/synthetic-questions.md)';

export interface SynthQuestion {
  style: QuestionStyle;
  q: string;
}

export interface PassageQuestions {
  /** Chunk id. */
  chunk: string;
  /** First 16 hex digits of the SHA-256 of the chunk's text: stale when the chunk changes. */
  textSha: string;
  prompt: string;
  questions: SynthQuestion[];
}

export interface OfftopicQuestions {
  topic: string;
  prompt: string;
  questions: string[];
}

export interface SynthMeta {
  formatVersion: 1;
  model: { name: string; file: string; sha256: string };
  generator: string;
  settings: Record<string, unknown>;
  files: Record<string, { sha256: string; records: number; questions: number }>;
  stats: Record<string, unknown>;
}

export const sha256 = (s: string | Uint8Array): string => createHash('sha256').update(s).digest('hex');
export const textSha = (text: string): string => sha256(text).slice(0, 16);

export function readMeta(dir = DATA_DIR): SynthMeta | null {
  const p = resolve(dir, META_FILE);
  if (!existsSync(p)) return null;
  return JSON.parse(readFileSync(p, 'utf8')) as SynthMeta;
}

/** Parse JSON lines, naming the file and line of a malformed record. */
export function parseJsonl<T>(text: string, file: string): T[] {
  const out: T[] = [];
  text.split('\n').forEach((line, i) => {
    if (!line.trim()) return;
    try {
      out.push(JSON.parse(line) as T);
    } catch {
      throw new DataFileError(`${file} (line ${i + 1} is not JSON)`, null, 'malformed', REGENERATE);
    }
  });
  return out;
}

/** Read a committed data file and check it against the meta's SHA-256. */
export function readVerified<T>(name: string, dir = DATA_DIR): T[] {
  const meta = readMeta(dir);
  const path = resolve(dir, name);
  const rel = `corpus-build/data/${name}`;
  const expected = meta?.files[name]?.sha256 ?? null;
  if (!existsSync(path)) throw new DataFileError(rel, expected, null, REGENERATE);
  const bytes = readFileSync(path);
  const actual = sha256(bytes);
  if (!meta) throw new DataFileError(`corpus-build/data/${META_FILE}`, null, null, REGENERATE);
  if (expected !== actual) throw new DataFileError(rel, expected, actual, REGENERATE);
  return parseJsonl<T>(bytes.toString('utf8'), rel);
}

/** The verified passage questions, by chunk id, keeping only records whose text hash matches the chunk. */
export function questionsByChunk(
  chunks: { id: string; text: string }[],
  dir = DATA_DIR,
): { byChunk: Map<string, SynthQuestion[]>; stale: number; missing: number } {
  const records = readVerified<PassageQuestions>(SYNTH_FILE, dir);
  const byId = new Map(records.map((r) => [r.chunk, r]));
  const byChunk = new Map<string, SynthQuestion[]>();
  let stale = 0;
  let missing = 0;
  for (const c of chunks) {
    const r = byId.get(c.id);
    if (!r) missing++;
    else if (r.textSha !== textSha(c.text)) stale++;
    else byChunk.set(c.id, r.questions);
  }
  return { byChunk, stale, missing };
}
