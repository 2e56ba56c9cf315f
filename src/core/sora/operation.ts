/**
 * iGRC → final GRC → SAIL for one operation, in the input format of the operations evaluation set.
 */
import { runSoraChain } from './chain.js';
import type { IgrcValue } from './igrc.js';
import type { FinalGrcValue, MitigationClaims } from './final-grc.js';
import type { SailValue } from './sail.js';
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

/** Runs steps #2, #3 and #7 for one operation (the chain of `chain.ts`); stops at the first step without a value. */
export function assessOperation(input: OperationInput): OperationAssessment {
  const chain = runSoraChain({
    dimensionM: input.dimension_m,
    maxSpeedMs: input.max_speed_ms,
    population: input.population,
    ...(input.mass_g === undefined ? {} : { takeOffMassG: input.mass_g }),
    ...(input.mitigations === undefined ? {} : { mitigations: input.mitigations }),
    residualArc: input.residual_arc,
  });
  // every input is given, so Step #2 always ran
  const igrc = chain.igrc as AssessResult<IgrcValue>;
  return { summary: chain.summary, igrc, finalGrc: chain.finalGrc, sail: chain.sail, trace: chain.trace, notes: chain.notes };
}
