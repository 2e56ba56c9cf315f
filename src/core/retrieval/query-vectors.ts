/**
 * The one place a query is embedded: the question and its alternative formulations in one call,
 * with the time it took, and the trace step that says so. The engine's `retrieve` and the Ask
 * turn's retrieval (core/ask/retrieve.ts, which embeds once for the flat search and the agents)
 * both go through it.
 */
import type { Embedder } from '../embedding/embedder.js';
import type { RetrievalResult } from './types.js';

export interface QueryVectors {
  vector: Float32Array;
  /** One per alternative formulation, in order. */
  alternatives: Float32Array[];
  ms: number;
}

/** The query's vector and its alternatives' vectors, embedded in one call. */
export async function embedQuery(
  embedder: Pick<Embedder, 'embed'>,
  query: string,
  alternatives: readonly string[],
  now: () => number = () => performance.now(),
): Promise<QueryVectors> {
  const t = now();
  const [vector, ...rest] = await embedder.embed([query, ...alternatives], 'query');
  return { vector: vector!, alternatives: rest, ms: now() - t };
}

/** The result with the embedding as its first trace step and in its total time. */
export function withQueryEmbedding<R extends Pick<RetrievalResult, 'trace' | 'totalMs'>>(result: R, q: QueryVectors): R {
  result.trace.unshift({
    stage: 'embed query',
    ms: q.ms,
    candidates: [],
    ...(q.alternatives.length ? { note: `and ${q.alternatives.length} alternative formulation(s)` } : {}),
  });
  result.totalMs += q.ms;
  return result;
}
