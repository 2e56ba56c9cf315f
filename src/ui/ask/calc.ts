/**
 * The Ask view's calculator card: read SORA parameters from a chat message (numbers with
 * units, "ARC-c", "GRC 4", "SAIL III", "M2 medium", "OSO #05"), decide which table outputs
 * the message asks for, and run the calculator of src/core/assess. Nothing is guessed: a
 * value that is not stated is reported as missing, and every computed value carries the
 * table cells it was read from.
 */
import { finalGrc } from '../../core/assess/final-grc';
import { intrinsicGrc } from '../../core/assess/igrc';
import { osoRobustness } from '../../core/assess/oso';
import { sailFor } from '../../core/assess/sail';
import { tmprFor } from '../../core/assess/tmpr';
import { POPULATION_BANDS, type PopulationBand } from '../../core/assess/tables/igrc-table';
import type { MitigationKey, MitigationLevel } from '../../core/assess/tables/grc-mitigations-table';
import { SAIL_LEVELS, type ResidualArc, type Sail } from '../../core/assess/tables/sail-table';
import type { TraceStep } from '../../core/assess/types';

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
  residualArc?: ResidualArc;
  mitigations?: Partial<Record<MitigationKey, MitigationLevel>>;
  /** A GRC value stated by the user (used as the final GRC for SAIL). */
  grc?: number;
  sail?: Sail;
  osoIds?: string[];
}

export interface Extraction {
  params: CalcParams;
  targets: CalcTarget[];
  /** What was read, in words, for the card ("UA dimension 2 m (from "2 m wingspan")"). */
  readings: string[];
}

const num = (s: string): number => Number(s.replace(/\s/g, '').replace(',', '.'));

/** Words right after a length that make it a height or a distance, not the UA's size. */
const AFTER_EXCLUDE = /^\s*(?:height|high|altitude|agl|above|away|buffer|radius|range|distance|from|ft|feet)\b/i;
/** Words right before a length that make it a height or a distance. */
const BEFORE_EXCLUDE = /\b(?:at|within|from|above|below|up\s+to|height(?:\s+of)?|altitude(?:\s+of)?|buffer(?:\s+of)?|distance(?:\s+of)?|radius(?:\s+of)?)\s*$/i;
const DIMENSION_CONTEXT = /(span|dimension|diameter|rotor|size|wide|width|length|characteristic)/i;

function extractDimension(text: string, readings: string[]): number | undefined {
  const re = /(\d+(?:[.,]\d+)?)\s*(mm|cm|m)(?![\p{L}/²2])/giu;
  const candidates: { value: number; raw: string; keyword: boolean; excluded: boolean }[] = [];
  for (const m of text.matchAll(re)) {
    const unit = m[2]!.toLowerCase();
    const value = num(m[1]!) / (unit === 'mm' ? 1000 : unit === 'cm' ? 100 : 1);
    const before = text.slice(Math.max(0, m.index - 20), m.index);
    const after = text.slice(m.index + m[0].length, m.index + m[0].length + 20);
    const excluded = AFTER_EXCLUDE.test(after) || BEFORE_EXCLUDE.test(before);
    const keyword = DIMENSION_CONTEXT.test(before.slice(-14)) || DIMENSION_CONTEXT.test(after.slice(0, 14));
    candidates.push({ value, raw: m[0], keyword, excluded });
  }
  const usable = candidates.filter((c) => !c.excluded);
  const keyed = usable.filter((c) => c.keyword);
  const pick = keyed.length === 1 ? keyed[0] : keyed.length === 0 && usable.length === 1 ? usable[0] : undefined;
  if (pick) readings.push(`UA characteristic dimension ${pick.value} m (from "${pick.raw}")`);
  return pick?.value;
}

function extractSpeed(text: string, readings: string[]): number | undefined {
  const m = /(\d+(?:[.,]\d+)?)\s*(m\/s|mps|km\/h|kmh|kph|kts?|knots)(?![\p{L}])/iu.exec(text);
  if (!m) return undefined;
  const v = num(m[1]!);
  const unit = m[2]!.toLowerCase();
  const ms = unit === 'm/s' || unit === 'mps' ? v : unit.startsWith('k') && unit !== 'kt' && unit !== 'kts' && unit !== 'knots' ? v / 3.6 : v * 0.514444;
  const rounded = Math.round(ms * 100) / 100;
  readings.push(`Maximum speed ${rounded} m/s (from "${m[0]}")`);
  return rounded;
}

function extractMass(text: string, readings: string[]): number | undefined {
  const m = /(\d+(?:[.,]\d+)?)\s*(kg|g)(?![\p{L}])/iu.exec(text);
  if (!m) return undefined;
  const g = num(m[1]!) * (m[2]!.toLowerCase() === 'kg' ? 1000 : 1);
  readings.push(`Take-off mass ${g} g (from "${m[0]}")`);
  return g;
}

/** Band for a density in people/km² (the Table 1 rows are "< 5", "< 50", …, "> 50 000"). */
export function bandForDensity(density: number): PopulationBand {
  if (density < 5) return '<5';
  if (density < 50) return '<50';
  if (density < 500) return '<500';
  if (density < 5000) return '<5000';
  if (density < 50000) return '<50000';
  return '>50000';
}

function extractPopulation(text: string, readings: string[]): PopulationBand | undefined {
  if (/controlled\s+ground\s+area/i.test(text)) {
    readings.push('Population: controlled ground area');
    return 'controlled';
  }
  const band = /([<>])\s*(\d[\d\s,.]*\d|\d)\s*(?:people|persons|inhabitants|ppl|pop)?\s*(?:\/|per)\s*km(?:2|²)?/i.exec(text);
  if (band) {
    const v = num(band[2]!.replace(/[,.](?=\d{3}\b)/g, ''));
    const key = `${band[1]}${v}`;
    const found = POPULATION_BANDS.find((b) => b === key);
    if (found) {
      readings.push(`Population band ${found} people/km² (from "${band[0].trim()}")`);
      return found;
    }
  }
  const dens = /(\d[\d\s,.]*\d|\d)\s*(?:people|persons|inhabitants|ppl|pop)?\s*(?:\/|per)\s*km(?:2|²)?/i.exec(text);
  if (dens) {
    const v = num(dens[1]!.replace(/[,.](?=\d{3}\b)/g, ''));
    if (Number.isFinite(v)) {
      const b = bandForDensity(v);
      readings.push(`Population density ${v} people/km² → band ${b} (from "${dens[0].trim()}")`);
      return b;
    }
  }
  return undefined;
}

function extractMitigations(text: string, readings: string[]): CalcParams['mitigations'] {
  const out: Partial<Record<MitigationKey, MitigationLevel>> = {};
  const key = (m: string, letter: string | undefined): MitigationKey | null => {
    if (/^m2$/i.test(m.replace(/\s/g, ''))) return 'm2';
    return letter ? (`m1${letter.toLowerCase()}` as MitigationKey) : null;
  };
  const fwd = /\b(M1\s*\(?([ABC])\)?|M2)\s*(?:at\s+|with\s+|of\s+|=\s*|:\s*)?(low|medium|high)\b/gi;
  const rev = /\b(low|medium|high)\s+(?:robustness\s+)?(M1\s*\(?([ABC])\)?|M2)/gi;
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

/** Read parameters and requested outputs from a message. */
export function extractCalc(message: string): Extraction {
  const text = message.normalize('NFKC');
  const readings: string[] = [];
  const params: CalcParams = {};
  const dim = extractDimension(text, readings);
  if (dim !== undefined) params.dimensionM = dim;
  const speed = extractSpeed(text, readings);
  if (speed !== undefined) params.maxSpeedMs = speed;
  const mass = extractMass(text, readings);
  if (mass !== undefined) params.massG = mass;
  const pop = extractPopulation(text, readings);
  if (pop !== undefined) params.population = pop;
  const arc = /\b(?:residual\s+)?ARC\s*[-–]?\s*([a-d])\b/i.exec(text);
  if (arc) {
    params.residualArc = arc[1]!.toLowerCase() as ResidualArc;
    readings.push(`Residual ARC: ARC-${params.residualArc} (the ARC stated is taken as the residual ARC)`);
  }
  const mit = extractMitigations(text, readings);
  if (mit) params.mitigations = mit;
  const grc = /\b(?:final\s+)?GRC\s*(?:of|=|:|is)?\s*(\d{1,2})\b/i.exec(text);
  if (grc && !/\bi(?:ntrinsic\s*)?GRC\s*(?:of|=|:|is)?\s*\d/i.test(text)) {
    params.grc = Number(grc[1]);
    readings.push(`GRC ${params.grc} (from "${grc[0]}")`);
  }
  const sail = /\bSAIL\s*(VI|V|IV|III|II|I|[1-6])(?![\p{L}])/u.exec(text);
  if (sail) {
    const s = sail[1]!;
    params.sail = (/^\d$/.test(s) ? SAIL_LEVELS[Number(s) - 1] : s) as Sail;
    readings.push(`SAIL ${params.sail}`);
  }
  const osos = [...text.matchAll(/\bOSO\s*#?\s*(\d{1,2})\b/gi)].map((m) => m[1]!);
  if (osos.length) {
    params.osoIds = [...new Set(osos)];
    readings.push(`OSO ${params.osoIds.map((o) => `#${o.padStart(2, '0')}`).join(', ')}`);
  }

  // Requested outputs: a table output named without a value of its own.
  const targets: CalcTarget[] = [];
  const add = (t: CalcTarget) => targets.includes(t) || targets.push(t);
  if (/\b(?:i\s?GRC|intrinsic\s+(?:GRC|ground\s+risk))\b/i.test(text) && !/\bi\s?GRC\s*(?:of|=|:|is)?\s*\d/i.test(text)) add('igrc');
  if (/\b(?:final|resulting)\s+(?:GRC|ground\s+risk\s+class)\b/i.test(text) && params.grc === undefined) add('final_grc');
  if (/\bGRC\b/i.test(text) && !/\bi\s?GRC\b|final\s+GRC/i.test(text) && params.grc === undefined) add('final_grc');
  if (/\bSAIL\b/.test(text) && params.sail === undefined) add('sail');
  if (/\bTMPR\b|tactical\s+mitigation\s+performance/i.test(text)) add('tmpr');
  if (/\bOSOs?\b/i.test(text) && (params.sail !== undefined || /robustness|required|level/i.test(text))) add('oso');
  if (/\bcontainment\b/i.test(text)) add('containment');
  return { params, targets, readings };
}

/** Parameters of a follow-up override those of the previous turn. */
export function mergeParams(previous: CalcParams | null | undefined, next: CalcParams): CalcParams {
  if (!previous) return { ...next };
  const merged: CalcParams = { ...previous, ...next };
  if (previous.mitigations || next.mitigations) merged.mitigations = { ...previous.mitigations, ...next.mitigations };
  return merged;
}

export type CalcItemStatus = 'ok' | 'missing' | 'not-computable' | 'invalid';

export interface CalcItem {
  target: CalcTarget;
  label: string;
  status: CalcItemStatus;
  /** The value, as text ("4", "SAIL III", "OSO #05: M"). */
  value: string | null;
  trace: readonly TraceStep[];
  /** Inputs still needed, in words. */
  missing: string[];
  /** Why there is no value (outside SORA, not in the corpus, invalid input). */
  reason: string | null;
  notes: string[];
}

export interface CalcOutcome {
  params: CalcParams;
  readings: string[];
  items: CalcItem[];
}

const M = {
  dimension: 'UA characteristic dimension (m)',
  speed: 'maximum UA speed (m/s)',
  population: 'population density (people/km²) or "controlled ground area"',
  arc: 'residual ARC (ARC-a … ARC-d)',
  sail: 'SAIL (I–VI), or the inputs to compute it',
  grc: 'final GRC, or UA dimension, speed and population density',
  adjacent: 'average population density of the adjacent area (people/km²)',
  assembly: 'largest outdoor assembly of people within 1 km',
};

type StepResult<T> = { status: 'ok'; value: T; trace: readonly TraceStep[]; notes: readonly string[] } | { status: 'outside-sora' | 'unavailable'; reason: string; trace: readonly TraceStep[]; notes: readonly string[] } | { status: 'invalid'; errors: readonly { message: string }[] };

function item<T>(target: CalcTarget, r: StepResult<T>, show: (v: T) => string, extraTrace: readonly TraceStep[] = []): CalcItem {
  const base = { target, label: CALC_TARGET_LABELS[target], missing: [] };
  if (r.status === 'ok') return { ...base, status: 'ok', value: show(r.value), trace: [...extraTrace, ...r.trace], reason: null, notes: [...r.notes] };
  if (r.status === 'invalid') return { ...base, status: 'invalid', value: null, trace: extraTrace, reason: r.errors.map((e) => e.message).join(' '), notes: [] };
  return { ...base, status: 'not-computable', value: null, trace: [...extraTrace, ...r.trace], reason: r.reason, notes: [...r.notes] };
}

const missingItem = (target: CalcTarget, missing: string[]): CalcItem => ({
  target,
  label: CALC_TARGET_LABELS[target],
  status: 'missing',
  value: null,
  trace: [],
  missing,
  reason: null,
  notes: [],
});

/** Run the calculator for the targets with the parameters; targets default to what the parameters allow. */
export function runCalc(targetsIn: readonly CalcTarget[], params: CalcParams, readings: string[] = []): CalcOutcome {
  const p = params;
  let targets = [...targetsIn];
  if (!targets.length) {
    if (p.sail !== undefined) targets = ['oso'];
    else if (p.grc !== undefined || p.dimensionM !== undefined || p.maxSpeedMs !== undefined || p.population !== undefined) targets = ['igrc', 'final_grc', 'sail'];
    else if (p.residualArc !== undefined) targets = ['sail', 'tmpr'];
    else targets = ['igrc', 'final_grc', 'sail'];
  }
  const items: CalcItem[] = [];
  const igrcMissing = [p.dimensionM === undefined ? M.dimension : '', p.maxSpeedMs === undefined ? M.speed : '', p.population === undefined ? M.population : ''].filter(Boolean);

  const igrcRun = () =>
    intrinsicGrc({ dimensionM: p.dimensionM!, maxSpeedMs: p.maxSpeedMs!, population: p.population!, ...(p.massG !== undefined ? { takeOffMassG: p.massG } : {}) });
  const finalRun = () => {
    const ig = igrcRun();
    if (ig.status !== 'ok') return { ig, fin: null };
    return { ig, fin: finalGrc({ igrc: ig.value.igrc, columnIndex: ig.value.columnIndex, mitigations: p.mitigations, population: ig.value.band }) };
  };
  /** The final GRC for SAIL: stated, or computed; with the trace that produced it. */
  const grcForSail = (): { grc: number; trace: readonly TraceStep[] } | CalcItem | null => {
    if (p.grc !== undefined) return { grc: p.grc, trace: [] };
    if (igrcMissing.length) return null;
    const { ig, fin } = finalRun();
    if (ig.status !== 'ok') return item('sail', ig, () => '');
    if (!fin || fin.status !== 'ok') return fin ? item('sail', fin, () => '', ig.trace) : null;
    return { grc: fin.value.finalGrc, trace: [...ig.trace, ...fin.trace] };
  };

  for (const t of targets) {
    switch (t) {
      case 'igrc':
        items.push(igrcMissing.length ? missingItem(t, igrcMissing) : item(t, igrcRun(), (v) => String(v.igrc)));
        break;
      case 'final_grc': {
        if (igrcMissing.length) {
          items.push(missingItem(t, igrcMissing));
          break;
        }
        const { ig, fin } = finalRun();
        if (ig.status !== 'ok' || !fin) items.push(item(t, ig, () => ''));
        else items.push(item(t, fin, (v) => String(v.finalGrc), ig.trace));
        if (!p.mitigations) items[items.length - 1]!.notes.push('No ground-risk mitigation was stated, so none is applied.');
        break;
      }
      case 'sail': {
        const g = grcForSail();
        if (g === null || p.residualArc === undefined) {
          items.push(missingItem(t, [g === null ? M.grc : '', p.residualArc === undefined ? M.arc : ''].filter(Boolean)));
          break;
        }
        if ('target' in g) {
          items.push({ ...g, target: t, label: CALC_TARGET_LABELS[t] });
          break;
        }
        items.push(item(t, sailFor({ finalGrc: g.grc, residualArc: p.residualArc }), (v) => `SAIL ${v.sail}`, g.trace));
        break;
      }
      case 'tmpr':
        items.push(p.residualArc === undefined ? missingItem(t, [M.arc]) : item(t, tmprFor(p.residualArc), (v) => v.tmpr));
        break;
      case 'oso': {
        let sail: Sail | undefined = p.sail;
        let pre: readonly TraceStep[] = [];
        if (sail === undefined) {
          const g = grcForSail();
          if (g && !('target' in g) && p.residualArc !== undefined) {
            const s = sailFor({ finalGrc: g.grc, residualArc: p.residualArc });
            if (s.status === 'ok') {
              sail = s.value.sail;
              pre = [...g.trace, ...s.trace];
            }
          }
        }
        if (sail === undefined) {
          items.push(missingItem(t, [M.sail]));
          break;
        }
        items.push(item(t, osoRobustness(sail, p.osoIds), (v) => v.map((o) => `${o.id}: ${o.robustness}`).join('; '), pre));
        break;
      }
      case 'containment':
        items.push(missingItem(t, [p.dimensionM === undefined ? M.dimension : '', p.maxSpeedMs === undefined ? M.speed : '', p.sail === undefined ? M.sail : '', M.adjacent, M.assembly].filter(Boolean)));
        items[items.length - 1]!.notes.push('The chat calculator does not read the adjacent-area inputs of SORA Step #8 (Tables 8–13); the containment robustness is not computed here.');
        break;
    }
  }
  return { params, readings, items };
}
