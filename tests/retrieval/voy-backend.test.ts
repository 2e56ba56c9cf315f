/**
 * voy (the WASM k-d tree the browser worker builds at load) returns exactly what the exact scan
 * returns — same rows, same scores, same order — with and without filters. Instantiated the way
 * the worker does it (src/runtime/voy.ts), from the installed .wasm file.
 */
import { describe, expect, it } from 'vitest';
import { loadVoyInNode } from '../../corpus-build/node/voy.js';
import { exactBackend, voyBackend } from '../../src/core/retrieval/dense.js';
import { seededRandom } from '../../src/core/random.js';

/** n unit vectors: clusters around a few centres (like passages of one document), some exact duplicates. */
function vectors(n: number, dim: number, seed: number): Float32Array {
  const r = seededRandom(seed);
  const centres = Array.from({ length: 8 }, () => Array.from({ length: dim }, () => r() * 2 - 1));
  const out = new Float32Array(n * dim);
  for (let i = 0; i < n; i++) {
    if (i > 0 && i % 37 === 0) {
      out.copyWithin(i * dim, (i - 1) * dim, i * dim); // a duplicate of the previous row
      continue;
    }
    const c = centres[i % centres.length]!;
    let norm = 0;
    for (let d = 0; d < dim; d++) {
      const v = c[d]! + (r() * 2 - 1) * 0.4;
      out[i * dim + d] = v;
      norm += v * v;
    }
    norm = Math.sqrt(norm);
    for (let d = 0; d < dim; d++) out[i * dim + d]! /= norm;
  }
  return out;
}

describe('voy dense backend', () => {
  const dim = 48;
  const n = 600;
  const data = vectors(n, dim, 7);
  const queries = vectors(120, dim, 99);
  const all = new Uint8Array(n).fill(1);

  it('returns the exact scan’s top-k for every query (rows, scores and order)', async () => {
    const voy = voyBackend(await loadVoyInNode(), data, dim);
    const exact = exactBackend(data, dim);
    for (const k of [1, 10, 50]) {
      for (let q = 0; q < 120; q++) {
        const qv = queries.subarray(q * dim, (q + 1) * dim);
        expect(voy.search(qv, k, all)).toEqual(exact.search(qv, k, all));
      }
    }
    expect(voy.name).toBe('voy');
  });

  it('returns the exact scan’s top-k among the allowed rows when filters leave few of them', async () => {
    const voy = voyBackend(await loadVoyInNode(), data, dim);
    const exact = exactBackend(data, dim);
    for (const keep of [0.5, 0.05, 3 / n]) {
      const r = seededRandom(Math.round(keep * 1000));
      const allowed = new Uint8Array(n).map(() => (r() < keep ? 1 : 0));
      for (let q = 0; q < 40; q++) {
        const qv = queries.subarray(q * dim, (q + 1) * dim);
        expect(voy.search(qv, 20, allowed)).toEqual(exact.search(qv, 20, allowed));
      }
    }
  });

  it('finds a stored vector as its own nearest neighbour', async () => {
    const voy = voyBackend(await loadVoyInNode(), data, dim);
    const row = 123;
    const [top] = voy.search(data.subarray(row * dim, (row + 1) * dim), 1, all);
    expect(top!.row).toBe(row);
    expect(top!.score).toBeCloseTo(1, 5);
  });
});
