/**
 * Wide tables scroll sideways inside their box; these say when there is more to either side
 * (the cue the view shows) and how small the printed layout of a table must be set to fit a box.
 */

export interface ScrollBox {
  scrollLeft: number;
  scrollWidth: number;
  clientWidth: number;
}

/** A pixel or two of rounding is not more content. */
const SLACK_PX = 2;

/** Whether content is hidden to the left and to the right of a box scrolled sideways. */
export function scrollCue(box: ScrollBox): { left: boolean; right: boolean } {
  const hidden = box.scrollWidth - box.clientWidth;
  if (hidden <= SLACK_PX) return { left: false, right: false };
  return { left: box.scrollLeft > SLACK_PX, right: box.scrollLeft < hidden - SLACK_PX };
}

/** The cue's words: which way there is more to read. */
export function scrollCueText(cue: { left: boolean; right: boolean }): string | null {
  if (cue.left && cue.right) return 'More columns on both sides: scroll sideways';
  if (cue.right) return 'More columns to the right: scroll sideways →';
  if (cue.left) return '← More columns to the left';
  return null;
}

/** Width of a monospace character in em (DejaVu Sans Mono 0.602, the usual ui-monospace fonts about 0.6), with a margin for rounding. */
export const MONO_CHAR_EM = 0.62;

/** The longest line of a printed layout, in characters. */
export const longestLine = (text: string): number => text.split(/\r?\n/).reduce((n, l) => Math.max(n, l.trimEnd().length), 0);

/**
 * Font size (px) that fits `chars` monospace characters into `widthPx`, between `minPx` (still
 * legible; below it the box scrolls instead) and `maxPx` (the normal size).
 */
export function fitFontPx(chars: number, widthPx: number, minPx = 8, maxPx = 14): number {
  if (chars <= 0 || widthPx <= 0) return maxPx;
  const px = Math.floor((widthPx / (chars * MONO_CHAR_EM)) * 10) / 10;
  return Math.min(maxPx, Math.max(minPx, px));
}

/** Smallest font (px) a printed table is fitted to without being asked: below it the box scrolls until "Fit to screen width" is chosen. */
export const AUTO_FIT_MIN_PX = 10;

/** Whether a printed table is shown fitted to the width at first: it is wider than the box at the normal size and still legible when fitted. */
export function fitsLegibly(chars: number, widthPx: number, normalPx = 14): boolean {
  if (chars <= 0 || widthPx <= 0) return false;
  return chars * MONO_CHAR_EM * normalPx > widthPx && fitFontPx(chars, widthPx, 0, normalPx) >= AUTO_FIT_MIN_PX;
}
