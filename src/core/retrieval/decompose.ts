/**
 * Query decomposition (SKYSAFE §2.7.1, Appendix A.2.1): a compound question is
 * split into at most N sub-queries `{queries:[{query, reasoning_level}]}`; each
 * runs the same pipeline and the evidence is merged without duplicates. The LLM
 * decomposer lives in the answer stage; here the interface, a deterministic
 * splitter for explicit question lists and conjunctions, and the merge.
 */
import type { Chunk } from '../model/chunk.js';
import { assembleContext } from './context.js';
import type { RetrievalEngine, RetrieveOptions } from './engine.js';
import type { Evidence, RetrievalResult } from './types.js';

export type ReasoningLevel = 'none' | 'low' | 'medium' | 'high';

export interface Decomposition {
  queries: { query: string; reasoning_level: ReasoningLevel }[];
}

export interface QueryDecomposer {
  decompose(question: string, maxQueries: number): Promise<Decomposition>;
}

const QUESTION_WORD = String.raw`(?:what|which|how|when|where|who|whom|why|is|are|does|do|can|may|must|should|will)`;

/**
 * Deterministic splitter: several questions in one message ("…? …?"), numbered
 * or bulleted lists, and ", and <question word> …" / "; <question word> …"
 * conjunctions. Anything else stays one query.
 */
export function splitCompoundQuestion(question: string, maxQueries = 3): Decomposition {
  const text = question.trim();
  let parts: string[] = [];
  const listItems = text
    .split(/\n\s*(?:\d+[.)]|[-•—])\s+/)
    .map((s) => s.trim())
    .filter(Boolean);
  if (listItems.length > 1) parts = listItems;
  else {
    const questions = text
      .split(/(?<=\?)\s+(?=\S)/)
      .map((s) => s.trim())
      .filter(Boolean);
    parts =
      questions.length > 1 ? questions : text.split(new RegExp(String.raw`(?:,\s*and|;\s*(?:and\s+)?)\s+(?=${QUESTION_WORD}\b)`, 'i')).map((s) => s.trim());
  }
  parts = parts.filter((p) => p.replace(/[^\p{L}\p{N}]/gu, '').length >= 3);
  if (parts.length <= 1) return { queries: [{ query: text, reasoning_level: 'none' }] };
  const kept = parts.slice(0, Math.max(1, maxQueries));
  return { queries: kept.map((q) => ({ query: q, reasoning_level: 'low' })) };
}

export const deterministicDecomposer: QueryDecomposer = {
  async decompose(question, maxQueries) {
    return splitCompoundQuestion(question, maxQueries);
  },
};

export interface DecomposedResult {
  decomposition: Decomposition;
  /** One result per sub-query, in order. */
  parts: RetrievalResult[];
  /** Merged evidence: each chunk once, with its best score, ordered by score. */
  evidence: Evidence[];
  noEvidence: boolean;
  context: string;
}

/** Merge sub-query results without duplicate chunks (best score wins; ties keep the earlier sub-query). */
export function mergeEvidence(results: Pick<RetrievalResult, 'evidence'>[]): Evidence[] {
  const best = new Map<string, Evidence & { order: number }>();
  let order = 0;
  for (const r of results) {
    for (const e of r.evidence) {
      const prev = best.get(e.id);
      if (!prev || e.score > prev.score) best.set(e.id, { ...e, order: prev?.order ?? order });
      order++;
    }
  }
  return [...best.values()].sort((a, b) => b.score - a.score || a.order - b.order).map(({ order: _o, ...e }) => e);
}

export async function retrieveDecomposed(
  engine: RetrievalEngine,
  question: string,
  decomposer: QueryDecomposer,
  chunkOf: (row: number) => Chunk,
  options: RetrieveOptions & { maxQueries?: number; contextChars?: number } = {},
): Promise<DecomposedResult> {
  const decomposition = await decomposer.decompose(question, options.maxQueries ?? 3);
  const parts: RetrievalResult[] = [];
  for (const q of decomposition.queries) parts.push(await engine.retrieve(q.query, options));
  const evidence = mergeEvidence(parts);
  const ctx = assembleContext(
    evidence.map((e) => chunkOf(e.row)),
    options.contextChars ?? engine.config.contextChars,
  );
  return { decomposition, parts, evidence, noEvidence: evidence.length === 0, context: ctx.context };
}
