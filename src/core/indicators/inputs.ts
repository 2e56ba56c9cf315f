/**
 * The `InitialOperationInput` of the indicator workflow (SKYSAFE §2.8, A.3.2, UC-CLS-01): five
 * categorical fields with controlled vocabularies, plus optional SORA inputs that let the
 * calculator compute iGRC / final GRC / SAIL from the tables.
 *
 * Every vocabulary is an `as const` array with a label per value, so a form can render it and the
 * validator can name the allowed values in its errors (error flow E1).
 */
import { SkyCiteError } from '../errors.js';
import { validateMitigations, type MitigationClaims } from '../sora/final-grc.js';
import { parsePopulationBand, parseResidualArc } from '../sora/inputs.js';
import { readQuantity, type Dimension } from '../sora/quantity.js';
import { POPULATION_BANDS, type PopulationBand } from '../sora/tables/igrc-table.js';
import { GRC_MITIGATIONS_TABLE, MITIGATION_KEYS, type MitigationKey, type MitigationLevel } from '../sora/tables/grc-mitigations-table.js';
import { RESIDUAL_ARCS, type ResidualArc } from '../sora/tables/sail-table.js';
import type { ValidationError } from '../sora/types.js';

export interface VocabularyOption<V extends string> {
  readonly value: V;
  readonly label: string;
}

/** Maximum take-off mass category. */
export const MTOM_CATEGORIES = ['below_250g', 'below_900g', 'below_4kg', 'below_25kg', '25kg_or_more'] as const;
export type MtomCategory = (typeof MTOM_CATEGORIES)[number];
export const MTOM_LABELS: Readonly<Record<MtomCategory, string>> = {
  below_250g: '< 250 g',
  below_900g: '250 g to < 900 g',
  below_4kg: '900 g to < 4 kg',
  below_25kg: '4 kg to < 25 kg',
  '25kg_or_more': '25 kg or more',
};

/** Visual containment mode. */
export const VISUAL_MODES = ['VLOS', 'BVLOS'] as const;
export type VisualMode = (typeof VISUAL_MODES)[number];
export const VISUAL_MODE_LABELS: Readonly<Record<VisualMode, string>> = {
  VLOS: 'VLOS (visual line of sight)',
  BVLOS: 'BVLOS (beyond visual line of sight)',
};

/** Ground environment overflown. */
export const GROUND_ENVIRONMENTS = ['controlled_ground_area', 'sparsely_populated', 'populated', 'assembly_of_people'] as const;
export type GroundEnvironment = (typeof GROUND_ENVIRONMENTS)[number];
export const GROUND_ENVIRONMENT_LABELS: Readonly<Record<GroundEnvironment, string>> = {
  controlled_ground_area: 'Controlled ground area',
  sparsely_populated: 'Sparsely populated area',
  populated: 'Populated area',
  assembly_of_people: 'Over assemblies of people',
};

/** Airspace type of the operational volume. */
export const AIRSPACE_TYPES = ['atypical_segregated', 'uncontrolled', 'controlled', 'airport_environment'] as const;
export type AirspaceType = (typeof AIRSPACE_TYPES)[number];
export const AIRSPACE_TYPE_LABELS: Readonly<Record<AirspaceType, string>> = {
  atypical_segregated: 'Atypical or segregated airspace',
  uncontrolled: 'Uncontrolled airspace',
  controlled: 'Controlled airspace',
  airport_environment: 'Airport / heliport environment',
};

/** Maximum altitude (height above ground) category. */
export const ALTITUDE_CATEGORIES = ['up_to_30m', 'up_to_120m', 'up_to_150m', 'above_150m'] as const;
export type AltitudeCategory = (typeof ALTITUDE_CATEGORIES)[number];
export const ALTITUDE_LABELS: Readonly<Record<AltitudeCategory, string>> = {
  up_to_30m: '≤ 30 m above ground',
  up_to_120m: '30 m to ≤ 120 m above ground',
  up_to_150m: '120 m to ≤ 150 m above ground (≈ 500 ft)',
  above_150m: '> 150 m above ground',
};

export const POPULATION_BAND_LABELS: Readonly<Record<PopulationBand, string>> = {
  controlled: 'Controlled ground area',
  '<5': '< 5 people/km²',
  '<50': '< 50 people/km²',
  '<500': '< 500 people/km²',
  '<5000': '< 5 000 people/km²',
  '<50000': '< 50 000 people/km²',
  '>50000': '> 50 000 people/km² (assemblies of people)',
};

export const RESIDUAL_ARC_LABELS: Readonly<Record<ResidualArc, string>> = { a: 'ARC-a', b: 'ARC-b', c: 'ARC-c', d: 'ARC-d' };

/** The operation descriptor of the indicator workflow (field names as in the JSON export). */
export interface InitialOperationInput {
  readonly mtom_category: MtomCategory;
  readonly visual_mode: VisualMode;
  readonly ground_environment: GroundEnvironment;
  readonly airspace_type: AirspaceType;
  readonly max_altitude_category: AltitudeCategory;
  /** Optional SORA inputs (enable the calculator). */
  readonly characteristic_dimension_m?: number;
  readonly max_speed_ms?: number;
  readonly population_band?: PopulationBand;
  /** Claimed ground-risk mitigations; a missing key means `none`. */
  readonly mitigations?: Partial<Record<MitigationKey, MitigationLevel>>;
  readonly residual_arc?: ResidualArc;
}

export const CATEGORICAL_FIELDS = ['mtom_category', 'visual_mode', 'ground_environment', 'airspace_type', 'max_altitude_category'] as const;
export type CategoricalField = (typeof CATEGORICAL_FIELDS)[number];
export const OPTIONAL_FIELDS = ['characteristic_dimension_m', 'max_speed_ms', 'population_band', 'mitigations', 'residual_arc'] as const;
export type OptionalField = (typeof OPTIONAL_FIELDS)[number];
export type OperationField = CategoricalField | OptionalField;
export const OPERATION_FIELDS: readonly OperationField[] = [...CATEGORICAL_FIELDS, ...OPTIONAL_FIELDS];

/** Form description of one field: label, kind and (for choices) the options. */
export interface FieldSpec {
  readonly field: OperationField;
  readonly label: string;
  readonly required: boolean;
  readonly kind: 'choice' | 'number' | 'mitigations';
  readonly unit?: string;
  readonly options?: readonly VocabularyOption<string>[];
  readonly help: string;
}

const options = <V extends string>(values: readonly V[], labels: Readonly<Record<V, string>>): VocabularyOption<V>[] =>
  values.map((value) => ({ value, label: labels[value] }));

/** Every field of the form, in display order. */
export const FIELD_SPECS: readonly FieldSpec[] = [
  {
    field: 'mtom_category',
    label: 'Maximum take-off mass',
    required: true,
    kind: 'choice',
    options: options(MTOM_CATEGORIES, MTOM_LABELS),
    help: 'Maximum take-off mass of the UA, payload included.',
  },
  {
    field: 'visual_mode',
    label: 'VLOS / BVLOS',
    required: true,
    kind: 'choice',
    options: options(VISUAL_MODES, VISUAL_MODE_LABELS),
    help: 'Whether the remote pilot keeps the UA in unaided visual line of sight.',
  },
  {
    field: 'ground_environment',
    label: 'Ground environment',
    required: true,
    kind: 'choice',
    options: options(GROUND_ENVIRONMENTS, GROUND_ENVIRONMENT_LABELS),
    help: 'What the operation overflies.',
  },
  {
    field: 'airspace_type',
    label: 'Airspace type',
    required: true,
    kind: 'choice',
    options: options(AIRSPACE_TYPES, AIRSPACE_TYPE_LABELS),
    help: 'Airspace of the operational volume.',
  },
  {
    field: 'max_altitude_category',
    label: 'Maximum altitude',
    required: true,
    kind: 'choice',
    options: options(ALTITUDE_CATEGORIES, ALTITUDE_LABELS),
    help: 'Maximum height above ground of the flight geography.',
  },
  {
    field: 'characteristic_dimension_m',
    label: 'Maximum characteristic dimension',
    required: false,
    kind: 'number',
    unit: 'm',
    help: 'Wingspan, blade diameter or maximum dimension (SORA Step #2), in metres or with its unit (120 cm, 4 ft).',
  },
  {
    field: 'max_speed_ms',
    label: 'Maximum speed',
    required: false,
    kind: 'number',
    unit: 'm/s',
    help: 'Maximum commanded airspeed (SORA Step #2), in m/s or with its unit (68 km/h, 37 kt).',
  },
  {
    field: 'population_band',
    label: 'Population density band',
    required: false,
    kind: 'choice',
    options: options(POPULATION_BANDS, POPULATION_BAND_LABELS),
    help: 'Highest population density in the iGRC footprint (SORA Table 1 rows).',
  },
  {
    field: 'mitigations',
    label: 'Claimed ground-risk mitigations',
    required: false,
    kind: 'mitigations',
    help: 'M1(A), M1(B), M1(C), M2 at low / medium / high robustness (SORA Step #3, Table 5).',
  },
  {
    field: 'residual_arc',
    label: 'Residual ARC',
    required: false,
    kind: 'choice',
    options: options(RESIDUAL_ARCS, RESIDUAL_ARC_LABELS),
    help: 'Residual air risk class after strategic mitigations (SORA Step #5).',
  },
];

export function fieldLabel(field: OperationField): string {
  return FIELD_SPECS.find((f) => f.field === field)?.label ?? field;
}

/** Label of a field's value as shown in prompts and summaries. */
export function valueLabel(field: OperationField, input: InitialOperationInput): string | null {
  const v = input[field];
  if (v === undefined) return null;
  switch (field) {
    case 'mtom_category':
      return MTOM_LABELS[input.mtom_category];
    case 'visual_mode':
      return VISUAL_MODE_LABELS[input.visual_mode];
    case 'ground_environment':
      return GROUND_ENVIRONMENT_LABELS[input.ground_environment];
    case 'airspace_type':
      return AIRSPACE_TYPE_LABELS[input.airspace_type];
    case 'max_altitude_category':
      return ALTITUDE_LABELS[input.max_altitude_category];
    case 'characteristic_dimension_m':
      return `${String(v)} m`;
    case 'max_speed_ms':
      return `${String(v)} m/s`;
    case 'population_band':
      return input.population_band ? POPULATION_BAND_LABELS[input.population_band] : null;
    case 'residual_arc':
      return input.residual_arc ? RESIDUAL_ARC_LABELS[input.residual_arc] : null;
    case 'mitigations': {
      const claimed = MITIGATION_KEYS.filter((k) => input.mitigations?.[k] && input.mitigations[k] !== 'none');
      return claimed.length ? claimed.map((k) => `${k.toUpperCase()} ${input.mitigations?.[k] ?? ''}`).join(', ') : 'none claimed';
    }
  }
}

export type InputValidation = { ok: true; value: InitialOperationInput } | { ok: false; errors: ValidationError[] };

const isBlank = (v: unknown) => v === undefined || v === null || (typeof v === 'string' && v.trim() === '');

/** Matches a raw value to a vocabulary: the value itself or its label, case-insensitive, trimmed. */
function matchChoice<V extends string>(raw: unknown, values: readonly V[], labels: Readonly<Record<V, string>>): V | null {
  if (typeof raw !== 'string') return null;
  const s = raw.trim().toLowerCase();
  return values.find((v) => v.toLowerCase() === s || labels[v].toLowerCase() === s) ?? null;
}

/** Upper bound (exclusive, kg) of each mass category, as its label prints it; null = no upper bound. */
const MTOM_UPPER_KG: Readonly<Record<MtomCategory, number | null>> = { below_250g: 0.25, below_900g: 0.9, below_4kg: 4, below_25kg: 25, '25kg_or_more': null };

/** A mass typed with its unit ("25 kg", "850 g", "3,5 kg") → its category; null when the text is not a mass. */
export function mtomCategoryOfMass(raw: unknown): MtomCategory | null {
  const q = readQuantity(raw, 'mass');
  if (!q.ok || q.unit === null) return null;
  return (
    MTOM_CATEGORIES.find((c) => {
      const upper = MTOM_UPPER_KG[c];
      return upper === null || q.value < upper;
    }) ?? null
  );
}

/** What a number field holds: its quantity, the unit the documents use, an example. */
const NUMBER_FIELDS: Readonly<
  Record<'characteristic_dimension_m' | 'max_speed_ms', { readonly dimension: Dimension; readonly unitWords: string; readonly example: string }>
> = {
  characteristic_dimension_m: { dimension: 'length', unitWords: 'metres', example: '1.2, 1.2 m or 120 cm' },
  max_speed_ms: { dimension: 'speed', unitWords: 'metres per second', example: '19, 19 m/s or 68 km/h' },
};

/** Conversions made while reading the number fields ("108 km/h = 30 m/s"), by field, for the form to show. */
export function numberConversions(raw: Readonly<Record<string, unknown>>): Partial<Record<OperationField, string>> {
  const out: Partial<Record<OperationField, string>> = {};
  for (const [field, spec] of Object.entries(NUMBER_FIELDS) as [keyof typeof NUMBER_FIELDS, (typeof NUMBER_FIELDS)[keyof typeof NUMBER_FIELDS]][]) {
    const q = isBlank(raw[field]) ? null : readQuantity(raw[field], spec.dimension);
    if (q?.ok && q.conversion) out[field] = q.conversion;
  }
  return out;
}

/**
 * Validates a raw operation descriptor (form values, JSON). Errors name the field, what was given
 * and the allowed values. Unknown fields are rejected; blank optional fields are treated as absent.
 */
export function validateOperationInput(raw: unknown): InputValidation {
  const read = readOperationFields(raw);
  if (read.errors.length > 0 || !read.complete) return { ok: false, errors: [...read.errors] };
  return { ok: true, value: read.values as InitialOperationInput };
}

/** Every field read on its own: the values that are valid, and the errors of the others. */
export interface OperationFieldsReading {
  readonly values: Partial<InitialOperationInput>;
  readonly errors: readonly ValidationError[];
  /** True when every required field has a valid value. */
  readonly complete: boolean;
}

/** Reads each field of a raw operation descriptor independently (a form half filled in still tells what it holds). */
export function readOperationFields(raw: unknown): OperationFieldsReading {
  if (typeof raw !== 'object' || raw === null || Array.isArray(raw)) {
    return {
      values: {},
      complete: false,
      errors: [
        { field: '(operation)', got: raw, allowed: [...OPERATION_FIELDS], message: 'The operation must be an object with the fields listed in "allowed".' },
      ],
    };
  }
  const r = raw as Record<string, unknown>;
  const errors: ValidationError[] = [];
  for (const key of Object.keys(r)) {
    if (!(OPERATION_FIELDS as readonly string[]).includes(key)) {
      errors.push({
        field: key,
        got: r[key],
        allowed: [...OPERATION_FIELDS],
        message: `Unknown field "${key}"; the operation fields are ${OPERATION_FIELDS.join(', ')}.`,
      });
    }
  }
  const choice = <V extends string>(field: CategoricalField, values: readonly V[], labels: Readonly<Record<V, string>>): V | null => {
    const got = r[field];
    const m = matchChoice(got, values, labels) ?? (field === 'mtom_category' ? (mtomCategoryOfMass(got) as V | null) : null);
    if (m === null) {
      const options = values.map((v) => labels[v]).join(' · ');
      errors.push({
        field,
        got,
        allowed: [...values],
        message: isBlank(got)
          ? `${fieldLabel(field)} is required: choose one of ${options}.`
          : `${fieldLabel(field)}: "${String(got)}" is not one of the choices (${options}).`,
      });
    }
    return m;
  };
  const mtom = choice('mtom_category', MTOM_CATEGORIES, MTOM_LABELS);
  const visual = choice('visual_mode', VISUAL_MODES, VISUAL_MODE_LABELS);
  const ground = choice('ground_environment', GROUND_ENVIRONMENTS, GROUND_ENVIRONMENT_LABELS);
  const airspace = choice('airspace_type', AIRSPACE_TYPES, AIRSPACE_TYPE_LABELS);
  const altitude = choice('max_altitude_category', ALTITUDE_CATEGORIES, ALTITUDE_LABELS);

  const optional: {
    characteristic_dimension_m?: number;
    max_speed_ms?: number;
    population_band?: PopulationBand;
    mitigations?: Partial<Record<MitigationKey, MitigationLevel>>;
    residual_arc?: ResidualArc;
  } = {};
  /** The same error, its message in the form's words (label, unit, an example), never a field code. */
  const worded = (e: ValidationError, message: string): ValidationError => ({ ...e, message });
  for (const field of ['characteristic_dimension_m', 'max_speed_ms'] as const) {
    if (isBlank(r[field])) continue;
    const spec = NUMBER_FIELDS[field];
    const q = readQuantity(r[field], spec.dimension);
    if (q.ok) optional[field] = q.value;
    else {
      const message =
        q.reason === 'not-a-number' || q.reason === 'not-positive'
          ? `${fieldLabel(field)} must be a number greater than 0, in ${spec.unitWords} (for example ${spec.example}); "${String(r[field])}" is not.`
          : `${fieldLabel(field)}: ${q.message}`;
      errors.push({ field, got: r[field], allowed: [`a number > 0 (${spec.unitWords})`], message });
    }
  }
  if (!isBlank(r.population_band)) {
    const raw = r.population_band;
    const byLabel = matchChoice(raw, POPULATION_BANDS, POPULATION_BAND_LABELS);
    const p = byLabel ? ({ ok: true, value: byLabel } as const) : parsePopulationBand(raw, 'population_band');
    if (p.ok) optional.population_band = p.value;
    else
      errors.push(
        worded(
          p.error,
          `${fieldLabel('population_band')}: "${String(raw)}" is not one of the choices (${POPULATION_BANDS.map((b) => POPULATION_BAND_LABELS[b]).join(' · ')}).`,
        ),
      );
  }
  if (!isBlank(r.residual_arc)) {
    const p = parseResidualArc(r.residual_arc, 'residual_arc');
    if (p.ok) optional.residual_arc = p.value;
    else errors.push(worded(p.error, `${fieldLabel('residual_arc')}: "${String(r.residual_arc)}" is not one of ARC-a, ARC-b, ARC-c, ARC-d.`));
  }
  if (!isBlank(r.mitigations)) {
    const v = validateMitigations(r.mitigations as MitigationClaims);
    if ('errors' in v) errors.push(...v.errors.map((e) => worded(e, mitigationMessage(e))));
    else {
      const claimed = Object.fromEntries(Object.entries(v.levels).filter(([, level]) => level !== 'none')) as Partial<Record<MitigationKey, MitigationLevel>>;
      if (Object.keys(claimed).length > 0) optional.mitigations = claimed;
    }
  }
  const values: Partial<InitialOperationInput> = {
    ...(mtom ? { mtom_category: mtom } : {}),
    ...(visual ? { visual_mode: visual } : {}),
    ...(ground ? { ground_environment: ground } : {}),
    ...(airspace ? { airspace_type: airspace } : {}),
    ...(altitude ? { max_altitude_category: altitude } : {}),
    ...optional,
  };
  return { values, errors, complete: Boolean(mtom && visual && ground && airspace && altitude) };
}

/** A mitigation error in the form's words: the Table 5 row label and the levels it allows. */
function mitigationMessage(e: ValidationError): string {
  const key = e.field.replace(/^mitigations\./, '') as MitigationKey;
  const row = GRC_MITIGATIONS_TABLE.rows.find((r) => r.key === key);
  if (!row) return e.message.replace(/^mitigations must be an object\.$/, 'The claimed mitigations could not be read; choose a level for each mitigation.');
  if (e.notApplicable) return e.message.replace(/; allowed: .*$/, `; choose one of ${e.allowed.join(', ')}.`);
  return `${row.label}: "${String(e.got)}" is not a level Table 5 allows; choose one of ${e.allowed.join(', ')}.`;
}

/** Error flow E1: the operation descriptor was rejected. The message names the fields by their labels and says what to choose. */
export class OperationInputError extends SkyCiteError {
  override name = 'OperationInputError';
  override readonly code = 'operation-input';
  constructor(readonly errors: readonly ValidationError[]) {
    super(`The operation could not be assessed: ${errors.map((e) => e.message).join(' ')} Correct the fields marked in the form and run again.`);
  }
}
