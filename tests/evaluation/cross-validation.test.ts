import { describe, expect, it } from 'vitest';
import { crossValidateChoice, foldsOf } from '../../src/core/evaluation/cross-validation.js';

const qs = (groups: string[]) => groups.map((g, i) => ({ id: `q${i}`, group: g, variant: i % 2 ? 'reworked' : 'direct' }));

describe('group-wise cross-validation of a tunable choice', () => {
  it('keeps every group in one fold and uses every fold', () => {
    const groups = ['a', 'a', 'b', 'c', 'c', 'd', 'e', 'f'];
    const folds = foldsOf(groups, 3);
    expect(new Set(folds.values())).toEqual(new Set([0, 1, 2]));
    expect(folds.size).toBe(6);
    expect(foldsOf(groups, 3)).toEqual(folds); // deterministic
  });

  it('refuses fewer groups than folds', () => {
    expect(() => foldsOf(['a', 'b'], 3)).toThrow(/only 2 question groups/);
    expect(() => foldsOf(['a', 'b'], 1)).toThrow(/K ≥ 2/);
  });

  it('scores each fold with the value chosen on the other folds', () => {
    // value 1 is better everywhere except on group "x", where only value 0 finds the answer
    const questions = qs(['x', 'y', 'z', 'w']);
    const folds = new Map([
      ['x', 0],
      ['y', 1],
      ['z', 2],
      ['w', 3],
    ]);
    const ranks = [
      [1, 5, 5, 5], // default
      [0, 1, 1, 1],
    ];
    const r = crossValidateChoice(questions, ranks, folds, 4);
    // fold 0 (x): others prefer value 1 → held-out rank 0 for x; folds 1–3: value 1 (MRR 1/3+... beats)
    expect(r.picked).toEqual([1, 1, 1, 1]);
    expect(r.heldOut.mrr).toBeCloseTo(3 / 4);
    expect(r.dev.mrr).toBeCloseTo((1 + 0.2 * 3) / 4);
    expect(r.heldOutByVariant.direct!.n).toBe(2);
  });

  it('an estimate differs from the best dev figure when the choice only helps the fold it is judged on', () => {
    const questions = qs(['x', 'y']);
    const folds = new Map([
      ['x', 0],
      ['y', 1],
    ]);
    // value 1 helps x only, value 2 helps y only: picking per fold on the other fold never picks the helpful one
    const ranks = [
      [2, 2],
      [1, 0],
      [0, 1],
    ];
    const r = crossValidateChoice(questions, ranks, folds, 2);
    expect(r.picked).toEqual([2, 1]);
    expect(r.heldOut.mrr).toBe(0);
    expect(Math.max(...ranks.map((rk) => rk.reduce((s, x) => s + (x ? 1 / x : 0), 0) / 2))).toBeGreaterThan(0);
  });
});
