/**
 * Cross-indicator coherence checks (SKYSAFE §4.2: "validation checks for cross indicator
 * coherence"). Indicators are produced independently, possibly under different implicit
 * assumptions; these checks flag combinations that contradict each other or the inputs. They never
 * change a value: the assessor decides.
 */
import { formatIndicatorValue, type IndicatorName, type IndicatorValue } from './catalog.js';
import { compareGroundAndBand } from './ground.js';
import type { InitialOperationInput, OperationField } from './inputs.js';

/** contradiction and warning: the inputs or indicators contradict each other; note: the documents differ on a reading the inputs rely on. */
export type CoherenceSeverity = 'contradiction' | 'warning' | 'note';

/** How a check's severity is shown to a reader. */
export const SEVERITY_LABELS: Readonly<Record<CoherenceSeverity, string>> = {
  contradiction: 'Contradiction',
  warning: 'Check this',
  note: 'The documents differ',
};

export interface CoherenceFlag {
  /** Stable id of the check, e.g. "open-vs-full-sora". */
  readonly id: string;
  readonly severity: CoherenceSeverity;
  readonly indicators: readonly IndicatorName[];
  readonly fields: readonly OperationField[];
  readonly message: string;
}

type Values = Partial<Record<IndicatorName, IndicatorValue | null>>;

/** A value as the cards print it, lower-cased inside a sentence ("very low", "specific — SORA"), never its key ("very_low"). */
const shown = (name: IndicatorName, value: IndicatorValue | null | undefined): string => {
  const label = formatIndicatorValue(name, value ?? null);
  return name === 'sail' ? label : label.charAt(0).toLowerCase() + label.slice(1);
};

interface Check {
  readonly id: string;
  readonly severity: CoherenceSeverity;
  readonly indicators: readonly IndicatorName[];
  readonly fields: readonly OperationField[];
  readonly test: (v: Values, input: InitialOperationInput) => boolean;
  readonly message: (v: Values, input: InitialOperationInput) => string;
}

const ORIENTATION_RANK: Readonly<Record<string, number>> = { very_low: 0, low: 1, medium: 2, high: 3 };
const ARC_RANK: Readonly<Record<string, number>> = { a: 0, b: 1, c: 2, d: 3 };
const SAIL_RANK: Readonly<Record<string, number>> = { I: 1, II: 2, III: 3, IV: 4, V: 5, VI: 6 };
const num = (x: IndicatorValue | null | undefined): number | null => (typeof x === 'number' ? x : null);

/** The checks, as data. */
export const COHERENCE_CHECKS: readonly Check[] = [
  {
    id: 'open-vs-full-sora',
    severity: 'contradiction',
    indicators: ['likely_regulatory_pathway', 'expected_assessment_depth'],
    fields: [],
    test: (v) => v.likely_regulatory_pathway === 'open' && v.expected_assessment_depth === 'full_sora',
    message: () => 'Pathway “open” with assessment depth “full SORA”: the SORA is the risk assessment of the ‘specific’ category, not of the ‘open’ category.',
  },
  {
    id: 'open-vs-structured-assessment',
    severity: 'warning',
    indicators: ['likely_regulatory_pathway', 'expected_assessment_depth'],
    fields: [],
    test: (v) => v.likely_regulatory_pathway === 'open' && v.expected_assessment_depth === 'structured_assessment',
    message: () =>
      'Pathway “open” with a “structured assessment” depth: the ‘open’ category involves no operational risk assessment; check which of the two is right.',
  },
  {
    id: 'sora-vs-simple-declaration',
    severity: 'contradiction',
    indicators: ['likely_regulatory_pathway', 'expected_assessment_depth'],
    fields: [],
    test: (v) =>
      (v.likely_regulatory_pathway === 'specific_sora' || v.likely_regulatory_pathway === 'certified') && v.expected_assessment_depth === 'simple_declaration',
    message: (v) =>
      `Pathway “${shown('likely_regulatory_pathway', v.likely_regulatory_pathway)}” with depth “simple declaration”: a full SORA or the ‘certified’ category is not satisfied by a simple declaration.`,
  },
  {
    id: 'sts-vs-full-sora',
    severity: 'warning',
    indicators: ['likely_regulatory_pathway', 'expected_assessment_depth'],
    fields: [],
    test: (v) => v.likely_regulatory_pathway === 'specific_sts' && v.expected_assessment_depth === 'full_sora',
    message: () =>
      'Pathway “specific — standard scenario (STS)” with depth “full SORA”: a standard scenario is operated under a declaration, without a full SORA.',
  },
  {
    id: 'sail-vs-simple-declaration',
    severity: 'contradiction',
    indicators: ['sail', 'expected_assessment_depth'],
    fields: [],
    test: (v) => typeof v.sail === 'string' && (SAIL_RANK[v.sail] ?? 0) >= 3 && v.expected_assessment_depth === 'simple_declaration',
    message: (v) =>
      `SAIL ${String(v.sail)} (computed from the tables) with depth “simple declaration”: SAIL III and above carry OSOs at medium or high robustness, which a simple declaration does not cover.`,
  },
  {
    id: 'sail-vs-open',
    severity: 'warning',
    indicators: ['sail', 'likely_regulatory_pathway'],
    fields: [],
    test: (v) => typeof v.sail === 'string' && (SAIL_RANK[v.sail] ?? 0) >= 3 && v.likely_regulatory_pathway === 'open',
    message: (v) =>
      `SAIL ${String(v.sail)} computed for an operation oriented to the ‘open’ category: an operation needing SAIL III or above is unlikely to fit the ‘open’ category.`,
  },
  {
    id: 'outside-sora-vs-pathway',
    severity: 'contradiction',
    indicators: ['final_grc', 'likely_regulatory_pathway'],
    fields: [],
    test: (v) =>
      (num(v.final_grc) ?? 0) > 7 &&
      v.likely_regulatory_pathway !== undefined &&
      v.likely_regulatory_pathway !== null &&
      v.likely_regulatory_pathway !== 'certified',
    message: (v) =>
      `Final GRC ${String(v.final_grc)} is greater than 7 (outside the SORA, ‘certified’ category to be considered) but the pathway is “${shown('likely_regulatory_pathway', v.likely_regulatory_pathway)}”.`,
  },
  {
    id: 'igrc-high-vs-ground-low',
    severity: 'contradiction',
    indicators: ['igrc', 'initial_ground_risk_orientation'],
    fields: [],
    test: (v) => (num(v.igrc) ?? 0) >= 7 && (v.initial_ground_risk_orientation === 'very_low' || v.initial_ground_risk_orientation === 'low'),
    message: (v) =>
      `iGRC ${String(v.igrc)} (computed from Table 1) with a “${shown('initial_ground_risk_orientation', v.initial_ground_risk_orientation)}” ground risk orientation.`,
  },
  {
    id: 'igrc-low-vs-ground-high',
    severity: 'contradiction',
    indicators: ['igrc', 'initial_ground_risk_orientation'],
    fields: [],
    test: (v) => (num(v.igrc) ?? 99) <= 2 && (v.initial_ground_risk_orientation === 'high' || v.initial_ground_risk_orientation === 'medium'),
    message: (v) =>
      `iGRC ${String(v.igrc)} (computed from Table 1) with a “${shown('initial_ground_risk_orientation', v.initial_ground_risk_orientation)}” ground risk orientation.`,
  },
  {
    id: 'assemblies-vs-ground-very-low',
    severity: 'contradiction',
    indicators: ['initial_ground_risk_orientation'],
    fields: ['ground_environment'],
    test: (v, i) =>
      i.ground_environment === 'assembly_of_people' && (v.initial_ground_risk_orientation === 'very_low' || v.initial_ground_risk_orientation === 'low'),
    message: (v) =>
      `Operation over assemblies of people with a “${shown('initial_ground_risk_orientation', v.initial_ground_risk_orientation)}” ground risk orientation.`,
  },
  {
    id: 'controlled-ground-vs-ground-high',
    severity: 'warning',
    indicators: ['initial_ground_risk_orientation'],
    fields: ['ground_environment'],
    test: (v, i) => i.ground_environment === 'controlled_ground_area' && v.initial_ground_risk_orientation === 'high',
    message: () => 'Controlled ground area with a "high" ground risk orientation: Table 1 gives the lowest iGRC of each column to controlled ground areas.',
  },
  {
    id: 'bvlos-controlled-airspace-vs-air-very-low',
    severity: 'contradiction',
    indicators: ['initial_air_risk_orientation'],
    fields: ['visual_mode', 'airspace_type'],
    test: (v, i) =>
      i.visual_mode === 'BVLOS' &&
      (i.airspace_type === 'controlled' || i.airspace_type === 'airport_environment') &&
      v.initial_air_risk_orientation === 'very_low',
    message: (_v, i) =>
      `BVLOS in ${i.airspace_type === 'controlled' ? 'controlled airspace' : 'an airport/heliport environment'} with a very low air risk orientation: only atypical (e.g. segregated) airspace leads to ARC-a (S.4.4.4).`,
  },
  {
    id: 'airport-vs-air-low',
    severity: 'warning',
    indicators: ['initial_air_risk_orientation'],
    fields: ['airspace_type'],
    test: (v, i) => i.airspace_type === 'airport_environment' && (v.initial_air_risk_orientation === 'very_low' || v.initial_air_risk_orientation === 'low'),
    message: (v) => `Airport/heliport environment with a “${shown('initial_air_risk_orientation', v.initial_air_risk_orientation)}” air risk orientation.`,
  },
  {
    id: 'atypical-vs-air-high',
    severity: 'warning',
    indicators: ['initial_air_risk_orientation'],
    fields: ['airspace_type'],
    test: (v, i) => i.airspace_type === 'atypical_segregated' && (v.initial_air_risk_orientation === 'high' || v.initial_air_risk_orientation === 'medium'),
    message: (v) =>
      `Atypical or segregated airspace (ARC-a, S.4.4.4) with a “${shown('initial_air_risk_orientation', v.initial_air_risk_orientation)}” air risk orientation.`,
  },
  {
    id: 'residual-arc-above-initial',
    severity: 'contradiction',
    indicators: ['initial_air_risk_orientation'],
    fields: ['residual_arc'],
    test: (v, i) =>
      i.residual_arc !== undefined &&
      typeof v.initial_air_risk_orientation === 'string' &&
      v.initial_air_risk_orientation in ORIENTATION_RANK &&
      (ARC_RANK[i.residual_arc] ?? 0) > (ORIENTATION_RANK[v.initial_air_risk_orientation] ?? 0),
    message: (v, i) =>
      `Residual ARC-${String(i.residual_arc)} is higher than a “${shown('initial_air_risk_orientation', v.initial_air_risk_orientation)}” initial air risk orientation: strategic mitigations (Step #5) can only lower the initial ARC.`,
  },
  {
    id: 'open-vs-bvlos',
    severity: 'contradiction',
    indicators: ['likely_regulatory_pathway'],
    fields: ['visual_mode'],
    test: (v, i) => v.likely_regulatory_pathway === 'open' && i.visual_mode === 'BVLOS',
    message: () =>
      'Pathway "open" for a BVLOS operation: the ‘open’ category is limited to VLOS operations (Regulation (EU) 2019/947, Article 4 — not part of the text corpus).',
  },
  {
    id: 'open-vs-mass',
    severity: 'contradiction',
    indicators: ['likely_regulatory_pathway'],
    fields: ['mtom_category'],
    test: (v, i) => v.likely_regulatory_pathway === 'open' && i.mtom_category === '25kg_or_more',
    message: () =>
      'Pathway "open" for a UA of 25 kg or more: the ‘open’ category is limited to UA below 25 kg (Regulation (EU) 2019/947, Article 4 — not part of the text corpus).',
  },
  {
    id: 'open-vs-altitude',
    severity: 'contradiction',
    indicators: ['likely_regulatory_pathway'],
    fields: ['max_altitude_category'],
    test: (v, i) => v.likely_regulatory_pathway === 'open' && (i.max_altitude_category === 'up_to_150m' || i.max_altitude_category === 'above_150m'),
    message: () =>
      'Pathway "open" above 120 m: the ‘open’ category is limited to 120 m from the closest point of the surface (Regulation (EU) 2019/947, Article 4 — not part of the text corpus).',
  },
  {
    id: 'open-vs-assemblies',
    severity: 'contradiction',
    indicators: ['likely_regulatory_pathway'],
    fields: ['ground_environment'],
    test: (v, i) => v.likely_regulatory_pathway === 'open' && i.ground_environment === 'assembly_of_people',
    message: () =>
      'Pathway "open" over assemblies of people: ‘open’ category operations do not fly over assemblies of people (Regulation (EU) 2019/947, Article 4 — not part of the text corpus).',
  },
  {
    id: 'ground-environment-vs-population-band',
    severity: 'warning',
    indicators: [],
    fields: ['ground_environment', 'population_band'],
    test: (_v, i) => i.population_band !== undefined && compareGroundAndBand(i.ground_environment, i.population_band).kind === 'disagree',
    message: (_v, i) => compareGroundAndBand(i.ground_environment, i.population_band!).message ?? '',
  },
  {
    id: 'ground-documents-differ',
    severity: 'note',
    indicators: [],
    fields: ['ground_environment', 'population_band'],
    test: (_v, i) => i.population_band !== undefined && compareGroundAndBand(i.ground_environment, i.population_band).kind === 'documents-differ',
    message: (_v, i) => compareGroundAndBand(i.ground_environment, i.population_band!).message ?? '',
  },
];

/** Runs every check on the indicator values (null/absent values never trigger a check). */
export function checkCoherence(values: Values, input: InitialOperationInput): CoherenceFlag[] {
  return COHERENCE_CHECKS.filter((c) => c.indicators.every((n) => values[n] !== undefined && values[n] !== null) && c.test(values, input)).map((c) => ({
    id: c.id,
    severity: c.severity,
    indicators: c.indicators,
    fields: c.fields,
    message: c.message(values, input),
  }));
}
