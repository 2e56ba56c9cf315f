/**
 * Operation parameters from free text: what a person wrote about an operation ("a 1.2 m
 * quadcopter, max 45 km/h, over a sparsely populated area, ARC-b") → the SORA inputs, in SI units,
 * with a reading in words for each value and the table cell behind any density descriptor.
 *
 * Used by the Ask view's calculator card and by the message router (the same extractor decides
 * whether a message carries calculation inputs). Nothing is guessed: a length that could be the
 * size or a height is left unread, and a descriptor that covers several density rows gives no band.
 */
import { decisiveDescriptor, findDensityDescriptors, type DescriptorMatch } from './density-words.js';
import { POPULATION_BANDS, type PopulationBand } from './tables/igrc-table.js';
import type { MitigationKey, MitigationLevel } from './tables/grc-mitigations-table.js';
import { SAIL_LEVELS, type ResidualArc, type Sail } from './tables/sail-table.js';
import { formatMass } from './units.js';

/** Table outputs a message can ask for. */
export type CalcTarget = 'igrc' | 'final_grc' | 'sail' | 'tmpr' | 'oso' | 'containment';

export const CALC_TARGET_LABELS: Readonly<Record<CalcTarget, string>> = {
  igrc: 'Intrinsic GRC (iGRC)',
  final_grc: 'Final GRC',
  sail: 'SAIL',
  tmpr: 'TMPR robustness',
  oso: 'OSO robustness',
  containment: 'Containment robustness',
};

export interface CalcParams {
  dimensionM?: number;
  maxSpeedMs?: number;
  massG?: number;
  population?: PopulationBand;
  /** Set when the population came from words (Table 2 / the EASA forms) rather than a number. */
  populationDescriptor?: DescriptorMatch;
  /** A descriptor that covers several rows ("populated area"): the bands it may mean; no `population` is set. */
  populationCandidates?: readonly PopulationBand[];
  residualArc?: ResidualArc;
  mitigations?: Partial<Record<MitigationKey, MitigationLevel>>;
  /** A GRC stated by the user (used as the final GRC for SAIL). */
  grc?: number;
  sail?: Sail;
  osoIds?: string[];
}

/** Kinds of input the extractor reads (the router's calculation-input cues). */
export type InputKind = 'dimension' | 'speed' | 'mass' | 'population' | 'residual_arc' | 'mitigation' | 'grc' | 'sail' | 'oso';

export interface Extraction {
  params: CalcParams;
  targets: CalcTarget[];
  /** What was read, in words, for the card ("UA characteristic dimension 2 m (from "2 m wingspan")"). */
  readings: string[];
  /** Where the documents disagree about a reading, or a reading needs a caveat. */
  notes: string[];
  /** The kinds of input found. */
  inputs: InputKind[];
}

// ------------------------------------------------------------------ numbers and units

const NUMBER_WORDS: Readonly<Record<string, number>> = {
  one: 1,
  two: 2,
  three: 3,
  four: 4,
  five: 5,
  six: 6,
  seven: 7,
  eight: 8,
  nine: 9,
  ten: 10,
  eleven: 11,
  twelve: 12,
  fifteen: 15,
  twenty: 20,
  thirty: 30,
  forty: 40,
  fifty: 50,
};
const NUM = String.raw`(\d+(?:[.,]\d+)?|${Object.keys(NUMBER_WORDS).join('|')})`;

/** "1,5" and "1.5" are decimals; number words are read as numbers. */
function num(s: string): number {
  const w = NUMBER_WORDS[s.toLowerCase()];
  if (w !== undefined) return w;
  return Number(s.replace(/\s/g, '').replace(',', '.'));
}

/** A count with thousands separators ("1,200", "12 000", "1.200"). */
function count(s: string): number {
  return Number(s.replace(/[\s,.](?=\d{3}\b)/g, '').replace(',', '.'));
}

const round = (v: number, digits = 2): number => Math.round(v * 10 ** digits) / 10 ** digits;

const LENGTH_UNITS: readonly { re: string; toM: number; name: string; needsKeyword: boolean }[] = [
  { re: String.raw`mm|millimet(?:re|er)s?`, toM: 0.001, name: 'mm', needsKeyword: false },
  { re: String.raw`cm|centimet(?:re|er)s?`, toM: 0.01, name: 'cm', needsKeyword: false },
  { re: String.raw`m|met(?:re|er)s?`, toM: 1, name: 'm', needsKeyword: false },
  // feet and inches are mostly heights and screen sizes: read only next to a size word
  { re: String.raw`ft|feet|foot`, toM: 0.3048, name: 'ft', needsKeyword: true },
  { re: String.raw`inch(?:es)?|in\b|″|"`, toM: 0.0254, name: 'in', needsKeyword: true },
];

/** Words right after a length that make it a height or a distance, not the UA's size. */
const AFTER_EXCLUDE =
  /^\s*(?:height|high|altitude|agl|amsl|above|away|buffer|radius|range|distance|from|of\s+(?:height|altitude)|ceiling|up|aloft|(?:per|a)\s+sec(?:ond)?)\b/i;
/** Words right before a length that make it a height or a distance. */
const BEFORE_EXCLUDE =
  /\b(?:at|within|from|above|below|under|over|up\s+to|height(?:\s+of)?|altitude(?:\s+of)?|buffer(?:\s+of)?|distance(?:\s+of)?|radius(?:\s+of)?|range(?:\s+of)?|ceiling(?:\s+of)?|climb(?:s|ing)?\s+to|fly(?:ing)?\s+at)\s*$/i;
const DIMENSION_CONTEXT = /(span|dimension|diameter|rotor|propeller|size|wide|width|length|long|across|characteristic|tip[\s-]to[\s-]tip|frame)/i;

function extractDimension(text: string, readings: string[]): number | undefined {
  const candidates: { value: number; raw: string; keyword: boolean; excluded: boolean }[] = [];
  for (const unit of LENGTH_UNITS) {
    const re = new RegExp(String.raw`(?<![\p{L}\d.,])${NUM}\s*(?:-\s*)?(?:${unit.re})(?![\p{L}/²2³])`, 'giu');
    for (const m of text.matchAll(re)) {
      const value = num(m[1]!) * unit.toM;
      const before = text.slice(Math.max(0, m.index - 24), m.index);
      const after = text.slice(m.index + m[0].length, m.index + m[0].length + 24);
      const keyword = DIMENSION_CONTEXT.test(before.slice(-16)) || DIMENSION_CONTEXT.test(after.slice(0, 16));
      const excluded = AFTER_EXCLUDE.test(after) || (BEFORE_EXCLUDE.test(before) && !keyword);
      if (unit.needsKeyword && !keyword) continue;
      if (!Number.isFinite(value) || value <= 0) continue;
      candidates.push({ value: round(value, 3), raw: m[0].trim(), keyword, excluded });
    }
  }
  const usable = candidates.filter((c) => !c.excluded);
  const keyed = usable.filter((c) => c.keyword);
  const distinct = (cs: typeof usable) => [...new Map(cs.map((c) => [c.value, c])).values()];
  const pick = distinct(keyed).length === 1 ? keyed[0] : keyed.length === 0 && distinct(usable).length === 1 ? usable[0] : undefined;
  if (pick) readings.push(`UA characteristic dimension ${pick.value} m (from "${pick.raw}")`);
  return pick?.value;
}

const SPEED_UNITS: readonly { re: string; toMs: number }[] = [
  { re: String.raw`m\/s|mps|m\s*s-1|met(?:re|er)s?\s+(?:per|a)\s+second`, toMs: 1 },
  { re: String.raw`km\/h|kmh|kph|km\s*h-1|km\s+(?:per|an)\s+hour|kilomet(?:re|er)s?\s+(?:per|an)\s+hour`, toMs: 1 / 3.6 },
  { re: String.raw`mph|miles?\s+(?:per|an)\s+hour`, toMs: 0.44704 },
  { re: String.raw`kts?|knots?|kn`, toMs: 0.514444 },
];
const MAX_CONTEXT = /\b(?:max(?:imum)?|top|up\s+to|at\s+most|vmax|peak)\b/i;

function extractSpeed(text: string, readings: string[], notes: string[]): number | undefined {
  const found: { ms: number; raw: string; max: boolean }[] = [];
  for (const unit of SPEED_UNITS) {
    const re = new RegExp(String.raw`(?<![\p{L}\d.,])${NUM}\s*(?:${unit.re})(?![\p{L}])`, 'giu');
    for (const m of text.matchAll(re)) {
      const before = text.slice(Math.max(0, m.index - 20), m.index);
      found.push({ ms: round(num(m[1]!) * unit.toMs), raw: m[0].trim(), max: MAX_CONTEXT.test(before) });
    }
  }
  if (!found.length) return undefined;
  const maxed = found.filter((f) => f.max);
  const pool = maxed.length ? maxed : found;
  const pick = pool.reduce((a, b) => (b.ms > a.ms ? b : a));
  readings.push(`Maximum speed ${pick.ms} m/s (from "${pick.raw}")`);
  if (new Set(found.map((f) => f.ms)).size > 1) {
    notes.push(`Several speeds were given; Table 1 uses the maximum speed, so ${pick.ms} m/s ("${pick.raw}") was taken.`);
  }
  return pick.ms;
}

function extractMass(text: string, readings: string[]): number | undefined {
  const re = new RegExp(String.raw`(?<![\p{L}\d.,])${NUM}\s*(kg|kilo(?:gram)?s?|g|grams?|lbs?|pounds?)(?![\p{L}/])`, 'giu');
  // "4G" is a mobile network, not four grams
  const m = [...text.matchAll(re)].find((x) => x[2] !== 'G');
  if (!m) return undefined;
  const unit = m[2]!.toLowerCase();
  const factor = unit.startsWith('k') ? 1000 : unit.startsWith('lb') || unit.startsWith('pound') ? 453.592 : 1;
  const g = round(num(m[1]!) * factor, 0);
  readings.push(`Take-off mass ${formatMass(g)} (from "${m[0].trim()}")`);
  return g;
}

// ------------------------------------------------------------------ population

/** Band for a density in people/km² (the Table 1 rows are "< 5", "< 50", …, "> 50 000"). */
export function bandForDensity(density: number): PopulationBand {
  if (density < 5) return '<5';
  if (density < 50) return '<50';
  if (density < 500) return '<500';
  if (density < 5000) return '<5000';
  if (density < 50000) return '<50000';
  return '>50000';
}

const PEOPLE = String.raw`(?:people|persons|inhabitants|residents|ppl|pop(?:ulation)?|pax)?`;
const PER_KM2 = String.raw`(?:\/|per\s+)(?:km\s*(?:2|²|\^2)|sq(?:uare)?\.?\s*km|square\s+kilomet(?:re|er))`;
const PER_MI2 = String.raw`(?:\/|per\s+)(?:mi\s*(?:2|²|\^2)|sq(?:uare)?\.?\s*mi(?:le)?)`;
const COUNT = String.raw`(\d{1,3}(?:[\s,.]\d{3})+|\d+(?:[.,]\d+)?)`;
const KM2_PER_MI2 = 2.589988;

function extractPopulation(text: string, readings: string[], notes: string[], params: CalcParams): void {
  // "over 400 people/km²" → density; "< 500 people/km²", "fewer than 50 per km²", "up to 500" → a band
  const bandRe = new RegExp(
    String.raw`(<|>|less\s+than|fewer\s+than|under|below|more\s+than|greater\s+than|above|up\s+to)\s*${COUNT}\s*${PEOPLE}\s*${PER_KM2}`,
    'i',
  );
  const densRe = new RegExp(String.raw`${COUNT}\s*${PEOPLE}\s*(${PER_KM2}|${PER_MI2})`, 'i');
  let numeric: PopulationBand | undefined;
  const band = bandRe.exec(text);
  if (band) {
    const op = band[1]!.toLowerCase();
    const v = count(band[2]!);
    const upper = /^(?:<|less|fewer|under|below|up)/.test(op);
    const key = `${upper ? '<' : '>'}${v}`;
    const found = POPULATION_BANDS.find((b) => b === key);
    if (found) {
      numeric = found;
      readings.push(`Population band ${found} people/km² (from "${band[0].trim()}")`);
      if (/^up/.test(op)) notes.push(`"${band[0].trim()}" is read as the Table 1 row "< ${v}" (the EASA forms print "up to ${v}" for that row).`);
    } else if (upper) {
      numeric = bandForDensity(v - 1e-9);
      readings.push(`Population density below ${v} people/km² → band ${numeric} (from "${band[0].trim()}")`);
    } else {
      numeric = bandForDensity(v + 1e-9);
      readings.push(`Population density above ${v} people/km² → band ${numeric} (from "${band[0].trim()}")`);
    }
  } else {
    const dens = densRe.exec(text);
    if (dens) {
      const perMile = new RegExp(PER_MI2, 'i').test(dens[2]!);
      const raw = count(dens[1]!);
      const v = perMile ? round(raw / KM2_PER_MI2, 1) : raw;
      if (Number.isFinite(v)) {
        numeric = bandForDensity(v);
        readings.push(`Population density ${v} people/km²${perMile ? ` (${raw} per square mile)` : ''} → band ${numeric} (from "${dens[0].trim()}")`);
      }
    }
  }

  const words = findDensityDescriptors(text);
  const decisive = decisiveDescriptor(words);
  if (numeric !== undefined) {
    params.population = numeric;
    if (decisive && !decisive.candidates.includes(numeric)) {
      notes.push(`You also wrote "${decisive.phrase}" (${decisive.basis}); the number you gave is used.`);
    }
    return;
  }
  if (!decisive) return;
  params.populationDescriptor = decisive;
  if (words.length > 1) {
    notes.push(
      `Several area descriptions were given (${words.map((w) => `"${w.phrase}"`).join(', ')}); S.4.2.3(e) says the segment with the highest population density is used.`,
    );
  }
  if (decisive.band !== null) {
    params.population = decisive.band;
    readings.push(`Population: "${decisive.phrase}" → band ${decisive.band} — ${decisive.basis}`);
  } else {
    params.populationCandidates = decisive.candidates;
    readings.push(`Population: "${decisive.phrase}" — ${decisive.basis}; no single row: state the density in people/km²`);
  }
  if (decisive.disagreement) notes.push(decisive.disagreement);
}

// ------------------------------------------------------------------ the rest

function extractMitigations(text: string, readings: string[]): CalcParams['mitigations'] {
  const out: Partial<Record<MitigationKey, MitigationLevel>> = {};
  const key = (m: string, letter: string | undefined): MitigationKey | null => {
    if (/^m2$/i.test(m.replace(/\s/g, ''))) return 'm2';
    return letter ? (`m1${letter.toLowerCase()}` as MitigationKey) : null;
  };
  const fwd = /\b(M1\s*\(?([ABC])\)?|M2)\s*(?:at\s+|with\s+|of\s+|=\s*|:\s*)?(low|medium|high)\b/gi;
  const rev = /\b(low|medium|high)\s+(?:robustness\s+|integrity\s+)?(M1\s*\(?([ABC])\)?|M2)/gi;
  for (const m of text.matchAll(fwd)) {
    const k = key(m[1]!, m[2]);
    if (k) out[k] = m[3]!.toLowerCase() as MitigationLevel;
  }
  for (const m of text.matchAll(rev)) {
    const k = key(m[2]!, m[3]);
    if (k && !out[k]) out[k] = m[1]!.toLowerCase() as MitigationLevel;
  }
  const keys = Object.keys(out) as MitigationKey[];
  if (!keys.length) return undefined;
  readings.push(`Mitigations claimed: ${keys.map((k) => `${k.toUpperCase()} ${out[k]}`).join(', ')}`);
  return out;
}

/** A GRC value written as an input ("GRC 4", "final GRC of 5"), not an intrinsic one. */
const GRC_VALUE = /\b(?:final\s+)?GRC\s*(?:of|=|:|is)?\s*(\d{1,2})\b/i;
const IGRC_VALUE = /\bi(?:ntrinsic\s*)?\s?GRC\s*(?:of|=|:|is)?\s*\d/i;

/** The message states an intrinsic GRC's value ("iGRC 5", "an iGRC of 3"). */
export const statesIgrc = (text: string): boolean => IGRC_VALUE.test(text.normalize('NFKC'));

/** Read parameters and requested outputs from a message. */
export function extractOperation(message: string): Extraction {
  const text = message.normalize('NFKC');
  const readings: string[] = [];
  const notes: string[] = [];
  const params: CalcParams = {};
  const inputs: InputKind[] = [];
  const dim = extractDimension(text, readings);
  if (dim !== undefined) {
    params.dimensionM = dim;
    inputs.push('dimension');
  }
  const speed = extractSpeed(text, readings, notes);
  if (speed !== undefined) {
    params.maxSpeedMs = speed;
    inputs.push('speed');
  }
  const mass = extractMass(text, readings);
  if (mass !== undefined) {
    params.massG = mass;
    inputs.push('mass');
  }
  extractPopulation(text, readings, notes, params);
  if (params.population !== undefined || params.populationCandidates) inputs.push('population');
  const arc = /\b(?:residual\s+)?ARC\s*[-–]?\s*([a-d])\b(?![-\p{L}])/iu.exec(text);
  if (arc) {
    params.residualArc = arc[1]!.toLowerCase() as ResidualArc;
    readings.push(`Residual ARC: ARC-${params.residualArc} (the ARC stated is taken as the residual ARC)`);
    inputs.push('residual_arc');
  }
  const mit = extractMitigations(text, readings);
  if (mit) {
    params.mitigations = mit;
    inputs.push('mitigation');
  }
  const grc = GRC_VALUE.exec(text);
  if (grc && !IGRC_VALUE.test(text)) {
    params.grc = Number(grc[1]);
    readings.push(`GRC ${params.grc} (from "${grc[0]}")`);
    inputs.push('grc');
  }
  const sail = /\bSAIL\s*(VI|V|IV|III|II|I|[1-6])(?![\p{L}\d])/iu.exec(text);
  if (sail) {
    const s = sail[1]!.toUpperCase();
    params.sail = (/^\d$/.test(s) ? SAIL_LEVELS[Number(s) - 1] : s) as Sail;
    readings.push(`SAIL ${params.sail}`);
    inputs.push('sail');
  }
  const osos = [...text.matchAll(/\bOSO\s*#?\s*(\d{1,2})\b/gi)].map((m) => m[1]!.padStart(2, '0'));
  if (osos.length) {
    params.osoIds = [...new Set(osos)];
    readings.push(`OSO ${params.osoIds.map((o) => `#${o}`).join(', ')}`);
    inputs.push('oso');
  }
  return { params, targets: requestedTargets(text, params), readings, notes, inputs };
}

/** Requested outputs: a table output named without a value of its own. */
export function requestedTargets(text: string, params: CalcParams): CalcTarget[] {
  const targets: CalcTarget[] = [];
  const add = (t: CalcTarget) => targets.includes(t) || targets.push(t);
  if (/\b(?:i\s?GRC|intrinsic\s+(?:GRC|ground\s+risk))\b/i.test(text) && !/\bi\s?GRC\s*(?:of|=|:|is)?\s*\d/i.test(text)) add('igrc');
  if (/\b(?:final|resulting|residual)\s+(?:GRC|ground\s+risk(?:\s+class)?)\b/i.test(text) && params.grc === undefined) add('final_grc');
  if (/\b(?:GRC|ground\s+risk\s+class)\b/i.test(text) && !/\bi\s?GRC\b|\bintrinsic\b|final\s+(?:GRC|ground)/i.test(text) && params.grc === undefined)
    add('final_grc');
  if (/\bSAIL\b/i.test(text) && params.sail === undefined) add('sail');
  if (/\bTMPR\b|tactical\s+mitigation\s+performance/i.test(text)) add('tmpr');
  if (/\bOSOs?\b/i.test(text) && (params.sail !== undefined || /robustness|required|level/i.test(text))) add('oso');
  if (/\bcontainment\b/i.test(text)) add('containment');
  return targets;
}

/** Parameters of a follow-up override those of the previous turn. */
export function mergeParams(previous: CalcParams | null | undefined, next: CalcParams): CalcParams {
  if (!previous) return { ...next };
  const merged: CalcParams = { ...previous, ...next };
  // a new population (number or words) replaces the previous one, whichever form it took
  if (next.population !== undefined || next.populationCandidates) {
    if (!next.populationDescriptor) delete merged.populationDescriptor;
    if (!next.populationCandidates) delete merged.populationCandidates;
    if (next.population === undefined) delete merged.population;
  }
  if (previous.mitigations || next.mitigations) merged.mitigations = { ...previous.mitigations, ...next.mitigations };
  return merged;
}
