/** The support judge's agreement with hand labels (src/core/evaluation/judge-agreement.ts). */
import { describe, expect, it } from 'vitest';
import { judgeAgreement, type ClaimLabel } from '../../src/core/evaluation/judge-agreement.js';

const pair = (label: ClaimLabel['label'], similarity: number, overlap: number, missingNumbers = 0): ClaimLabel => ({
  pair: `${label}-${similarity}-${overlap}`,
  model: 'm',
  question: 'synth-01',
  claimSha: 'x',
  words: 10,
  passage: 'doc/a',
  role: 'cited',
  label,
  similarity,
  overlap,
  missingNumbers,
});

describe('judge agreement with hand labels', () => {
  it('precision and recall of "supported", with "partly" counted as not (strict) or as supported (lenient)', () => {
    const labels = [
      pair('supported', 0.8, 0.9), // judge yes, label yes
      pair('supported', 0.5, 0.9), // judge no (similarity), label yes
      pair('partly', 0.7, 0.8), // judge yes: wrong when strict, right when lenient
      pair('not', 0.9, 0.9, 1), // judge no: a number is missing
      pair('not', 0.2, 0.1),
    ];
    const a = judgeAgreement(labels, { similarity: 0.65, overlap: 0.7, requireNumbers: true });
    expect(a.byLabel).toEqual({ supported: 2, partly: 1, not: 2 });
    expect(a.strict).toMatchObject({ tp: 1, fp: 1, fn: 1, precision: 0.5, recall: 0.5 });
    expect(a.lenient).toMatchObject({ tp: 2, fp: 0, fn: 1, precision: 1, recall: 0.6667 });
  });
});
