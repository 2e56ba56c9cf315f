/**
 * Composed `both` questions for the router's training set.
 *
 * A `both` message asks for a table value and for text (an obligation, an explanation) in one go.
 * The model-written `both` questions of `route-questions.jsonl` often drop their second half (the
 * 1.5B writer tends to stop after the value), so that class is thin and noisy. A composed question
 * joins two model-written questions: a `database` question of a table (the value) and a passage
 * question about the section that holds the table (the text), e.g.
 * "<value question>? <passage question>?" or "<value question> and <passage question, lower-cased>?".
 * Nothing here comes from an evaluation question: both halves are the writer model's, the passage
 * question is tied to the table by the corpus's own section ids, and the joins are plain English.
 *
 * Pure and deterministic (a seeded generator), so `npm run train:router` is reproducible.
 */
import { seededRandom } from '../../src/core/random.js';

export interface ComposeSource {
  /** The table's chunk id, e.g. `easa-amc-gm-2019-947/amc1-art11/s4.2.3/table-1`. */
  readonly table: string;
  /** Its model-written `database` questions. */
  readonly valueQuestions: readonly string[];
}

export interface PassageSource {
  readonly chunk: string;
  readonly questions: readonly string[];
}

export interface ComposedQuestion {
  readonly text: string;
  readonly table: string;
  /** The passage whose question supplied the text half. */
  readonly chunk: string;
}

/** How the two halves are joined. */
export type Join = 'two-questions' | 'and';

export interface ComposeOptions {
  /** Composed questions per value question (default 1). */
  readonly perQuestion: number;
  readonly seed: number;
}

export const DEFAULT_COMPOSE: ComposeOptions = { perQuestion: 1, seed: 1 };

/** A table chunk's id ends in `/table-<n>` (the chunker's naming); train:router leaves these out of `rules`. */
export const isTableChunk = (id: string): boolean => /\/table-[^/]+$/.test(id);

/**
 * The passages that explain a table: the non-table passages of the table's own section; when there
 * are none, those of its parent section, and so on up to the document.
 */
export function companionPassages(table: string, passages: readonly PassageSource[]): PassageSource[] {
  let prefix = table.replace(/\/table-[^/]+$/, '');
  const text = passages.filter((p) => !isTableChunk(p.chunk) && p.questions.length > 0);
  for (;;) {
    const found = text.filter((p) => p.chunk === prefix || p.chunk.startsWith(`${prefix}/`) || p.chunk.startsWith(`${prefix}.`));
    if (found.length || !prefix.includes('/')) return found;
    const parent = prefix.replace(/\/[^/]+$/, '');
    // a section id like s4.2.3 has the parent s4.2 under the same document folder
    const dotted = /^(.*\/s\d+(?:\.\d+)*)\.\d+$/.exec(prefix);
    prefix = dotted ? dotted[1]! : parent;
  }
}

/** Joins a value question and a text question into one message. */
export function join(value: string, text: string, how: Join): string {
  const v = value.trim();
  const t = text.trim();
  if (how === 'two-questions') return `${/[?.!]$/.test(v) ? v : `${v}?`} ${t}`;
  const head = v.replace(/[?.!]+$/, '');
  const tail = /^[A-Z][a-z]/.test(t) ? t[0]!.toLowerCase() + t.slice(1) : t;
  return `${head}, and ${tail}`;
}

/** Composed `both` questions: each value question joined with passage questions of its section. */
export function composeBoth(tables: readonly ComposeSource[], passages: readonly PassageSource[], options: Partial<ComposeOptions> = {}): ComposedQuestion[] {
  const o = { ...DEFAULT_COMPOSE, ...options };
  const next = seededRandom(o.seed);
  const out: ComposedQuestion[] = [];
  for (const t of tables) {
    const companions = companionPassages(t.table, passages);
    if (!companions.length) continue;
    for (const v of t.valueQuestions) {
      for (let i = 0; i < o.perQuestion; i++) {
        const p = companions[Math.floor(next() * companions.length)]!;
        const q = p.questions[Math.floor(next() * p.questions.length)]!;
        out.push({ text: join(v, q, next() < 0.5 ? 'two-questions' : 'and'), table: t.table, chunk: p.chunk });
      }
    }
  }
  return out;
}
