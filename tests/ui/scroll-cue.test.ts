import { describe, expect, it } from 'vitest';
import { fitFontPx, longestLine, scrollCue, scrollCueText } from '../../src/ui/scroll-cue.js';

describe('the sideways-scroll cue of a wide table', () => {
  it('says there is more to the right of a table wider than its box, and to the left once scrolled', () => {
    // the OSO table at 1024×768: 1100 px of table in a 560 px column
    expect(scrollCue({ scrollLeft: 0, scrollWidth: 1100, clientWidth: 560 })).toEqual({ left: false, right: true });
    expect(scrollCue({ scrollLeft: 200, scrollWidth: 1100, clientWidth: 560 })).toEqual({ left: true, right: true });
    expect(scrollCue({ scrollLeft: 540, scrollWidth: 1100, clientWidth: 560 })).toEqual({ left: true, right: false });
    expect(scrollCueText({ left: false, right: true })).toMatch(/to the right/);
    expect(scrollCueText({ left: true, right: false })).toMatch(/to the left/);
  });

  it('says nothing when the table fits (a pixel of rounding is not more content)', () => {
    expect(scrollCue({ scrollLeft: 0, scrollWidth: 561, clientWidth: 560 })).toEqual({ left: false, right: false });
    expect(scrollCueText({ left: false, right: false })).toBeNull();
  });
});

describe('fitting a printed table to the width', () => {
  it('measures the longest printed line, trailing spaces aside', () => {
    expect(longestLine('ab   \nabcdef\n  abc')).toBe(6);
  });

  it('sets the font small enough for the longest line to fit, never below the legible minimum nor above the normal size', () => {
    // 120 characters in 700 px: 700 / (120 × 0.62) = 9.4 px
    expect(fitFontPx(120, 700)).toBe(9.4);
    expect(120 * 0.602 * fitFontPx(120, 700)).toBeLessThanOrEqual(700); // DejaVu Sans Mono's advance fits
    expect(fitFontPx(300, 700)).toBe(8);
    expect(fitFontPx(20, 700)).toBe(14);
    expect(fitFontPx(0, 700)).toBe(14);
  });
});

describe('fitting a printed table at first', () => {
  it('fits a table that is too wide but stays legible fitted, and leaves a narrow or a very wide one as it is', async () => {
    const { fitsLegibly } = await import('../../src/ui/scroll-cue.js');
    expect(fitsLegibly(130, 890)).toBe(true); // 890 / (130 × 0.62) = 11.0 px
    expect(fitsLegibly(60, 890)).toBe(false); // fits at the normal size
    expect(fitsLegibly(160, 700)).toBe(false); // 7.0 px: too small, scrolls instead
  });
});
