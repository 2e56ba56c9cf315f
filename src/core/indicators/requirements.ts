/**
 * What each result needs, said before the run: for iGRC, final GRC and SAIL, the inputs their
 * tables read, whether each is given, read from another input (the population density band from
 * the ground environment, Table 2) or still missing; and, per optional field, the results that
 * need it. Reads a form half filled in (each field on its own), so the form can say it as the user
 * types.
 */
import { GRC_MITIGATIONS_TABLE } from '../sora/tables/grc-mitigations-table.js';
import { IGRC_TABLE } from '../sora/tables/igrc-table.js';
import { SAIL_TABLE } from '../sora/tables/sail-table.js';
import type { SourceRef } from '../sora/types.js';
import { ENVIRONMENTS_WITH_A_BAND, readGround, type GroundReading } from './ground.js';
import { fieldLabel, GROUND_ENVIRONMENT_LABELS, POPULATION_BAND_LABELS, readOperationFields, type OptionalField } from './inputs.js';

export type NeedState = 'given' | 'derived' | 'missing' | 'invalid';

export interface Need {
  readonly field: OptionalField;
  readonly label: string;
  readonly state: NeedState;
  /** How a derived value was read, or why a value is needed; null when given. */
  readonly detail: string | null;
}

export type CalculatedResult = 'igrc' | 'final_grc' | 'sail';

export interface ResultRequirement {
  readonly result: CalculatedResult;
  readonly label: string;
  /** The table the result is read from, as captioned, with its page. */
  readonly table: string;
  readonly needs: readonly Need[];
  /** True when every input the result needs is given or derived. */
  readonly ready: boolean;
  /** One sentence: what the result needs and what is still missing. */
  readonly text: string;
}

export interface Requirements {
  readonly results: readonly ResultRequirement[];
  /** For each optional field: whether it is needed, and for which results (shown next to its label). */
  readonly fields: Readonly<Record<OptionalField, string>>;
  /** The Table 2 reading of the ground environment when no band is given (null otherwise). */
  readonly ground: GroundReading | null;
  /** The indicators no table gives: what they rest on. */
  readonly others: string;
}

const RESULT_LABELS: Readonly<Record<CalculatedResult, string>> = { igrc: 'iGRC', final_grc: 'Final GRC', sail: 'SAIL' };

const where = (s: SourceRef): string => `${s.caption.split(' — ')[0]}, p. ${s.page}`;

const RESULT_TABLES: Readonly<Record<CalculatedResult, string>> = {
  igrc: where(IGRC_TABLE.source),
  final_grc: where(GRC_MITIGATIONS_TABLE.source),
  sail: where(SAIL_TABLE.source),
};

const STEP_INPUTS: Readonly<Record<CalculatedResult, readonly OptionalField[]>> = {
  igrc: ['characteristic_dimension_m', 'max_speed_ms', 'population_band'],
  final_grc: ['characteristic_dimension_m', 'max_speed_ms', 'population_band'],
  sail: ['characteristic_dimension_m', 'max_speed_ms', 'population_band', 'residual_arc'],
};

const list = (xs: readonly string[]): string => (xs.length <= 1 ? (xs[0] ?? '') : `${xs.slice(0, -1).join(', ')} and ${xs[xs.length - 1]}`);

/** What each result needs, for the raw form values (blank fields absent or ''). */
export function describeRequirements(raw: Readonly<Record<string, unknown>>): Requirements {
  const read = readOperationFields(raw);
  const invalid = new Set(read.errors.map((e) => e.field));
  const v = read.values;
  const ground = v.population_band === undefined && v.ground_environment !== undefined ? readGround(v.ground_environment) : null;

  const need = (field: OptionalField): Need => {
    const label = fieldLabel(field);
    if (invalid.has(field)) return { field, label, state: 'invalid', detail: 'the value entered cannot be read' };
    if (v[field] !== undefined) return { field, label, state: 'given', detail: null };
    if (field === 'population_band' && ground?.band) {
      return {
        field,
        label,
        state: 'derived',
        detail: `${POPULATION_BAND_LABELS[ground.band]}, read from the ground environment with Table 2`,
      };
    }
    if (field === 'population_band') {
      return {
        field,
        label,
        state: 'missing',
        detail: ground
          ? `"${GROUND_ENVIRONMENT_LABELS[ground.environment]}" spans several rows of Table 1`
          : `or a ground environment Table 2 reads as one band (${ENVIRONMENTS_WITH_A_BAND.map((e) => `"${GROUND_ENVIRONMENT_LABELS[e]}"`).join(', ')})`,
      };
    }
    return { field, label, state: 'missing', detail: null };
  };

  const results = (['igrc', 'final_grc', 'sail'] as const).map((result): ResultRequirement => {
    const needs = STEP_INPUTS[result].map(need);
    const ready = needs.every((n) => n.state === 'given' || n.state === 'derived');
    const lacking = needs.filter((n) => n.state === 'missing' || n.state === 'invalid');
    // each result names what it adds to the step before it; what is still missing is listed in full
    const what =
      result === 'igrc'
        ? list(needs.map((n) => (n.state === 'derived' ? `${n.label} (${n.detail})` : n.label)))
        : result === 'final_grc'
          ? 'the iGRC; claimed mitigations are optional (none claimed: no reduction)'
          : `the final GRC and ${fieldLabel('residual_arc')}`;
    const text =
      `${RESULT_LABELS[result]} (${RESULT_TABLES[result]}) needs ${what}. ` +
      (ready
        ? 'Ready.'
        : `Still needed: ${list(lacking.map((n) => `${n.label}${n.state === 'invalid' ? ' (correct the value)' : n.detail ? ` (${n.detail})` : ''}`))}.`);
    return { result, label: RESULT_LABELS[result], table: RESULT_TABLES[result], needs, ready, text };
  });

  const bandHint =
    v.population_band !== undefined
      ? 'needed for iGRC, final GRC and SAIL'
      : ground?.band
        ? `optional: read from the ground environment with Table 2 (${POPULATION_BAND_LABELS[ground.band]})`
        : ground
          ? `required for iGRC, final GRC and SAIL: "${GROUND_ENVIRONMENT_LABELS[ground.environment]}" spans several rows`
          : 'needed for iGRC, final GRC and SAIL unless the ground environment gives it (Table 2)';
  const fields: Record<OptionalField, string> = {
    characteristic_dimension_m: 'needed for iGRC, final GRC and SAIL',
    max_speed_ms: 'needed for iGRC, final GRC and SAIL',
    population_band: bandHint,
    mitigations: 'optional: lowers the final GRC and SAIL',
    residual_arc: 'needed for SAIL',
  };
  return {
    results,
    fields,
    ground,
    others:
      'The initial ground risk orientation follows the iGRC. The pathway, the assessment depth and the initial air risk orientation are read from no table: a model proposes them from the passages, or without a model the passages are shown to read (atypical or segregated airspace gives a very low initial air risk by rule, S.4.4.4).',
  };
}
