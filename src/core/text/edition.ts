/** Short edition labels for lists; the full edition string stays available on demand. */

/** Longest short label, in characters. */
export const SHORT_EDITION_MAX = 34;

/**
 * "Issue 1, Amendment 3 (renamed Amendment 4 by the corrigendum of 12 December 2025); SORA 2.5, edition September 2025"
 * → "Issue 1, Amendment 3 · SORA 2.5": the first clause (before a parenthesis or semicolon), plus the
 * SORA edition when the string names one, cut at a word boundary with "…" when still too long.
 */
export function shortEdition(edition: string): string {
  const first = edition.split(/\s*[;(]\s*/)[0]!.trim();
  const sora = /\bSORA\s+\d+(?:\.\d+)?\b/.exec(edition)?.[0];
  const label = sora && !first.includes(sora) ? `${first} · ${sora}` : first;
  if (label.length <= SHORT_EDITION_MAX) return label;
  const cut = label.slice(0, SHORT_EDITION_MAX - 1);
  return `${cut.slice(0, Math.max(cut.lastIndexOf(' '), 12)).replace(/[\s,;·–-]+$/, '')}…`;
}

/**
 * Edition awareness: the SORA editions a set of edition strings names ("SORA 2.0", "SORA 2.5"),
 * and a note when they mix editions (their values and tables differ); null otherwise.
 */
export function editionNote(editions: readonly string[]): string | null {
  const eras = [...new Set(editions.flatMap((e) => [...e.matchAll(/SORA (\d\.\d)/g)].map((m) => m[1]!)))].sort();
  return eras.length > 1
    ? `The evidence mixes SORA editions (${eras.map((e) => `SORA ${e}`).join(' and ')}): check which edition applies before relying on a value or table.`
    : null;
}
