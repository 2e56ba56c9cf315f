/**
 * Late-interaction reranking (ColBERT-style MaxSim): for each query token the
 * best cosine over the candidate's token embeddings, averaged over query tokens
 * (scale [-1, 1]). Candidate token embeddings are computed at query time for the
 * pool and cached. A real ColBERT or cross-encoder implements the same interface.
 */
import type { Embedder } from '../embedding/embedder.js';

export interface Reranker {
  readonly name: string;
  /** One score per candidate text, same order. */
  score(query: string, candidates: { key: string; text: string }[]): Promise<number[]>;
}

export function maxSim(query: Float32Array[], doc: Float32Array[]): number {
  if (!query.length || !doc.length) return 0;
  let total = 0;
  for (const q of query) {
    let best = -1;
    for (const d of doc) {
      let s = 0;
      for (let i = 0; i < q.length; i++) s += q[i]! * d[i]!;
      if (s > best) best = s;
    }
    total += best;
  }
  return total / query.length;
}

export class MaxSimReranker implements Reranker {
  readonly name = 'maxsim-minilm';
  private cache = new Map<string, Float32Array[]>();
  constructor(
    private embedder: Embedder,
    private maxCache = 512,
  ) {}

  async score(query: string, candidates: { key: string; text: string }[]): Promise<number[]> {
    const q = await this.embedder.embedTokens(query);
    const out: number[] = [];
    for (const c of candidates) {
      let toks = this.cache.get(c.key);
      if (!toks) {
        toks = await this.embedder.embedTokens(c.text);
        if (this.cache.size >= this.maxCache) this.cache.delete(this.cache.keys().next().value as string);
        this.cache.set(c.key, toks);
      }
      out.push(maxSim(q, toks));
    }
    return out;
  }
}
