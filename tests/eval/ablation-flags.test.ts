/** `npm run eval`'s ablation flags → retrieval overrides (corpus-build/eval/ablation-flags.ts). */
import { describe, expect, it } from 'vitest';
import { ABLATION_FLAGS, ablationOverrides } from '../../corpus-build/eval/ablation-flags.js';
import { DEFAULT_RETRIEVAL_CONFIG, withConfig } from '../../src/core/retrieval/config.js';

describe('ablation flags', () => {
  it('no flag: no override', () => {
    expect(ablationOverrides({ json: true, questions: 'q.jsonl' })).toEqual({ ok: true, over: {} });
  });

  it('two flags that touch one stage both apply (merged at any depth, not the later replacing the stage)', () => {
    const table = { 'small-pool': { dense: { pool: 10 } }, exact: { dense: { backend: 'exact' as const } } };
    const r = ablationOverrides({ 'small-pool': true, exact: true }, table, []);
    expect(r).toEqual({ ok: true, over: { dense: { pool: 10, backend: 'exact' } } });
  });

  it('the real flags combine into one configuration, each flag kept', () => {
    const r = ablationOverrides({ voy: true, 'bm25-only': true, mmr: true, 'no-threshold': true, rerank: true, dense: 'ignored' });
    expect(r.ok).toBe(true);
    if (!r.ok) return;
    const config = withConfig(DEFAULT_RETRIEVAL_CONFIG, r.over);
    expect(config.dense).toMatchObject({ pool: 50, backend: 'voy' });
    expect(config.dense_enabled).toBe(false);
    expect(config.mmr.enabled).toBe(true); // --mmr comes after --bm25-only in the table, as before
    expect(config.gate.enabled).toBe(false);
    expect(config.rerank.enabled).toBe(true);
    expect(Object.keys(ABLATION_FLAGS)).toContain('no-rerank');
  });

  it('refuses flags that contradict each other, naming both', () => {
    expect(ablationOverrides({ rerank: true, 'no-rerank': true })).toEqual({
      ok: false,
      message: '--rerank and --no-rerank contradict each other: choose one.',
    });
    expect(ablationOverrides({ 'dense-only': true, 'bm25-only': true })).toMatchObject({
      ok: false,
      message: expect.stringMatching(/--dense-only and --bm25-only/),
    });
    expect(ablationOverrides({ rerank: true, 'no-rerank': false })).toMatchObject({ ok: true });
  });
});
