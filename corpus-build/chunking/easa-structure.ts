/**
 * Structure detection for the EASA AMC & GM layout text: which lines are headings
 * of regulatory units (AMC/GM entries, SORA sections and steps, annexes, annex
 * sections, OSOs, glossary entries) and which lines are table captions.
 *
 * Each detector is a pure function of a line (and a little context); the chunker
 * in `easa-chunker.ts` walks the lines and applies them.
 */

export type HeadingType = 'entry' | 'sora-section' | 's-heading' | 'annex' | 'annex-section' | 'oso' | 'glossary';

export interface Heading {
  type: HeadingType;
  /** Depth in the hierarchy: entry 1, annex / SORA section 2, deeper units 3+. */
  level: number;
  /** Short stable slug for ids, e.g. "s4.2.3", "annex-b", "oso-04". */
  slug: string;
  /** Title as printed on the heading line (whitespace collapsed). */
  title: string;
  /** Annex letter for 'annex' headings. */
  annex?: string;
}

export const collapse = (s: string): string => s.replace(/\s+/g, ' ').trim();

const ENTRY =
  /^ {0,8}((?:AMC|GM)\d+(?:bis)? (?:AMC\d+ )?(?:Article \d+[a-z]?(?:\(\d+\))*(?:\([a-z]\))*|UAS\.[A-Z]+\.\d+(?:\(\d+\))*(?:\([a-z]\))*))(?:\s+(\S.*))?$/;
const SORA_SECTION = /^Section (\d+) ([A-Z].*)$/;
const S_HEADING = /^ {0,3}S\.?(\d+(?:\.\d+)+)\s+(\S.*)$/;
const ANNEX = /^ {0,6}Annex ([A-Z]) to AMC1 (?:to )?Article 11\s*$/;
const ANNEX_SECTION = /^ {0,4}([A-Z])\.(\d+(?:\.\d+)*)\.?\s+([A-Z‘M].*)$/;
const OSO = /^OSO #(\d+) — (\S.*)$/;
const GLOSSARY = /^I\.(\d+)\.\s+(\S.*)$/;
export const TABLE_CAPTION = /^\s*(Table ((?:[A-Z]\.)?\d+))\s*[—–-]\s*(\S.*)$/;
export const FIGURE_CAPTION = /^\s*(Figure (?:[A-Z]\.)?\d+)\s*[—–-]\s*(\S.*)$/;

const slugEntry = (id: string): string =>
  id
    .toLowerCase()
    .replace(/article /g, 'art')
    .replace(/uas\.spec\./g, 'uas-spec-')
    .replace(/[()]+/g, '-')
    .replace(/[^a-z0-9.-]+/g, '-')
    .replace(/-+/g, '-')
    .replace(/-$/, '');

export interface HeadingContext {
  /** Previous line (raw). */
  prev: string;
  /** True while inside AMC1 Article 11 (SORA), before its annexes. */
  inSoraBody: boolean;
  /** Current annex letter of AMC1 Article 11, if inside one. */
  annex: string | null;
}

/** Recognise a heading line, or return null. */
export function detectHeading(line: string, ctx: HeadingContext): Heading | null {
  const blankBefore = ctx.prev.trim() === '';
  let m = ENTRY.exec(line);
  if (m && blankBefore && (m[2] === undefined || /^[A-Z‘(—]/.test(m[2]))) {
    const id = m[1]!;
    return { type: 'entry', level: 1, slug: slugEntry(id), title: collapse(line) };
  }
  m = ANNEX.exec(line);
  if (m) return { type: 'annex', level: 2, slug: `annex-${m[1]!.toLowerCase()}`, title: collapse(line), annex: m[1]! };
  if (ctx.inSoraBody) {
    m = SORA_SECTION.exec(line);
    if (m) return { type: 'sora-section', level: 2, slug: `section-${m[1]}`, title: collapse(line) };
    m = S_HEADING.exec(line);
    if (m && /^[A-Z‘]/.test(m[2]!)) {
      const parts = m[1]!.split('.');
      return { type: 's-heading', level: parts.length + 1, slug: `s${m[1]}`, title: collapse(line) };
    }
  }
  if (ctx.annex) {
    m = OSO.exec(line);
    if (m && ctx.annex === 'E') {
      return { type: 'oso', level: 4, slug: `oso-${m[1]!.padStart(2, '0')}`, title: collapse(line) };
    }
    m = GLOSSARY.exec(line);
    if (m && ctx.annex === 'I') {
      return { type: 'glossary', level: 3, slug: `i-${m[1]}`, title: glossaryTitle(line) };
    }
    m = ANNEX_SECTION.exec(line);
    if (m && m[1] === ctx.annex && ctx.annex !== 'I' && /[a-z]{3,}/.test(m[3]!) && !/\s{3,}[A-Z]\.\d/.test(line)) {
      const parts = m[2]!.split('.');
      return {
        type: 'annex-section',
        level: parts.length + 2,
        slug: `${m[1]!.toLowerCase()}${m[2]}`,
        title: collapse(line),
      };
    }
  }
  return null;
}

/** "I.84.   Involved person      A person directly…" → "I.84. Involved person" (term column only). */
function glossaryTitle(line: string): string {
  const m = /^\s*(I\.\d+\.)\s+(.*)$/.exec(line);
  if (!m) return collapse(line);
  const cols = m[2]!.split(/\s{3,}/);
  const acronym = cols[1] && /^[A-Za-z0-9&/-]{1,8}$/.test(cols[1]) ? ` (${cols[1]})` : '';
  return collapse(`${m[1]} ${cols[0] ?? ''}${acronym}`);
}

/**
 * Whether the line after a wrapped entry/annex-section heading continues its title
 * ("AMC1 Article 12(2)(a) Authorising operations in the ‘specific’" + "category").
 */
export function continuesTitle(heading: Heading, next: string): boolean {
  if (heading.type !== 'entry' && heading.type !== 'annex-section') return false;
  const t = next.trim();
  if (t === '' || t.length > 70) return false;
  if (/^[A-Z0-9 ,()‘’'—–-]+$/.test(t)) return false; // an all-caps sub-heading, not a continuation
  if (/[.:;]$/.test(t)) return false;
  return /^([a-z‘(]|— )/.test(t);
}

/** An all-caps heading line inside an entry ("GENERAL", "SPECIFIC OPERATIONS RISK ASSESSMENT ..."). */
export const isCapsLine = (line: string): boolean => {
  const t = line.trim();
  return t.length >= 4 && /[A-Z]{3}/.test(t) && !/[a-z]{2}/.test(t.replace(/\b(?:i|iGRC|iARC)\b/g, ''));
};
