import { describe, expect, it } from 'vitest';
import { deepMerge } from '../src/core/config/merge.js';
import { DEFAULT_RETRIEVAL_CONFIG, withConfig } from '../src/core/retrieval/config.js';
import { answerConfig, DEFAULT_ANSWER_CONFIG } from '../src/core/answer/config.js';

describe('one configuration merge at any depth', () => {
  it('overrides a nested value and keeps its siblings', () => {
    const base = { a: { b: { c: 1, d: 2 }, e: 3 }, f: [1, 2] };
    expect(deepMerge(base, { a: { b: { c: 9 } } })).toEqual({ a: { b: { c: 9, d: 2 }, e: 3 }, f: [1, 2] });
  });

  it('replaces arrays, skips undefined and never mutates its inputs', () => {
    const base = { list: [1, 2, 3], n: 1 };
    const over = { list: [4], n: undefined };
    const out = deepMerge(base, over);
    expect(out).toEqual({ list: [4], n: 1 });
    out.list.push(5);
    expect(base.list).toEqual([1, 2, 3]);
    expect(over.list).toEqual([4]);
  });

  it('is the merge of both configurations', () => {
    const r = withConfig(DEFAULT_RETRIEVAL_CONFIG, { bm25: { k1: 0.9 }, rerank: { weight: 0.5 } });
    expect(r.bm25).toEqual({ ...DEFAULT_RETRIEVAL_CONFIG.bm25, k1: 0.9 });
    expect(r.rerank).toEqual({ ...DEFAULT_RETRIEVAL_CONFIG.rerank, weight: 0.5 });
    const a = answerConfig({ grounding: { similarity: 0.5 } });
    expect(a.grounding).toEqual({ ...DEFAULT_ANSWER_CONFIG.grounding, similarity: 0.5 });
    expect(DEFAULT_RETRIEVAL_CONFIG.bm25.k1).not.toBe(0.9);
  });
});
