/**
 * Jurisdiction extraction for the router: country names and adjectives (EASA member states, the
 * EU itself, neighbours and major non-European regulators users ask about) → ISO 3166-1 alpha-2 codes, or "EU".
 * An empty list means "no jurisdiction filter".
 */

/** Code → names/adjectives that designate it. Matched case-sensitively as whole words. */
const JURISDICTION_TERMS: Readonly<Record<string, readonly string[]>> = {
  EU: ['EU', 'European Union', 'EASA', 'Union-wide', 'European'],
  AT: ['Austria', 'Austrian'],
  BE: ['Belgium', 'Belgian'],
  BG: ['Bulgaria', 'Bulgarian'],
  HR: ['Croatia', 'Croatian'],
  CY: ['Cyprus', 'Cypriot'],
  CZ: ['Czech Republic', 'Czechia', 'Czech'],
  DK: ['Denmark', 'Danish'],
  EE: ['Estonia', 'Estonian'],
  FI: ['Finland', 'Finnish'],
  FR: ['France', 'French'],
  DE: ['Germany', 'German'],
  GR: ['Greece', 'Greek', 'Hellenic'],
  HU: ['Hungary', 'Hungarian'],
  IE: ['Ireland', 'Irish'],
  IT: ['Italy', 'Italian'],
  LV: ['Latvia', 'Latvian'],
  LT: ['Lithuania', 'Lithuanian'],
  LU: ['Luxembourg', 'Luxembourgish'],
  MT: ['Malta', 'Maltese'],
  NL: ['Netherlands', 'Dutch', 'Holland'],
  PL: ['Poland', 'Polish'],
  PT: ['Portugal', 'Portuguese'],
  RO: ['Romania', 'Romanian'],
  SK: ['Slovakia', 'Slovak', 'Slovakian'],
  SI: ['Slovenia', 'Slovenian', 'Slovene'],
  ES: ['Spain', 'Spanish'],
  SE: ['Sweden', 'Swedish'],
  NO: ['Norway', 'Norwegian'],
  IS: ['Iceland', 'Icelandic'],
  LI: ['Liechtenstein'],
  CH: ['Switzerland', 'Swiss'],
  GB: ['United Kingdom', 'UK', 'Great Britain', 'Britain', 'British', 'England', 'English CAA', 'Scotland', 'Wales'],
  // outside the EASA system: the corpus holds none of their rules, so a question about them finds no evidence
  US: ['United States', 'USA', 'U.S.', 'US', 'American', 'FAA', 'Part 107'],
  CA: ['Canada', 'Canadian', 'Transport Canada'],
  AU: ['Australia', 'Australian', 'CASA'],
  NZ: ['New Zealand'],
  JP: ['Japan', 'Japanese', 'JCAB'],
  CN: ['China', 'Chinese', 'CAAC'],
  KR: ['South Korea', 'Korea', 'Korean'],
  IN: ['India', 'Indian', 'DGCA'],
  BR: ['Brazil', 'Brazilian', 'ANAC'],
  AE: ['United Arab Emirates', 'UAE', 'Dubai'],
  SG: ['Singapore'],
  ZA: ['South Africa'],
  TR: ['Turkey', 'Türkiye', 'Turkish'],
};

const escape = (s: string) => s.replace(/[.*+?^${}()|[\]\\]/g, '\\$&');

const MATCHERS: readonly { code: string; re: RegExp }[] = Object.entries(JURISDICTION_TERMS).map(([code, terms]) => ({
  code,
  re: new RegExp(
    `(?<![\\p{L}\\p{N}])(?:${[...terms]
      .sort((a, b) => b.length - a.length)
      .map(escape)
      .join('|')})(?![\\p{L}\\p{N}])`,
    'u',
  ),
}));

/**
 * Codes of the jurisdictions a text names, sorted, without duplicates ("in France" → ["FR"],
 * "French and German rules" → ["DE", "FR"]). "European" alone maps to EU.
 */
export function extractJurisdictions(text: string): string[] {
  const found = new Set<string>();
  for (const { code, re } of MATCHERS) if (re.test(text)) found.add(code);
  return [...found].sort();
}

/** A jurisdiction's name for people ("CA" → "Canada"); the code itself when unknown. */
export function jurisdictionName(code: string): string {
  return code === 'EU' ? 'the European Union' : (JURISDICTION_TERMS[code]?.[0] ?? code);
}
