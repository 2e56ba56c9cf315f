/**
 * The figures the grounding thresholds' documentation states (src/core/answer/config.ts,
 * src/core/answer/README.md) follow from the committed calibration pairs
 * (corpus-build/calibration/grounding-pairs.jsonl, written by `npm run calibrate:grounding`).
 */
import { readFileSync } from 'node:fs';
import path from 'node:path';
import { describe, expect, it } from 'vitest';
import { DEFAULT_ANSWER_CONFIG } from '../../src/core/answer/config.js';
import { calibrate, type LabelledSupport } from '../../corpus-build/calibration/thresholds.js';
import { repoRoot } from '../support/paths.js';

interface Pair {
  kind: string;
  supported: boolean;
  similarity: number;
  overlap: number;
  missingNumbers: string[];
}

const pairs: Pair[] = readFileSync(path.join(repoRoot, 'corpus-build/calibration/grounding-pairs.jsonl'), 'utf8')
  .split('\n')
  .filter((l) => l.trim())
  .map((l) => JSON.parse(l) as Pair);
const examples: LabelledSupport[] = pairs.map((p) => ({
  similarity: p.similarity,
  overlap: p.overlap,
  numbersOk: p.missingNumbers.length === 0,
  supported: p.supported,
}));

describe('grounding calibration data', () => {
  it('has the documented size and labels', () => {
    expect(pairs).toHaveLength(313);
    expect(
      pairs
        .filter((p) => p.supported)
        .map((p) => p.kind)
        .every((k) => k === 'shortened' || k === 'framed'),
    ).toBe(true);
    expect(
      pairs
        .filter((p) => !p.supported)
        .map((p) => p.kind)
        .every((k) => k === 'nearest' || k === 'unrelated'),
    ).toBe(true);
  });

  it('gives the documented rates at the default thresholds', () => {
    const { similarity, overlap } = DEFAULT_ANSWER_CONFIG.grounding;
    const pass = (e: LabelledSupport) => e.similarity >= similarity && e.overlap >= overlap && e.numbersOk !== false;
    const neg = examples.filter((e) => !e.supported);
    const pos = examples.filter((e) => e.supported);
    expect(neg.filter(pass).length / neg.length).toBeCloseTo(0.0784, 3);
    expect(pos.filter(pass).length / pos.length).toBeCloseTo(0.9938, 3);
  });

  it('makes calibrate() pick the documented thresholds', () => {
    const r = calibrate(examples);
    expect(r.similarity).toBeCloseTo(0.6666, 4);
    expect(r.overlap).toBeCloseTo(0.8398, 4);
    expect(r.falseSupportRate).toBeCloseTo(0.0327, 3);
    expect(r.supportRecall).toBeCloseTo(0.925, 3);
  });
});
