import { describe, expect, it } from 'vitest';
import { formatHash, parseHash, VIEWS } from '../../src/ui/routing';

describe('hash routing', () => {
  it('defaults to the Ask view', () => {
    expect(parseHash('')).toEqual({ view: 'ask', params: {} });
    expect(parseHash('#')).toEqual({ view: 'ask', params: {} });
    expect(parseHash('#/')).toEqual({ view: 'ask', params: {} });
  });

  it('parses every view, case-insensitively, with parameters', () => {
    for (const v of VIEWS) expect(parseHash(`#/${v}`)?.view).toBe(v);
    expect(parseHash('#/Library?q=ground%20risk&doc=easa')).toEqual({ view: 'library', params: { q: 'ground risk', doc: 'easa' } });
  });

  it('sends unknown routes to the default view', () => {
    expect(parseHash('#/nowhere')?.view).toBe('ask');
  });

  it('does not treat in-page anchors as routes', () => {
    expect(parseHash('#main')).toBeNull();
  });

  it('round-trips through formatHash', () => {
    const h = formatHash('library', { q: 'OSO #05 & M2', empty: '', none: undefined });
    expect(h).toBe('#/library?q=OSO+%2305+%26+M2');
    expect(parseHash(h)).toEqual({ view: 'library', params: { q: 'OSO #05 & M2' } });
    expect(formatHash('settings')).toBe('#/settings');
  });
});
