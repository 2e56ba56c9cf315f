/**
 * Query expansion from the documents' own abbreviations: "ERP" ↔ "emergency
 * response plan", "BVLOS" ↔ "beyond visual line of sight". The pairs are read
 * from the indexed text itself — every "long form (SHORT)" the documents print
 * (glossary titles such as "Airspace observer (AO)", definitions in running text)
 * and the two-column lines of a "List of abbreviations" — so nothing here is
 * written by hand or from evaluation questions.
 *
 * Long forms are found with the Schwartz–Hearst rule: the shortest run of words
 * before "(SHORT)" whose letters contain the short form's characters in order,
 * the first one starting a word.
 */
import type { Chunk } from '../model/chunk.js';

export interface Abbreviation {
  /** As printed: "BVLOS", "iGRC", "S&A". */
  short: string;
  /** Lower-case long form: "beyond visual line of sight". */
  long: string;
}

/** A short form: 2–10 characters, letters first, at least two capitals (or one capital after a lower-case prefix: "iGRC"). */
const SHORT = /^[A-Za-z][A-Za-z0-9&/-]{1,9}$/;
const looksShort = (s: string): boolean => SHORT.test(s) && (s.match(/[A-Z]/g)?.length ?? 0) >= 2;

/** Schwartz–Hearst: the long form for `short` at the end of `before`, or null. */
export function longFormBefore(before: string, short: string): string | null {
  const words = before.trim().split(/\s+/);
  const letters = short.replace(/[^A-Za-z0-9]/g, '').toLowerCase();
  if (letters.length < 2) return null;
  const maxWords = Math.min(words.length, letters.length + 5, 2 * letters.length);
  const candidate = words.slice(words.length - maxWords).join(' ');
  const lower = candidate.toLowerCase();
  let s = letters.length - 1;
  let l = lower.length - 1;
  while (s >= 0) {
    const c = letters[s]!;
    // the first character of the short form must start a word
    while (l >= 0 && (lower[l] !== c || (s === 0 && l > 0 && /[a-z0-9]/.test(lower[l - 1]!)))) l--;
    if (l < 0) return null;
    s--;
    l--;
  }
  const start = lower.lastIndexOf(' ', l + 1) + 1;
  const long = candidate
    .slice(start)
    .replace(/^[^A-Za-z0-9]+|[^A-Za-z0-9]+$/g, '')
    .replace(/-\s+/g, '-')
    .trim()
    .toLowerCase();
  return plausibleLongForm(short, long) ? long : null;
}

/**
 * A long form made of words only (no punctuation carried over from the line),
 * of at least two words, whose word initials contain the short form's capitals
 * in order ("iGRC" → intrinsic ground risk class; "EU" is not "established by
 * regulation").
 */
export function plausibleLongForm(short: string, long: string): boolean {
  if (!/^[a-z][a-z0-9 '’\-–/]*$/.test(long) || long === short.toLowerCase()) return false;
  const words = long.split(/[\s\-–/]+/).filter(Boolean);
  if (words.length < 2) return false;
  const capitals = short.replace(/[^A-Z]/g, '').toLowerCase();
  let w = 0;
  for (const c of capitals) {
    while (w < words.length && words[w]![0] !== c) w++;
    if (w === words.length) return false;
    w++;
  }
  return true;
}

/** Every abbreviation the chunks define, deduplicated, in first-seen order. */
export function abbreviationsFromChunks(chunks: readonly Pick<Chunk, 'title' | 'text'>[]): Abbreviation[] {
  const seen = new Set<string>();
  const out: Abbreviation[] = [];
  const add = (short: string, long: string | null) => {
    if (!long || !looksShort(short)) return;
    const key = `${short}\u0000${long}`;
    if (seen.has(key)) return;
    seen.add(key);
    out.push({ short, long });
  };
  for (const c of chunks) {
    for (const text of [c.title, c.text]) {
      const flat = text.replace(/\s+/g, ' ');
      for (const m of flat.matchAll(/\(([^()\s]{2,10})\)/g)) add(m[1]!, longFormBefore(flat.slice(Math.max(0, m.index! - 160), m.index!), m[1]!));
    }
    if (/\babbreviations\b/i.test(c.title)) {
      for (const line of c.text.split('\n')) {
        const m = /^\s*(\S{2,10})\s{2,}(\S.*\S)\s*$/.exec(line);
        const long = m?.[2]!.toLowerCase().replace(/-\s+/g, '-') ?? '';
        if (m && looksShort(m[1]!) && plausibleLongForm(m[1]!, long)) add(m[1]!, long);
      }
    }
  }
  return out;
}

const escape = (s: string) => s.replace(/[.*+?^${}()|[\]\\]/g, '\\$&');

export interface AbbreviationLexicon {
  /** Terms to add for a query: long forms of the short forms it uses, short forms of the long forms it uses. */
  expand(query: string): string[];
  readonly size: number;
}

export function abbreviationLexicon(abbreviations: readonly Abbreviation[]): AbbreviationLexicon {
  const rules = abbreviations.map((a) => ({
    a,
    // the short form as printed, or all in capitals; never matched inside a word
    short: new RegExp(`(?<![\\p{L}\\p{N}])(?:${escape(a.short)}|${escape(a.short.toUpperCase())})(?![\\p{L}\\p{N}])`, 'u'),
    long: new RegExp(`(?<![\\p{L}\\p{N}])${escape(a.long).replace(/\s+/g, '\\s+')}(?![\\p{L}\\p{N}])`, 'iu'),
  }));
  return {
    size: abbreviations.length,
    expand(query: string): string[] {
      const out: string[] = [];
      for (const r of rules) {
        const term = r.short.test(query) ? r.a.long : r.long.test(query) ? r.a.short : null;
        if (term && !out.includes(term) && !query.toLowerCase().includes(term.toLowerCase())) out.push(term);
      }
      return out;
    },
  };
}
