/**
 * Population density written in words ("over a sparsely populated area", "remote area",
 * "downtown") → the Table 1 band, read from SORA 2.5 Table 2 (p. 26) and checked against the
 * two EASA forms that group the same words differently. Where the documents disagree the match
 * says so; where a phrase names several bands (the forms' "populated area") no single band is
 * chosen.
 */
import { DENSITY_DESCRIPTORS_TABLE, FORM_DESCRIPTORS, type DescriptorRow } from './tables/density-descriptors-table.js';
import { POPULATION_BANDS, type PopulationBand } from './tables/igrc-table.js';
import { traceFrom, type TraceStep } from './types.js';

const T2 = DENSITY_DESCRIPTORS_TABLE;

export interface DescriptorMatch {
  /** The words as written in the message. */
  readonly phrase: string;
  /** The band, when the documents give one; null when the phrase covers several bands. */
  readonly band: PopulationBand | null;
  /** Every band the phrase may mean (one when `band` is set). */
  readonly candidates: readonly PopulationBand[];
  /** Where the mapping is printed, in words. */
  readonly basis: string;
  /** The table cell (Table 2, or the forms' rows) the band was read from. */
  readonly trace: TraceStep;
  /** Where another document maps the same words differently (null when they agree or only one document has them). */
  readonly disagreement: string | null;
}

interface Pattern {
  readonly re: RegExp;
  readonly make: (phrase: string) => DescriptorMatch;
}

/** Case-insensitive, hyphen/space tolerant, last word optionally singular/plural. */
function phraseRe(words: string): string {
  const parts = words
    .toLowerCase()
    .split(/[\s-]+/)
    .map((w) => w.replace(/[.*+?^${}()|[\]\\]/g, '\\$&'));
  const last = parts.pop() ?? '';
  const lastRe = last.endsWith('s') ? `${last.slice(0, -1)}s?` : `${last}s?`;
  return [...parts, lastRe].join(String.raw`[\s-]+`);
}

const rowOf = (band: PopulationBand): DescriptorRow => T2.rows.find((r) => r.band === band) as DescriptorRow;

const t2Trace = (row: DescriptorRow, column: string, cell: string, effect: string): TraceStep => traceFrom(T2.source, row.quantitative, column, cell, effect);

const formsWhere = (): string =>
  FORM_DESCRIPTORS.map((f) => `${f.source.caption.split(' — ')[0]} (${f.item.split(' ')[0]}, p. ${f.source.page})`).join(' and ');

function formGroup(descriptor: string) {
  return FORM_DESCRIPTORS[0]!.groups.find((g) => g.descriptor === descriptor)!;
}

/** A Table 2 descriptor: one band, with the forms' grouping as a disagreement when it differs. */
function fromTable2(band: PopulationBand, descriptor: string, formDescriptor: string | null) {
  return (phrase: string): DescriptorMatch => {
    const row = rowOf(band);
    let disagreement: string | null = null;
    if (formDescriptor) {
      const g = formGroup(formDescriptor);
      const same = g.bands.length === 1 && g.bands[0] === band;
      if (!same) {
        disagreement =
          `The documents disagree: ${T2.source.caption.split(' — ')[0]} (p. ${T2.source.page}) puts "${descriptor}" on the "${row.quantitative}" row, ` +
          `while ${formsWhere()} print "${g.descriptor}" against ${g.printedRows.map((r) => `"${r}"`).join(', ')} people/km². ` +
          `SkyCite uses Table 2's row; if the density is known, state it in people/km².`;
      }
    }
    return {
      phrase,
      band,
      candidates: [band],
      basis: `${T2.source.caption.split(' — ')[0]} (p. ${T2.source.page}): "${row.descriptors.join(' / ')}" → ${row.quantitative} people/km²`,
      trace: t2Trace(row, 'Qualitative descriptors', row.descriptors.join(' / '), `"${phrase}" → population row ${row.quantitative}`),
      disagreement,
    };
  };
}

/** A phrase of Table 2's area description column ("forests", "downtown"). */
function fromDescription(band: PopulationBand, cue: string) {
  return (phrase: string): DescriptorMatch => {
    const row = rowOf(band);
    return {
      phrase,
      band,
      candidates: [band],
      basis: `${T2.source.caption.split(' — ')[0]} (p. ${T2.source.page}) describes the "${row.descriptors.join(' / ')}" row (${row.quantitative} people/km²) with "${cue}"`,
      trace: t2Trace(row, 'Area description', row.description, `"${phrase}" → population row ${row.quantitative}`),
      disagreement: null,
    };
  };
}

/** The forms' "populated area": several bands, Table 2 has no such row. */
function populatedArea(phrase: string): DescriptorMatch {
  const g = formGroup('populated area');
  const f = FORM_DESCRIPTORS[0]!;
  return {
    phrase,
    band: null,
    candidates: g.bands,
    basis: `${formsWhere()} print "populated area" against ${g.printedRows.map((r) => `"${r}"`).join(', ')} people/km²`,
    trace: traceFrom(f.source, g.descriptor, f.item, g.printedRows.join(' / '), `"${phrase}" → one of ${g.printedRows.length} density rows`),
    disagreement:
      `${T2.source.caption.split(' — ')[0]} (p. ${T2.source.page}) has no "populated area" row (its rows are Remote, Lightly populated, Sparsely populated / Residential lightly populated, Suburban, High-density metropolitan, Assemblies of people), ` +
      `and the forms print "assemblies of people" against "no limit" where Table 2 has "> 50 000".`,
  };
}

function assemblies(phrase: string, wordingNote: string | null): DescriptorMatch {
  const base = fromTable2('>50000', 'Assemblies of people', null)(phrase);
  const g = formGroup('assemblies of people');
  return {
    ...base,
    disagreement:
      `${wordingNote ? `${wordingNote} ` : ''}The forms print "${g.descriptor}" against "${g.printedRows[0]}" and "populated area" against "more than 50 000", ` +
      `where ${T2.source.caption.split(' — ')[0]} (p. ${T2.source.page}) puts "Assemblies of people" on the "> 50 000" row.`,
  };
}

const PLACE = String.raw`(?:areas?|regions?|locations?|zones?|sites?|places?|terrain|countryside|land|environments?)`;

/** Longest phrases first: "residential lightly populated" before "lightly populated", "extremely remote" before "remote". */
const PATTERNS: readonly Pattern[] = [
  {
    re: new RegExp(String.raw`\bcontrolled[\s-]+ground(?:[\s-]+areas?)?\b`, 'i'),
    make: fromTable2('controlled', 'Controlled ground', 'controlled ground area'),
  },
  { re: new RegExp(String.raw`\bextremely[\s-]+remote\b`, 'i'), make: fromTable2('controlled', 'Extremely remote', null) },
  { re: new RegExp(String.raw`\b${phraseRe('residential lightly populated')}\b`, 'i'), make: fromTable2('<500', 'Residential lightly populated', null) },
  { re: new RegExp(String.raw`\bsparsely[\s-]+populated\b`, 'i'), make: fromTable2('<500', 'Sparsely populated', 'sparsely populated area') },
  { re: new RegExp(String.raw`\blightly[\s-]+populated\b`, 'i'), make: fromTable2('<50', 'Lightly populated', null) },
  { re: new RegExp(String.raw`\b${phraseRe('low-density metropolitan')}\b`, 'i'), make: fromTable2('<5000', 'Low-density metropolitan', null) },
  { re: new RegExp(String.raw`\b${phraseRe('high-density metropolitan')}\b`, 'i'), make: fromTable2('<50000', 'High-density metropolitan', null) },
  { re: /\bsuburb(?:an|s)?\b/i, make: fromTable2('<5000', 'Suburban', null) },
  // "remote" only as a place ("remote area", "over remote terrain"), never "remote pilot" / "remote identification"
  {
    re: new RegExp(
      String.raw`\bremote[\s-]+${PLACE}\b|\b(?:over|in|across)\s+(?:a\s+|an\s+)?remote\b(?![\s-]+(?:pilot|crew|id|identification|control|station|sensing|operations?)\b)`,
      'i',
    ),
    make: fromTable2('<5', 'Remote', null),
  },
  { re: /\bassembl(?:y|ies)\s+of\s+people\b/i, make: (p) => assemblies(p, null) },
  {
    re: /\bgatherings?\s+of\s+people\b/i,
    make: (p) => assemblies(p, `Form 208's instructions (2.8, p. 181) call this category ‘gatherings of people’; Table 2 calls it "Assemblies of people".`),
  },
  // the forms' "populated area" (not preceded by sparsely / lightly / densely)
  { re: new RegExp(String.raw`(?<!\b(?:sparsely|lightly|densely|thinly|highly)[\s-]+)\bpopulated[\s-]+${PLACE}\b`, 'i'), make: populatedArea },
  ...T2.rows.flatMap((row) =>
    row.descriptionCues.map((cue) => ({ re: new RegExp(String.raw`\b${phraseRe(cue)}\b`, 'i'), make: fromDescription(row.band, cue) })),
  ),
];

/**
 * Every density descriptor in a message, in the order written (overlapping shorter phrases
 * inside a longer one are dropped).
 */
export function findDensityDescriptors(text: string): DescriptorMatch[] {
  const found: { start: number; end: number; match: DescriptorMatch }[] = [];
  for (const p of PATTERNS) {
    const re = new RegExp(p.re.source, 'gi');
    for (const m of text.matchAll(re)) {
      const start = m.index;
      const end = start + m[0].length;
      if (found.some((f) => start < f.end && end > f.start)) continue;
      found.push({ start, end, match: p.make(m[0].trim()) });
    }
  }
  return found.sort((a, b) => a.start - b.start).map((f) => f.match);
}

/**
 * The descriptor that decides the iGRC row: the highest band named (S.4.2.3(e): "The segment with
 * the highest population density should be used when determining the iGRC"); null when none.
 */
export function decisiveDescriptor(matches: readonly DescriptorMatch[]): DescriptorMatch | null {
  let best: DescriptorMatch | null = null;
  const rank = (m: DescriptorMatch) => Math.max(...m.candidates.map((b) => POPULATION_BANDS.indexOf(b)));
  for (const m of matches) if (!best || rank(m) > rank(best)) best = m;
  return best;
}
