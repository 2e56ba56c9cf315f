import { describe, expect, it } from 'vitest';
import { restoreFinalSep } from '../../src/core/embedding/transformers-embedder.js';

const SEP = 102n;

describe('restoreFinalSep (inputs longer than the model reads keep [CLS] … [SEP])', () => {
  it('puts [SEP] back at the last attended position of a truncated row only', () => {
    // row 0: truncated (full length, no [SEP]); row 1: short, padded, already ends in [SEP]
    const ids = BigInt64Array.from([101n, 7n, 8n, 9n, 10n, 101n, 7n, SEP, 0n, 0n]);
    const mask = BigInt64Array.from([1n, 1n, 1n, 1n, 1n, 1n, 1n, 1n, 0n, 0n]);
    expect(restoreFinalSep(ids, mask, 2, 5, SEP)).toBe(1);
    expect([...ids]).toEqual([101n, 7n, 8n, 9n, SEP, 101n, 7n, SEP, 0n, 0n]);
  });

  it('leaves a batch without truncation untouched', () => {
    const ids = BigInt64Array.from([101n, 5n, SEP, 101n, SEP, 0n]);
    const mask = BigInt64Array.from([1n, 1n, 1n, 1n, 1n, 0n]);
    expect(restoreFinalSep(ids, mask, 2, 3, SEP)).toBe(0);
    expect([...ids]).toEqual([101n, 5n, SEP, 101n, SEP, 0n]);
  });
});
