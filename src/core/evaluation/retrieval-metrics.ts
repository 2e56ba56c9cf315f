/**
 * Retrieval evaluation on sets in the format of ../shared/eval/retrieval-dev.jsonl:
 * Hit@1/3/5/10 and MRR (first hit's reciprocal rank, 0 when none in the top 10)
 * per variant, per corpus and overall (answerable questions only), and the
 * no-evidence rate on unanswerable questions.
 */
import { SkyCiteError } from '../errors.js';
import type { Chunk } from '../model/chunk.js';
import { collapseWhitespace } from '../text/sentences.js';

export interface RetrievalQuestion {
  id: string;
  group?: string;
  variant: string;
  question: string;
  corpus: string;
  answerable: boolean;
  evidence?: { quote: string; page?: number }[];
  gold_chunk_index?: number[];
}

export interface Metrics {
  n: number;
  'hit@1': number;
  'hit@3': number;
  'hit@5': number;
  'hit@10': number;
  mrr: number;
}

export interface EvalReport {
  overall: Metrics;
  byVariant: Record<string, Metrics>;
  byCorpus: Record<string, Metrics>;
  unanswerable: { n: number; noEvidenceRate: number };
  /** Answerable questions that got "no evidence" (the gate's cost). */
  answerableRefused: { n: number; rate: number };
}

export class QuestionFormatError extends SkyCiteError {
  override name = 'QuestionFormatError';
  override readonly code = 'question-format';
}

/** Validate one parsed JSONL record as a retrieval question; names the line and field. */
export function toQuestion(value: unknown, where: string): RetrievalQuestion {
  const v = value as Record<string, unknown>;
  const need = (f: string, ok: boolean, what: string) => {
    if (!ok) throw new QuestionFormatError(`${where}: field "${f}" ${what}`);
  };
  need('(record)', typeof v === 'object' && v !== null && !Array.isArray(v), 'must be a JSON object');
  need('id', typeof v.id === 'string', 'must be a string');
  need('question', typeof v.question === 'string' && v.question.trim() !== '', 'must be a non-empty string');
  need('variant', typeof v.variant === 'string', 'must be a string');
  need('corpus', typeof v.corpus === 'string', 'must be a string');
  need('answerable', typeof v.answerable === 'boolean', 'must be true or false');
  if (v.answerable) {
    const hasQuotes = Array.isArray(v.evidence) && v.evidence.every((e) => typeof (e as { quote?: unknown }).quote === 'string');
    const hasGold = Array.isArray(v.gold_chunk_index) && v.gold_chunk_index.every((x) => Number.isInteger(x));
    need('evidence / gold_chunk_index', hasQuotes || hasGold, 'must give quotes ({quote, page}) or curated chunk indexes for an answerable question');
  }
  return v as unknown as RetrievalQuestion;
}

/** Is this chunk a hit for the question? Quotes match the whitespace-collapsed text; curated golds match chunk_index. */
export function isHit(q: RetrievalQuestion, chunk: Chunk): boolean {
  if (q.evidence?.length) {
    const text = collapseWhitespace(chunk.text);
    if (q.evidence.some((e) => text.includes(collapseWhitespace(e.quote)))) return true;
  }
  if (q.gold_chunk_index?.length && chunk.docId === 'skysafe-sora-curated') {
    const idx = (chunk.extra as { chunkIndex?: number } | undefined)?.chunkIndex;
    if (idx !== undefined && q.gold_chunk_index.includes(idx)) return true;
  }
  return false;
}

/** 1-based rank of the first hit in the top 10, or 0. */
export function firstHitRank(q: RetrievalQuestion, ranked: Chunk[]): number {
  const i = ranked.slice(0, 10).findIndex((c) => isHit(q, c));
  return i < 0 ? 0 : i + 1;
}

export function metricsOf(ranks: number[]): Metrics {
  const n = ranks.length;
  const rate = (k: number) => (n ? ranks.filter((r) => r > 0 && r <= k).length / n : 0);
  return {
    n,
    'hit@1': rate(1),
    'hit@3': rate(3),
    'hit@5': rate(5),
    'hit@10': rate(10),
    mrr: n ? ranks.reduce((s, r) => s + (r > 0 ? 1 / r : 0), 0) / n : 0,
  };
}

export interface QuestionOutcome {
  question: RetrievalQuestion;
  rank: number;
  noEvidence: boolean;
  topIds: string[];
}

export function summarise(outcomes: QuestionOutcome[]): EvalReport {
  const answerable = outcomes.filter((o) => o.question.answerable);
  const group = (key: (o: QuestionOutcome) => string, always: readonly string[] = []) => {
    const out: Record<string, Metrics> = {};
    const keys = [...new Set([...always, ...answerable.map(key)])].sort();
    for (const k of keys) out[k] = metricsOf(answerable.filter((o) => key(o) === k).map((o) => o.rank));
    return out;
  };
  const un = outcomes.filter((o) => !o.question.answerable);
  return {
    overall: metricsOf(answerable.map((o) => o.rank)),
    // the three variants of the SKYSAFE test are always reported (n = 0 when a file has none)
    byVariant: group((o) => o.question.variant, ['direct', 'synonym', 'reworked']),
    byCorpus: group((o) => o.question.corpus),
    unanswerable: { n: un.length, noEvidenceRate: un.length ? un.filter((o) => o.noEvidence).length / un.length : 0 },
    answerableRefused: { n: answerable.length, rate: answerable.length ? answerable.filter((o) => o.noEvidence).length / answerable.length : 0 },
  };
}

/** Documents (logical, Chunk.documentId) that hold a gold passage of the question. */
export function goldDocuments(q: RetrievalQuestion, chunks: Chunk[]): string[] {
  return [...new Set(chunks.filter((c) => isHit(q, c)).map((c) => c.documentId ?? c.docId))];
}

export interface DocumentSelection {
  /** Answerable questions whose gold passage is in some document. */
  n: number;
  /** Share whose first selected document holds a gold passage. */
  top1: number;
  /** Share where one of the (up to three) selected documents holds it. */
  top3: number;
  /**
   * Share where one of the documents whose evidence passed the gate (the answer's documents)
   * holds it; `kept` defaults to `selected` (a flat ranking's documents are already past the gate).
   */
  kept: number;
}

/** Document selection accuracy: `selected` in rank order (up to 3 count), `gold` the documents holding a gold passage, `kept` the documents the answer used. */
export function documentSelection(cases: { gold: string[]; selected: string[]; kept?: string[] }[]): DocumentSelection {
  const withGold = cases.filter((c) => c.gold.length);
  const n = withGold.length;
  const share = (hit: (c: (typeof withGold)[number]) => boolean) => (n ? withGold.filter(hit).length / n : 0);
  const rate = (k: number) => share((c) => c.selected.slice(0, k).some((d) => c.gold.includes(d)));
  return { n, top1: rate(1), top3: rate(3), kept: share((c) => (c.kept ?? c.selected.slice(0, 3)).some((d) => c.gold.includes(d))) };
}
