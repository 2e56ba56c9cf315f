import { describe, expect, it } from 'vitest';
import { formatBytes, formatDuration } from '../../src/ui/format.js';

describe('display formatters', () => {
  it('shows load times rounded, in ms below a second and in s above', () => {
    expect(formatDuration(571.4000000003725)).toBe('571 ms');
    expect(formatDuration(4082.39999999851)).toBe('4.1 s');
    expect(formatDuration(0)).toBe('0 ms');
    expect(formatDuration(Number.NaN)).toBe('unknown');
    expect(formatDuration(undefined)).toBe('unknown');
  });

  it('shows sizes in KB, MB or GB', () => {
    expect(formatBytes(12 * 1024)).toBe('12 KB');
    expect(formatBytes(96 * 1024 ** 2)).toBe('96 MB');
    expect(formatBytes(10.1 * 1024 ** 3)).toBe('10.1 GB');
    expect(formatBytes(null)).toBe('unknown');
  });
});
