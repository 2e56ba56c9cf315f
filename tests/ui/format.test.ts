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

describe('dates', () => {
  it('say the time zone with the time', async () => {
    const { formatTime } = await import('../../src/ui/format.js');
    expect(formatTime('2026-11-25T19:05:00Z', 'UTC')).toMatch(/UTC/);
    expect(formatTime('2026-11-25T19:05:00Z', 'UTC')).toMatch(/19:05|7:05/);
    expect(formatTime('2026-11-25T19:05:00Z', 'Europe/Berlin')).toMatch(/20:05|8:05/);
    expect(formatTime('2026-11-25T19:05:00Z', 'Europe/Berlin')).toMatch(/GMT\+1|CET/);
    expect(formatTime('not a date')).toBe('not a date');
  });
});
