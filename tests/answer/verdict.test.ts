import { describe, expect, it } from 'vitest';
import { leadWarning, shownVerdict, TRUST_PRECISION, verdictLine } from '../../src/core/answer/verdict.js';

describe('what the reader is told about a checked text', () => {
  it('never says "Grounded" while the strict labels put the check below the trust precision', () => {
    expect(shownVerdict({ verdict: 'Grounded' }, { strictPrecision: TRUST_PRECISION - 0.01 })).toBe('Not verified');
    expect(shownVerdict({ verdict: 'Grounded' }, { strictPrecision: TRUST_PRECISION })).toBe('Grounded');
    expect(shownVerdict({ verdict: 'Unsupported' }, { strictPrecision: 1 })).toBe('Unsupported');
    expect(shownVerdict(null)).toBeNull();
  });

  it('gives the measured agreement in the "not verified" line', () => {
    expect(verdictLine('Not verified', { strictPrecision: 0.2143 })).toMatch(/on 21 % of the sentences it accepts/);
  });

  it('says what a strict reader made of the leads when it was measured, and only "not verified" when not', () => {
    expect(leadWarning({ leads: { pairs: 158, supported: 8 } })).toMatch(/accepted 8 of 158 such sentences/);
    expect(leadWarning({})).toBe('not verified, read the quotes');
    expect(leadWarning({ leads: { pairs: 0, supported: 0 } })).toBe('not verified, read the quotes');
  });
});
