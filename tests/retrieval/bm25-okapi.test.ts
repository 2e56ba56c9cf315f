import { describe, expect, it } from 'vitest';
import { buildBm25 } from '../../src/core/index/bm25.js';
import { bm25Search } from '../../src/core/retrieval/bm25-search.js';

const docs = [
  { id: 'a', retrieval: 'buffer buffer width', docId: 'd' },
  { id: 'b', retrieval: 'the width of the the the the thing', docId: 'd' },
  { id: 'c', retrieval: 'observer duties', docId: 'd' },
];
const rowOf = new Map(docs.map((d, i) => [d.id, i]));
const all = new Uint8Array(docs.length).fill(1);

/** Okapi BM25 by hand with MiniSearch's idf, ln(1 + (N − n + 0.5)/(n + 0.5)), and its document length: distinct terms. */
function okapi(tf: number, n: number, len: number, avg: number, k1: number, b: number) {
  const idf = Math.log(1 + (3 - n + 0.5) / (n + 0.5));
  return (idf * tf * (k1 + 1)) / (tf + k1 * (1 - b + (b * len) / avg));
}

describe('the lexical stage is plain Okapi BM25', () => {
  it('scores one term as Okapi BM25 (no BM25+ constant)', () => {
    const ms = buildBm25(docs);
    const [hit] = bm25Search(ms, 'buffer', rowOf, all, 10, { k1: 1.5, b: 0.75 });
    const avg = (2 + 4 + 2) / 3;
    expect(hit!.row).toBe(0);
    expect(hit!.score).toBeCloseTo(okapi(2, 1, 2, avg, 1.5, 0.75), 6);
  });

  it("sums the terms' Okapi scores without multiplying by the number of matched query words", () => {
    const ms = buildBm25(docs);
    const hits = bm25Search(ms, 'the buffer width', rowOf, all, 10, { k1: 1.5, b: 0.75 });
    const avg = (2 + 4 + 2) / 3;
    // a: "buffer" (in a only) and "width" (in a and b); b: "the" (in b only, ×5) and "width"
    const a = okapi(2, 1, 2, avg, 1.5, 0.75) + okapi(1, 2, 2, avg, 1.5, 0.75);
    const b = okapi(5, 1, 4, avg, 1.5, 0.75) + okapi(1, 2, 4, avg, 1.5, 0.75);
    const byRow = new Map(hits.map((h) => [h.row, h.score]));
    expect(byRow.get(0)).toBeCloseTo(a, 6);
    expect(byRow.get(1)).toBeCloseTo(b, 6);
    expect(byRow.has(2)).toBe(false);
  });

  it('indexes synthetic questions with the retrieval string', () => {
    const ms = buildBm25(docs, (id) => (id === 'c' ? ['who scans the sky for planes?'] : []));
    expect(bm25Search(ms, 'sky planes', rowOf, all, 10, { k1: 1.5, b: 0.75 }).map((h) => h.row)).toEqual([2]);
  });
});
