/**
 * The calculator for a chat message: the outputs the message asks for (iGRC, final GRC, SAIL,
 * TMPR, OSO robustness, containment), computed with the SORA chain of `chain.ts` from the
 * parameters `extract.ts` read. Nothing is guessed: a value that is not stated is reported as
 * missing, and every computed value carries the table cells it was read from.
 */
import { runSoraChain, type SoraChain } from './chain.js';
import { CALC_TARGET_LABELS, type CalcParams, type CalcTarget } from './extract.js';
import { intrinsicGrc } from './igrc.js';
import { osoRobustness } from './oso.js';
import { sailFor } from './sail.js';
import { POPULATION_BANDS } from './tables/igrc-table.js';
import type { Sail } from './tables/sail-table.js';
import { tmprFor } from './tmpr.js';
import type { TraceStep } from './types.js';

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
  /** Caveats of the readings (documents that disagree, several speeds given). */
  notes: string[];
  items: CalcItem[];
}

const M = {
  dimension: 'UA characteristic dimension (m)',
  speed: 'maximum UA speed (m/s)',
  population: 'population density (people/km²), a Table 2 descriptor (e.g. "remote", "suburban") or "controlled ground area"',
  arc: 'residual ARC (ARC-a … ARC-d)',
  sail: 'SAIL (I–VI), or the inputs to compute it',
  grc: 'final GRC, or UA dimension, speed and population density',
  adjacent: 'average population density of the adjacent area (people/km²)',
  assembly: 'largest outdoor assembly of people within 1 km',
};

type StepResult<T> =
  | { status: 'ok'; value: T; trace: readonly TraceStep[]; notes: readonly string[] }
  | { status: 'outside-sora' | 'unavailable'; reason: string; trace: readonly TraceStep[]; notes: readonly string[] }
  | { status: 'invalid'; errors: readonly { message: string }[] };

function item<T>(target: CalcTarget, r: StepResult<T>, show: (v: T) => string, extraTrace: readonly TraceStep[] = []): CalcItem {
  const base = { target, label: CALC_TARGET_LABELS[target], missing: [] };
  if (r.status === 'ok') return { ...base, status: 'ok', value: show(r.value), trace: [...extraTrace, ...r.trace], reason: null, notes: [...r.notes] };
  if (r.status === 'invalid')
    return { ...base, status: 'invalid', value: null, trace: extraTrace, reason: r.errors.map((e) => e.message).join(' '), notes: [] };
  return { ...base, status: 'not-computable', value: null, trace: [...extraTrace, ...r.trace], reason: r.reason, notes: [...r.notes] };
}

const missingItem = (target: CalcTarget, missing: string[], notes: string[] = []): CalcItem => ({
  target,
  label: CALC_TARGET_LABELS[target],
  status: 'missing',
  value: null,
  trace: [],
  missing,
  reason: null,
  notes,
});

/**
 * For a descriptor that covers several rows ("populated area"): the iGRC each row would give,
 * so the card can say how much the choice matters.
 */
function candidateNote(p: CalcParams): string[] {
  const bands = p.populationCandidates;
  if (!bands?.length || p.dimensionM === undefined || p.maxSpeedMs === undefined) return [];
  const parts = [...bands]
    .sort((a, b) => POPULATION_BANDS.indexOf(a) - POPULATION_BANDS.indexOf(b))
    .map((band) => {
      const r = intrinsicGrc({
        dimensionM: p.dimensionM!,
        maxSpeedMs: p.maxSpeedMs!,
        population: band,
        ...(p.massG !== undefined ? { takeOffMassG: p.massG } : {}),
      });
      return `${band} people/km² → ${r.status === 'ok' ? `iGRC ${r.value.igrc}` : r.status === 'outside-sora' ? 'not part of SORA' : 'no value'}`;
    });
  return [`"${p.populationDescriptor?.phrase ?? 'The description'}" covers several rows of Table 1: ${parts.join('; ')}. State the density to get one value.`];
}

/** Run the calculator for the targets with the parameters; targets default to what the parameters allow. */
export function runCalc(targetsIn: readonly CalcTarget[], params: CalcParams, readings: string[] = [], readingNotes: string[] = []): CalcOutcome {
  const p = params;
  let targets = [...targetsIn];
  if (!targets.length) {
    if (p.sail !== undefined) targets = ['oso'];
    else if (p.grc !== undefined || p.dimensionM !== undefined || p.maxSpeedMs !== undefined || p.population !== undefined || p.populationCandidates)
      targets = ['igrc', 'final_grc', 'sail'];
    else if (p.residualArc !== undefined) targets = ['sail', 'tmpr'];
    else targets = ['igrc', 'final_grc', 'sail'];
  }
  const chain: SoraChain = runSoraChain({
    ...(p.dimensionM !== undefined ? { dimensionM: p.dimensionM } : {}),
    ...(p.maxSpeedMs !== undefined ? { maxSpeedMs: p.maxSpeedMs } : {}),
    ...(p.population !== undefined ? { population: p.population } : {}),
    ...(p.massG !== undefined ? { takeOffMassG: p.massG } : {}),
    ...(p.mitigations ? { mitigations: p.mitigations } : {}),
    ...(p.residualArc !== undefined ? { residualArc: p.residualArc } : {}),
    ...(p.grc !== undefined ? { statedFinalGrc: p.grc } : {}),
  });
  // the Table 2 cell a worded population was read from comes first in the iGRC trace
  const descriptorTrace: readonly TraceStep[] = p.populationDescriptor && p.population !== undefined ? [p.populationDescriptor.trace] : [];
  const igrcMissing = chain.missing.igrc.map((n) => (n === 'dimension' ? M.dimension : n === 'speed' ? M.speed : M.population));
  const populationNotes = candidateNote(p);
  const igrcTrace = chain.igrc && chain.igrc.status !== 'invalid' ? chain.igrc.trace : [];
  const items: CalcItem[] = [];

  /** The final GRC for SAIL and its trace, an item explaining why there is none, or null (inputs missing). */
  const grcForSail = (): { grc: number; trace: readonly TraceStep[] } | CalcItem | null => {
    if (chain.grcForSail?.stated) return { grc: chain.grcForSail.value, trace: [] };
    if (chain.igrc === null) return null;
    if (chain.igrc.status !== 'ok') return item('sail', chain.igrc, () => '', descriptorTrace);
    const fin = chain.finalGrc;
    if (!fin || fin.status !== 'ok') return fin ? item('sail', fin, () => '', [...descriptorTrace, ...chain.igrc.trace]) : null;
    return { grc: fin.value.finalGrc, trace: [...descriptorTrace, ...chain.igrc.trace, ...fin.trace] };
  };

  for (const t of targets) {
    switch (t) {
      case 'igrc':
        items.push(chain.igrc === null ? missingItem(t, igrcMissing, populationNotes) : item(t, chain.igrc, (v) => String(v.igrc), descriptorTrace));
        break;
      case 'final_grc': {
        if (chain.igrc === null) {
          items.push(missingItem(t, igrcMissing, populationNotes));
          break;
        }
        if (chain.igrc.status !== 'ok' || !chain.finalGrc) items.push(item(t, chain.igrc, () => '', descriptorTrace));
        else items.push(item(t, chain.finalGrc, (v) => String(v.finalGrc), [...descriptorTrace, ...igrcTrace]));
        if (!p.mitigations) items[items.length - 1]!.notes.push('No ground-risk mitigation was stated, so none is applied.');
        break;
      }
      case 'sail': {
        const g = grcForSail();
        if (g === null || p.residualArc === undefined) {
          items.push(missingItem(t, [g === null ? M.grc : '', p.residualArc === undefined ? M.arc : ''].filter(Boolean), g === null ? populationNotes : []));
          break;
        }
        if ('target' in g) {
          items.push({ ...g, target: t, label: CALC_TARGET_LABELS[t] });
          break;
        }
        items.push(
          chain.sail
            ? item(t, chain.sail, (v) => `SAIL ${v.sail}`, g.trace)
            : item(t, sailFor({ finalGrc: g.grc, residualArc: p.residualArc }), (v) => `SAIL ${v.sail}`, g.trace),
        );
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
          if (g && !('target' in g) && chain.sail?.status === 'ok') {
            sail = chain.sail.value.sail;
            pre = [...g.trace, ...chain.sail.trace];
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
        items.push(
          missingItem(
            t,
            [
              p.dimensionM === undefined ? M.dimension : '',
              p.maxSpeedMs === undefined ? M.speed : '',
              p.sail === undefined ? M.sail : '',
              M.adjacent,
              M.assembly,
            ].filter(Boolean),
          ),
        );
        items[items.length - 1]!.notes.push(
          'The chat calculator does not read the adjacent-area inputs of SORA Step #8 (Tables 8–13); the containment robustness is not computed here.',
        );
        break;
    }
  }
  return { params, readings, notes: readingNotes, items };
}
