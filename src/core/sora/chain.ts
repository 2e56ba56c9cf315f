/**
 * The SORA chain iGRC (Step #2, Table 1) → final GRC (Step #3, Table 5) → SAIL (Step #7, the table
 * captioned "Table 3"), run as far as the inputs allow. The one place these steps are chained: the
 * operations evaluation (`operation.ts`), the indicator workflow (`indicators/deterministic.ts`)
 * and the Ask view's calculator card (`message-calc.ts`) all call it.
 */
import { finalGrc, type FinalGrcValue, type MitigationClaims } from './final-grc.js';
import { intrinsicGrc, type IgrcValue } from './igrc.js';
import { sailFor, type SailValue } from './sail.js';
import type { PopulationBand } from './tables/igrc-table.js';
import type { ResidualArc, Sail } from './tables/sail-table.js';
import type { AssessResult, TraceStep } from './types.js';

export interface SoraChainInput {
  readonly dimensionM?: number;
  readonly maxSpeedMs?: number;
  readonly population?: PopulationBand | string;
  /** Take-off mass in grams, when known (the ≤ 250 g rule under Table 1). */
  readonly takeOffMassG?: number;
  readonly mitigations?: MitigationClaims;
  readonly residualArc?: ResidualArc | string;
  /** A final GRC stated instead of the Step #2–#3 inputs: SAIL is read from it. */
  readonly statedFinalGrc?: number;
}

/** Inputs of the chain, named for messages. */
export type ChainInputName = 'dimension' | 'speed' | 'population' | 'residual_arc';

export interface SoraChain {
  /** Null when an input of Step #2 is missing (see `missing.igrc`). */
  readonly igrc: AssessResult<IgrcValue> | null;
  /** Null when Step #2 has no value. */
  readonly finalGrc: AssessResult<FinalGrcValue> | null;
  /** Null when the final GRC or the residual ARC is missing. */
  readonly sail: AssessResult<SailValue> | null;
  /** The final GRC SAIL was (or would be) read with: stated, or computed; null when neither. */
  readonly grcForSail: { readonly value: number; readonly stated: boolean } | null;
  /** Inputs each step still needs. */
  readonly missing: Readonly<Record<'igrc' | 'final_grc' | 'sail', readonly ChainInputName[]>>;
  /** Trace of every step that ran (table cells), in order. */
  readonly trace: readonly TraceStep[];
  /** Reasons for missing values, validation messages and notes, in step order. */
  readonly notes: readonly string[];
  readonly summary: { readonly igrc: number | null; readonly final_grc: number | null; readonly sail: Sail | null };
}

function explain(r: AssessResult<unknown>): string[] {
  if (r.status === 'invalid') return r.errors.map((e) => `${e.field}: ${e.message}`);
  if (r.status === 'ok') return [...r.notes];
  return [r.reason, ...r.notes];
}

export function runSoraChain(input: SoraChainInput): SoraChain {
  const missingIgrc: ChainInputName[] = [];
  if (input.dimensionM === undefined) missingIgrc.push('dimension');
  if (input.maxSpeedMs === undefined) missingIgrc.push('speed');
  if (input.population === undefined) missingIgrc.push('population');
  const arcMissing: ChainInputName[] = input.residualArc === undefined ? ['residual_arc'] : [];
  const trace: TraceStep[] = [];
  const notes: string[] = [];

  let igrc: AssessResult<IgrcValue> | null = null;
  let fin: AssessResult<FinalGrcValue> | null = null;
  if (missingIgrc.length === 0) {
    igrc = intrinsicGrc({
      dimensionM: input.dimensionM!,
      maxSpeedMs: input.maxSpeedMs!,
      population: input.population!,
      ...(input.takeOffMassG === undefined ? {} : { takeOffMassG: input.takeOffMassG }),
    });
    if (igrc.status !== 'invalid') trace.push(...igrc.trace);
    notes.push(...explain(igrc));
    if (igrc.status === 'ok') {
      fin = finalGrc({ igrc: igrc.value.igrc, columnIndex: igrc.value.columnIndex, mitigations: input.mitigations, population: igrc.value.band });
      if (fin.status !== 'invalid') trace.push(...fin.trace);
      notes.push(...explain(fin));
    }
  }

  const grcForSail =
    input.statedFinalGrc !== undefined
      ? { value: input.statedFinalGrc, stated: true }
      : fin?.status === 'ok'
        ? { value: fin.value.finalGrc, stated: false }
        : null;
  let sail: AssessResult<SailValue> | null = null;
  if (grcForSail && input.residualArc !== undefined) {
    sail = sailFor({ finalGrc: grcForSail.value, residualArc: input.residualArc });
    if (sail.status !== 'invalid') trace.push(...sail.trace);
    notes.push(...explain(sail));
  }
  const sailMissing: ChainInputName[] = grcForSail ? arcMissing : [...missingIgrc, ...arcMissing];
  return {
    igrc,
    finalGrc: fin,
    sail,
    grcForSail,
    missing: { igrc: missingIgrc, final_grc: missingIgrc, sail: sailMissing },
    trace,
    notes,
    summary: {
      igrc: igrc?.status === 'ok' ? igrc.value.igrc : null,
      final_grc: fin?.status === 'ok' ? fin.value.finalGrc : null,
      sail: sail?.status === 'ok' ? sail.value.sail : null,
    },
  };
}
