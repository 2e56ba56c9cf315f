/**
 * iGRC → final GRC → SAIL for one operation, in the input format of the operations evaluation set.
 */
import { intrinsicGrc, type IgrcValue } from './igrc.js';
import { finalGrc, type FinalGrcValue, type MitigationClaims } from './final-grc.js';
import { sailFor, type SailValue } from './sail.js';
import type { Sail } from './tables/sail-table.js';
import type { PopulationBand } from './tables/igrc-table.js';
import type { AssessResult, TraceStep } from './types.js';

/** Operation inputs, field names as in operations-dev.jsonl. */
export interface OperationInput {
  readonly dimension_m: number;
  readonly max_speed_ms: number;
  readonly population: PopulationBand | string;
  readonly mass_g?: number;
  readonly mitigations?: MitigationClaims;
  readonly residual_arc: string;
}

/** The three headline figures; null when not computed (outside SORA, unavailable or invalid). */
export interface OperationSummary {
  readonly igrc: number | null;
  readonly final_grc: number | null;
  readonly sail: Sail | null;
}

export interface OperationAssessment {
  readonly summary: OperationSummary;
  readonly igrc: AssessResult<IgrcValue>;
  readonly finalGrc: AssessResult<FinalGrcValue> | null;
  readonly sail: AssessResult<SailValue> | null;
  /** All trace steps in order. */
  readonly trace: readonly TraceStep[];
  /** Notes, reasons for missing values, and validation messages. */
  readonly notes: readonly string[];
}

function explain(r: AssessResult<unknown>): string[] {
  if (r.status === 'invalid') return r.errors.map((e) => `${e.field}: ${e.message}`);
  if (r.status === 'ok') return [...r.notes];
  return [r.reason, ...r.notes];
}

/** Runs steps #2, #3 and #7 for one operation; stops at the first step without a value. */
export function assessOperation(input: OperationInput): OperationAssessment {
  const igrc = intrinsicGrc({
    dimensionM: input.dimension_m,
    maxSpeedMs: input.max_speed_ms,
    population: input.population,
    ...(input.mass_g === undefined ? {} : { takeOffMassG: input.mass_g }),
  });
  const trace: TraceStep[] = igrc.status === 'invalid' ? [] : [...igrc.trace];
  const notes = explain(igrc);
  if (igrc.status !== 'ok') {
    return { summary: { igrc: null, final_grc: null, sail: null }, igrc, finalGrc: null, sail: null, trace, notes };
  }
  const fin = finalGrc({
    igrc: igrc.value.igrc,
    columnIndex: igrc.value.columnIndex,
    mitigations: input.mitigations,
    population: igrc.value.band,
  });
  if (fin.status !== 'invalid') trace.push(...fin.trace);
  notes.push(...explain(fin));
  if (fin.status !== 'ok') {
    return { summary: { igrc: igrc.value.igrc, final_grc: null, sail: null }, igrc, finalGrc: fin, sail: null, trace, notes };
  }
  const sail = sailFor({ finalGrc: fin.value.finalGrc, residualArc: input.residual_arc });
  if (sail.status !== 'invalid') trace.push(...sail.trace);
  notes.push(...explain(sail));
  return {
    summary: { igrc: igrc.value.igrc, final_grc: fin.value.finalGrc, sail: sail.status === 'ok' ? sail.value.sail : null },
    igrc,
    finalGrc: fin,
    sail,
    trace,
    notes,
  };
}
