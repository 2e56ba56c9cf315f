/**
 * Dense retrieval over L2-normalised vectors: exact flat inner product (the
 * deterministic baseline) or voy (WASM k-d tree, built at load time from the
 * same vectors). Both return cosine scores.
 */
import { dot } from '../embedding/similarity.js';
import type { Scored } from './types.js';

export interface DenseBackend {
  readonly name: 'exact' | 'voy';
  search(query: Float32Array, k: number, allowed: Uint8Array): Scored[];
}

/** Top-k rows by inner product among allowed rows; ties by row for determinism. */
export function topK(scores: Float64Array | Float32Array, k: number, allowed: Uint8Array): Scored[] {
  const out: Scored[] = [];
  for (let row = 0; row < scores.length; row++) if (allowed[row]) out.push({ row, score: scores[row]! });
  out.sort((a, b) => b.score - a.score || a.row - b.row);
  return out.slice(0, k);
}

export function exactBackend(vectors: Float32Array, dim: number): DenseBackend {
  const n = vectors.length / dim;
  return {
    name: 'exact',
    search(q, k, allowed) {
      const scores = new Float64Array(n);
      for (let r = 0; r < n; r++) scores[r] = dot(q, vectors, r * dim, dim);
      return topK(scores, k, allowed);
    },
  };
}

/** The part of voy's API we use. */
export interface VoyLike {
  search(query: Float32Array, k: number): { neighbors: { id: string }[] };
}
export type VoyConstructor = new (resource: { embeddings: { id: string; title: string; url: string; embeddings: number[] }[] }) => VoyLike;

/**
 * voy backend: nearest neighbours from the WASM index, rescored with exact
 * cosines. voy has no filters, so it oversamples and filters afterwards.
 */
export function voyBackend(Voy: VoyConstructor, vectors: Float32Array, dim: number): DenseBackend {
  const n = vectors.length / dim;
  const embeddings = Array.from({ length: n }, (_, r) => ({
    id: String(r),
    title: '',
    url: '',
    embeddings: Array.from(vectors.subarray(r * dim, (r + 1) * dim)),
  }));
  const voy = new Voy({ embeddings });
  return {
    name: 'voy',
    search(q, k, allowed) {
      const allowedCount = allowed.reduce((a, b) => a + b, 0);
      let want = Math.min(n, k * 2);
      for (;;) {
        const rows = voy
          .search(q, want)
          .neighbors.map((x) => Number(x.id))
          .filter((r) => allowed[r]);
        if (rows.length >= Math.min(k, allowedCount) || want >= n) {
          return rows
            .map((row) => ({ row, score: dot(q, vectors, row * dim, dim) }))
            .sort((a, b) => b.score - a.score || a.row - b.row)
            .slice(0, k);
        }
        want = Math.min(n, want * 2);
      }
    },
  };
}
