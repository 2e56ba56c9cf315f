/**
 * The indicator catalogue (SKYSAFE A.3.5): for each indicator its allowed values, the base terms of
 * its retrieval query, the discriminator terms contributed by each input category, the guidance
 * and instruction lines of its prompt, and the input fields it is allowed to see (only the relevant
 * fields go into the prompt, SKYSAFE §2.8).
 *
 * Two kinds of indicator:
 *  - `model`: a coarse orientation the model may propose from the retrieved context (majority vote);
 *  - `calculated`: read from the corpus tables by the calculator. A model never computes these; it
 *    may only explain the computed value.
 */
import { SAIL_LEVELS } from '../sora/tables/sail-table.js';
import type { CategoricalField, InitialOperationInput, OperationField, OptionalField } from './inputs.js';

export const MODEL_INDICATORS = [
  'likely_regulatory_pathway',
  'initial_ground_risk_orientation',
  'initial_air_risk_orientation',
  'expected_assessment_depth',
] as const;
export const CALCULATED_INDICATORS = ['igrc', 'final_grc', 'sail'] as const;
export const INDICATOR_NAMES = [...MODEL_INDICATORS, ...CALCULATED_INDICATORS] as const;
export type ModelIndicatorName = (typeof MODEL_INDICATORS)[number];
export type CalculatedIndicatorName = (typeof CALCULATED_INDICATORS)[number];
export type IndicatorName = (typeof INDICATOR_NAMES)[number];
export type IndicatorValue = string | number;

/** Value a model may return when the context does not allow a determination. */
export const UNDETERMINED = 'undetermined' as const;

export const PATHWAYS = ['open', 'specific_sts', 'specific_pdra', 'specific_sora', 'certified'] as const;
export type Pathway = (typeof PATHWAYS)[number];
export const ORIENTATIONS = ['very_low', 'low', 'medium', 'high'] as const;
export type Orientation = (typeof ORIENTATIONS)[number];
export const DEPTHS = ['simple_declaration', 'structured_assessment', 'full_sora'] as const;
export type Depth = (typeof DEPTHS)[number];
/** iGRC values printed in Table 1, and final GRC values reachable from them. */
export const GRC_VALUES = [1, 2, 3, 4, 5, 6, 7, 8, 9, 10] as const;

/** A retrieval hint: extra terms when every listed field has one of the listed values. */
export interface QueryHint {
  readonly when: Partial<{ readonly [F in CategoricalField]: readonly InitialOperationInput[F][] }>;
  readonly terms: readonly string[];
}

export interface IndicatorSpec {
  readonly name: IndicatorName;
  readonly label: string;
  readonly goal: string;
  readonly kind: 'model' | 'calculated';
  /**
   * Allowed values, ordered from the least to the most demanding (used to break vote ties
   * conservatively). Model indicators also accept {@link UNDETERMINED}.
   */
  readonly values: readonly IndicatorValue[];
  readonly valueLabels: Readonly<Record<string, string>>;
  readonly baseTerms: readonly string[];
  readonly hints: readonly QueryHint[];
  /** The value guidance line(s) of the request message. */
  readonly guidance: readonly string[];
  /** Indicator-specific instruction lines of the request message. */
  readonly instructions: readonly string[];
  /** Input fields the prompt and the query may use. */
  readonly fields: readonly OperationField[];
  /** Optional inputs that would allow (calculated) or strengthen (model) a value. */
  readonly helpfulInputs: readonly OptionalField[];
}

/**
 * Discriminator terms per input category, shared by all indicators (each indicator only uses the
 * fields it sees). Vocabulary chosen to match the corpus wording (SORA 2.5 AMC, PDRA/STS chunks).
 */
export const DISCRIMINATORS: { readonly [F in CategoricalField]: Readonly<Record<InitialOperationInput[F], readonly string[]>> } = {
  mtom_category: {
    below_250g: ['take-off mass less than 250 g'],
    below_900g: ['maximum take-off mass'],
    below_4kg: ['maximum take-off mass'],
    below_25kg: ['maximum take-off mass less than 25 kg'],
    '25kg_or_more': ['take-off mass higher than 25 kg'],
  },
  visual_mode: {
    VLOS: ['VLOS', 'visual line of sight'],
    BVLOS: ['BVLOS', 'beyond visual line of sight', 'airspace observers'],
  },
  ground_environment: {
    controlled_ground_area: ['controlled ground area'],
    sparsely_populated: ['sparsely populated area'],
    populated: ['populated area', 'population density'],
    assembly_of_people: ['assemblies of people'],
  },
  airspace_type: {
    atypical_segregated: ['atypical airspace', 'segregated airspace', 'ARC-a'],
    uncontrolled: ['uncontrolled airspace', 'ARC-b'],
    controlled: ['controlled airspace', 'ARC-c', 'ANSP'],
    airport_environment: ['airport heliport environment', 'ARC-d'],
  },
  max_altitude_category: {
    up_to_30m: ['very low altitude', '30 m height limit'],
    up_to_120m: ['120 m above ground'],
    up_to_150m: ['150 m above ground', '500 ft'],
    above_150m: ['above 150 m', '500 ft AGL'],
  },
};

const ORIENTATION_LABELS = { very_low: 'very low', low: 'low', medium: 'medium', high: 'high', [UNDETERMINED]: 'undetermined' };

export const INDICATOR_CATALOG: Readonly<Record<IndicatorName, IndicatorSpec>> = {
  likely_regulatory_pathway: {
    name: 'likely_regulatory_pathway',
    label: 'Likely regulatory pathway',
    goal: 'Provide a short pathway orientation.',
    kind: 'model',
    values: PATHWAYS,
    valueLabels: {
      open: 'Open',
      specific_sts: 'Specific — standard scenario (STS)',
      specific_pdra: 'Specific — PDRA',
      specific_sora: 'Specific — SORA',
      certified: 'Certified',
      [UNDETERMINED]: 'undetermined',
    },
    baseTerms: [
      'open category',
      'specific category',
      'certified category',
      'standard scenario STS',
      'predefined risk assessment PDRA',
      'before starting the SORA process',
    ],
    hints: [
      { when: { visual_mode: ['VLOS'], ground_environment: ['controlled_ground_area'] }, terms: ['PDRA-S01', 'STS-01'] },
      { when: { visual_mode: ['BVLOS'], ground_environment: ['controlled_ground_area'] }, terms: ['PDRA-S02', 'STS-02'] },
      { when: { visual_mode: ['BVLOS'], ground_environment: ['sparsely_populated'] }, terms: ['PDRA-G01', 'PDRA-G02'] },
      { when: { visual_mode: ['BVLOS'], ground_environment: ['sparsely_populated'], max_altitude_category: ['up_to_30m'] }, terms: ['PDRA-G03'] },
      { when: { ground_environment: ['assembly_of_people'] }, terms: ['certified category', 'Not part of SORA'] },
    ],
    guidance: [`Allowed values: ${[...PATHWAYS, UNDETERMINED].join(', ')}.`],
    instructions: [
      'Consider, in this order, whether the context indicates the open category, a standard scenario (STS), a predefined risk assessment (PDRA) or a full SORA.',
      'Name the PDRA or STS and the scope condition from the context that the inputs meet or fail.',
      'If the inputs sit on a boundary between two pathways, give the more demanding one and state the condition that would change it.',
    ],
    fields: ['mtom_category', 'visual_mode', 'ground_environment', 'airspace_type', 'max_altitude_category', 'characteristic_dimension_m'],
    helpfulInputs: ['characteristic_dimension_m'],
  },
  initial_ground_risk_orientation: {
    name: 'initial_ground_risk_orientation',
    label: 'Initial ground risk orientation',
    goal: 'Provide a coarse ground risk orientation.',
    kind: 'model',
    values: ORIENTATIONS,
    valueLabels: ORIENTATION_LABELS,
    baseTerms: ['intrinsic ground risk class', 'iGRC', 'ground risk', 'maximum characteristic dimension', 'population density'],
    hints: [],
    guidance: [`Allowed values: ${[...ORIENTATIONS, UNDETERMINED].join(', ')}.`],
    instructions: [
      'Base the orientation on the intrinsic ground risk (before mitigations) described in the context.',
      'Say which population density and UA size elements of the context drive the orientation.',
    ],
    fields: ['mtom_category', 'ground_environment', 'characteristic_dimension_m', 'max_speed_ms', 'population_band'],
    helpfulInputs: ['characteristic_dimension_m', 'max_speed_ms', 'population_band'],
  },
  initial_air_risk_orientation: {
    name: 'initial_air_risk_orientation',
    label: 'Initial air risk orientation',
    goal: 'Provide a coarse air risk orientation.',
    kind: 'model',
    values: ORIENTATIONS,
    valueLabels: ORIENTATION_LABELS,
    baseTerms: ['initial air risk class', 'ARC', 'airspace encounter category', 'air risk'],
    hints: [],
    guidance: [`Allowed values: ${[...ORIENTATIONS, UNDETERMINED].join(', ')}.`],
    instructions: [
      'Base the orientation on the initial air risk class (before strategic mitigations) that the context associates with the airspace and altitude.',
      'Say which airspace elements of the context drive the orientation.',
    ],
    fields: ['visual_mode', 'ground_environment', 'airspace_type', 'max_altitude_category'],
    helpfulInputs: [],
  },
  expected_assessment_depth: {
    name: 'expected_assessment_depth',
    label: 'Expected assessment depth',
    goal: 'Provide an orientation on how deep the assessment is expected to be.',
    kind: 'model',
    values: DEPTHS,
    valueLabels: {
      simple_declaration: 'Simple declaration',
      structured_assessment: 'Structured assessment',
      full_sora: 'Full SORA',
      [UNDETERMINED]: 'undetermined',
    },
    baseTerms: ['declaration', 'operational authorisation', 'SORA process', 'operational risk assessment', 'standard scenario', 'PDRA'],
    hints: [
      { when: { visual_mode: ['BVLOS'] }, terms: ['BVLOS operational authorisation'] },
      { when: { ground_environment: ['populated', 'assembly_of_people'] }, terms: ['SAIL', 'operational safety objectives'] },
    ],
    guidance: [`Allowed values: ${[...DEPTHS, UNDETERMINED].join(', ')}.`],
    instructions: [
      'simple_declaration: a declaration against predefined conditions; structured_assessment: a predefined risk assessment or limited assessment; full_sora: the complete SORA process.',
      'State the condition from the context that decides between the levels.',
    ],
    fields: ['mtom_category', 'visual_mode', 'ground_environment', 'airspace_type', 'max_altitude_category'],
    helpfulInputs: [],
  },
  igrc: {
    name: 'igrc',
    label: 'Intrinsic GRC (iGRC)',
    goal: 'Explain the intrinsic ground risk class computed from Table 1.',
    kind: 'calculated',
    values: GRC_VALUES,
    valueLabels: {},
    baseTerms: ['Table 1 intrinsic ground risk class determination', 'iGRC', 'maximum characteristic dimension', 'maximum speed', 'population density'],
    hints: [],
    guidance: [`Allowed values: ${GRC_VALUES.join(', ')} (integers).`],
    instructions: ['The value was computed from the table; explain it, do not recompute or change it.'],
    fields: ['characteristic_dimension_m', 'max_speed_ms', 'population_band', 'mtom_category'],
    helpfulInputs: ['characteristic_dimension_m', 'max_speed_ms', 'population_band'],
  },
  final_grc: {
    name: 'final_grc',
    label: 'Final GRC',
    goal: 'Explain the final ground risk class computed from the iGRC and Table 5.',
    kind: 'calculated',
    values: GRC_VALUES,
    valueLabels: {},
    baseTerms: [
      'final GRC determination',
      'Table 5 mitigations',
      'M1(A) sheltering',
      'M1(B) operational restrictions',
      'M1(C) ground observation',
      'M2 effects of ground impact',
    ],
    hints: [],
    guidance: [`Allowed values: ${GRC_VALUES.join(', ')} (integers).`],
    instructions: ['The value was computed from the tables; explain it, do not recompute or change it.'],
    fields: ['characteristic_dimension_m', 'max_speed_ms', 'population_band', 'mitigations'],
    helpfulInputs: ['characteristic_dimension_m', 'max_speed_ms', 'population_band', 'mitigations'],
  },
  sail: {
    name: 'sail',
    label: 'SAIL',
    goal: 'Explain the SAIL read from the SAIL table for the final GRC and residual ARC.',
    kind: 'calculated',
    values: SAIL_LEVELS,
    valueLabels: {},
    baseTerms: ['SAIL determination', 'final GRC', 'residual ARC', 'specific assurance and integrity level'],
    hints: [],
    guidance: [`Allowed values: ${SAIL_LEVELS.join(', ')}.`],
    instructions: ['The value was read from the table; explain it, do not recompute or change it.'],
    fields: ['characteristic_dimension_m', 'max_speed_ms', 'population_band', 'mitigations', 'residual_arc'],
    helpfulInputs: ['characteristic_dimension_m', 'max_speed_ms', 'population_band', 'residual_arc'],
  },
};

/** Values a model may return for an indicator (model indicators also allow `undetermined`). */
export function allowedModelValues(spec: IndicatorSpec): readonly IndicatorValue[] {
  return spec.kind === 'model' ? [...spec.values, UNDETERMINED] : spec.values;
}

/** Human label of a value ("specific_pdra" → "Specific — PDRA"); numbers and SAIL as is. */
export function formatIndicatorValue(name: IndicatorName, value: IndicatorValue | null): string {
  if (value === null) return 'no value';
  const spec = INDICATOR_CATALOG[name];
  return spec.valueLabels[String(value)] ?? (name === 'sail' ? `SAIL ${String(value)}` : String(value));
}
