import { describe, expect, it } from 'vitest';
import type { Chunk } from '../../src/core/model/chunk.js';
import { assembleContext, chunkBlock, CUT_MARK } from '../../src/core/retrieval/context.js';
import { elbowCut } from '../../src/core/retrieval/elbow.js';
import { mmr } from '../../src/core/retrieval/mmr.js';
import { rrf } from '../../src/core/retrieval/rrf.js';
import { allowedRows } from '../../src/core/retrieval/filters.js';
import { broaden, currentEditionFirst, eraOf } from '../../src/core/retrieval/engine.js';
import { keywordHits } from '../../src/core/retrieval/post-score.js';
import { mergeEvidence, splitCompoundQuestion } from '../../src/core/retrieval/decompose.js';

describe('reciprocal rank fusion', () => {
  it('sums 1/(k + rank) over the lists, ranks 1-based, ties by row', () => {
    // list A: 7, 3, 5   list B: 3, 9
    const fused = rrf(
      [
        [
          { row: 7, score: 0.9 },
          { row: 3, score: 0.8 },
          { row: 5, score: 0.1 },
        ],
        [
          { row: 3, score: 12 },
          { row: 9, score: 4 },
        ],
      ],
      60,
      10,
    );
    expect(fused.map((f) => f.row)).toEqual([3, 7, 9, 5]);
    expect(fused[0]!.score).toBeCloseTo(1 / 62 + 1 / 61, 12); // row 3: rank 2 in A, rank 1 in B
    expect(fused[1]!.score).toBeCloseTo(1 / 61, 12); // row 7
    expect(fused[2]!.score).toBeCloseTo(1 / 62, 12); // row 9 (rank 2 in B) ties with nothing
    expect(fused[3]!.score).toBeCloseTo(1 / 63, 12);
    expect(rrf([[{ row: 1, score: 1 }], [{ row: 0, score: 1 }]], 60, 10).map((f) => f.row)).toEqual([0, 1]);
    expect(
      rrf(
        [
          [
            { row: 1, score: 1 },
            { row: 2, score: 0 },
          ],
        ],
        60,
        1,
      ),
    ).toHaveLength(1);
  });
});

describe('maximal marginal relevance', () => {
  // 2-d unit vectors: rows 0 and 1 are near duplicates, row 2 is different
  const v = new Float32Array([1, 0, 0.995, 0.0998749, 0, 1]);
  const cands = [
    { row: 0, score: 0.9 },
    { row: 1, score: 0.89 },
    { row: 2, score: 0.6 },
  ];
  it('picks the most relevant first, then prefers the diverse candidate over the near duplicate', () => {
    // step 2: row 1 → 0.6·0.89 − 0.4·0.995 = 0.136; row 2 → 0.6·0.6 − 0.4·0 = 0.36
    expect(mmr(cands, v, 2, 0.6).map((c) => c.row)).toEqual([0, 2, 1]);
  });
  it('with λ = 1 keeps relevance order', () => {
    expect(mmr(cands, v, 2, 1).map((c) => c.row)).toEqual([0, 1, 2]);
  });
});

describe('elbow filtering', () => {
  it('cuts after the first drop larger than the threshold', () => {
    expect(elbowCut([1.0, 0.95, 0.9, 0.4, 0.35], 0.25)).toBe(3);
    expect(elbowCut([1.0, 0.2, 0.1], 0.25)).toBe(1);
  });
  it('keeps everything when no drop exceeds it', () => {
    expect(elbowCut([1.0, 0.9, 0.8], 0.25)).toBe(3);
    expect(elbowCut([], 0.25)).toBe(0);
  });
});

const chunk = (id: string, text: string, extra: Partial<Chunk> = {}): Chunk => ({
  id,
  docId: 'doc',
  kind: 'section',
  title: `Title ${id}`,
  sectionPath: [`Title ${id}`],
  pageStart: 3,
  pageEnd: 3,
  text,
  summary: '',
  keywords: [],
  jurisdiction: 'EU',
  edition: 'Ed. 1',
  language: 'en',
  links: [],
  retrieval: '',
  ...extra,
});

describe('context assembly', () => {
  it('adds chunks in rank order with [chunk-id] markers and cuts at a chunk boundary', () => {
    const a = chunk('a', 'x'.repeat(100));
    const b = chunk('b', 'y'.repeat(100));
    const c = chunk('c', 'z'.repeat(10));
    const sizeA = chunkBlock(a).length;
    const sizeB = chunkBlock(b).length;
    const ctx = assembleContext([a, b, c], sizeA + 2 + sizeB - 1);
    expect(ctx.included).toEqual(['a']);
    // b does not fit: it and everything after it are left out (no smaller chunk jumps the queue)
    expect(ctx.omitted).toEqual(['b', 'c']);
    expect(ctx.context.startsWith('[a] Title a — doc, page 3\n')).toBe(true);
    expect(assembleContext([a, b], sizeA + 2 + sizeB).included).toEqual(['a', 'b']);
  });

  it('cuts the best passage to fit when it alone is longer than the budget, instead of leaving the context empty', () => {
    const long = chunk('long', 'word '.repeat(400));
    const small = chunk('small', 'short text');
    const ctx = assembleContext([long, small], 500);
    expect(ctx.included).toEqual(['long']);
    expect(ctx.cut).toBe('long');
    expect(ctx.omitted).toEqual(['small']);
    expect(ctx.context.length).toBeLessThanOrEqual(500);
    expect(ctx.context.startsWith('[long] ')).toBe(true);
    expect(ctx.context.endsWith(CUT_MARK)).toBe(true);
    // a passage that fits is never cut
    expect(assembleContext([small, long], 500)).toMatchObject({ included: ['small'], omitted: ['long'] });
    expect(assembleContext([small, long], 500).cut).toBeUndefined();
  });
});

describe('filters and broadening', () => {
  const chunks = [
    chunk('eu', 't', { jurisdiction: 'EU', docId: 'easa' }),
    chunk('fr', 't', { jurisdiction: 'FR', docId: 'qa' }),
    chunk('cur', 't', { jurisdiction: 'EU', docId: 'curated', edition: 'SORA 2.0' }),
  ];
  it('filters by document, jurisdiction and edition', () => {
    expect([...allowedRows(chunks, { docIds: ['easa'] })]).toEqual([1, 0, 0]);
    expect([...allowedRows(chunks, { jurisdictions: ['FR'] })]).toEqual([0, 1, 0]);
    expect([...allowedRows(chunks, { editions: ['2.0'] })]).toEqual([0, 0, 1]);
    expect([...allowedRows(chunks, {})]).toEqual([1, 1, 1]);
  });
  it('broadens once: drops document and edition filters, widens a member state to EU rules, never a non-EASA country', () => {
    expect(broaden({ docIds: ['qa'], editions: ['x'] })).toEqual({});
    expect(broaden({ jurisdictions: ['IT'] })).toEqual({ jurisdictions: ['IT', 'EU'] });
    expect(broaden({ jurisdictions: ['NO'] })).toEqual({ jurisdictions: ['NO', 'EU'] });
    expect(broaden({ jurisdictions: ['US'] })).toEqual({ jurisdictions: ['US'] });
  });
});

describe('keyword boost', () => {
  it('counts chunk keywords found as substrings of the lower-cased query', () => {
    expect(keywordHits(['ground risk buffer', 'SAIL', 'containment'], 'how wide is the ground risk buffer at sail iv?')).toBe(2);
  });
});

describe('query decomposition', () => {
  it('splits explicit question lists and conjunctions into at most N sub-queries', () => {
    expect(splitCompoundQuestion('What is the SAIL? Which OSOs apply?').queries.map((q) => q.query)).toEqual(['What is the SAIL?', 'Which OSOs apply?']);
    expect(splitCompoundQuestion('Define the contingency volume, and what must the crew do there?').queries).toHaveLength(2);
    expect(splitCompoundQuestion('1) iGRC of a 3 m drone\n2) containment level\n3) OSO #05\n4) OSO #06', 2).queries).toHaveLength(2);
    const single = splitCompoundQuestion('Can the GRC go below the controlled ground area value and why?');
    expect(single.queries).toEqual([{ query: 'Can the GRC go below the controlled ground area value and why?', reasoning_level: 'none' }]);
  });
  it('merges evidence without duplicates, keeping the best score', () => {
    const e = (id: string, score: number) => ({ id, row: 0, score, parts: { dense: 0, window: 0, summary: 0, fused: 0, keywordHits: 0, rerank: null } });
    const merged = mergeEvidence([{ evidence: [e('a', 0.5), e('b', 0.9)] }, { evidence: [e('a', 0.95), e('c', 0.1)] }]);
    expect(merged.map((m) => [m.id, m.score])).toEqual([
      ['a', 0.95],
      ['b', 0.9],
      ['c', 0.1],
    ]);
  });
});

describe('current edition first', () => {
  const era = (row: number) => [2, 2.5, 2.5, 0, 2][row]!;
  const p = (row: number, final: number) => ({ row, final });

  it('moves a current-edition passage above an older restatement when it scores within the ratio, keeping the rest in order', () => {
    const kept = [p(0, 1), p(1, 0.8), p(3, 0.7), p(2, 0.5)];
    expect(currentEditionFirst(kept, era, 2.5, 0.75).map((x) => x.row)).toEqual([1, 0, 3, 2]);
    expect(currentEditionFirst(kept, era, 2.5, 0).map((x) => x.row)).toEqual([1, 2, 0, 3]);
    expect(currentEditionFirst(kept, era, 2.5, 0.9).map((x) => x.row)).toEqual([0, 1, 3, 2]);
  });

  it('reads the SORA edition a passage prints, and leaves passages of no SORA edition where they are', () => {
    expect(eraOf({ edition: 'Issue 1, Amendment 3; SORA 2.5, edition September 2025' })).toBe(2.5);
    expect(eraOf({ edition: 'SORA 2.0-era AMC1 Article 11' })).toBe(2);
    expect(eraOf({ edition: 'national guidance 2024' })).toBe(0);
    expect(currentEditionFirst([p(3, 1), p(1, 0.1)], era, 2.5, 0).map((x) => x.row)).toEqual([3, 1]);
  });
});
