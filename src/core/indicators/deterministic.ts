/**
 * What can be derived without a language model: the calculator (iGRC, final GRC, SAIL read from
 * the corpus tables, with their cells) and a few rules printed in the corpus. Everything else has
 * no value — never a guess — and says which inputs or which step would allow one.
 *
 * Orientation conventions (SkyCite's, not the regulation's — the four orientation levels are the
 * SKYSAFE paper's coarse scale): iGRC ≤ 2 → very_low, 3–4 → low, 5–6 → medium, ≥ 7 or
 * "Not part of SORA" → high; ARC-a → very_low, ARC-b → low, ARC-c → medium, ARC-d → high.
 */
import { runSoraChain, type ChainInputName } from '../sora/chain.js';
import type { FinalGrcValue } from '../sora/final-grc.js';
import type { IgrcValue } from '../sora/igrc.js';
import type { SailValue } from '../sora/sail.js';
import { IGRC_TABLE } from '../sora/tables/igrc-table.js';
import { EASA_DOC_ID, formatTraceStep, type AssessResult, type TraceStep } from '../sora/types.js';
import { INDICATOR_CATALOG, type IndicatorName, type IndicatorValue, type Orientation } from './catalog.js';
import { readGround, type GroundReading } from './ground.js';
import { fieldLabel, type InitialOperationInput, type OptionalField } from './inputs.js';

/** Calculator results for the operation; null when the inputs needed for a step are missing. */
export interface CalculatorOutcome {
  readonly igrc: AssessResult<IgrcValue> | null;
  readonly finalGrc: AssessResult<FinalGrcValue> | null;
  readonly sail: AssessResult<SailValue> | null;
  /** Inputs each step still needs. */
  readonly missing: Readonly<Record<'igrc' | 'final_grc' | 'sail', readonly OptionalField[]>>;
  /** Why a computed value sits on a boundary (conditional framing). */
  readonly borderline: readonly string[];
  readonly notes: readonly string[];
  /**
   * When no population density band was given: how the ground environment was read with Table 2
   * (the band used, or why none follows). Null when the band was given.
   */
  readonly ground: GroundReading | null;
}

/** Take-off mass passed to the calculator for the "< 250 g" category: its upper bound. */
const BELOW_250G_BOUND_G = 250;

const CHAIN_FIELD: Readonly<Record<ChainInputName, OptionalField>> = {
  dimension: 'characteristic_dimension_m',
  speed: 'max_speed_ms',
  population: 'population_band',
  residual_arc: 'residual_arc',
};

/** Runs iGRC → final GRC → SAIL as far as the inputs allow (the chain of `chain.ts`). */
export function runCalculator(input: InitialOperationInput): CalculatorOutcome {
  const notes: string[] = [];
  const borderline: string[] = [];
  const below250 = input.mtom_category === 'below_250g';
  // S.4.2.4(d): without density values, the ground environment's descriptor gives the band (Table 2)
  const ground = input.population_band === undefined ? readGround(input.ground_environment) : null;
  const band = input.population_band ?? ground?.band ?? undefined;
  const chain = runSoraChain({
    ...(input.characteristic_dimension_m === undefined ? {} : { dimensionM: input.characteristic_dimension_m }),
    ...(input.max_speed_ms === undefined ? {} : { maxSpeedMs: input.max_speed_ms }),
    ...(band === undefined ? {} : { population: band }),
    ...(below250 ? { takeOffMassG: BELOW_250G_BOUND_G } : {}),
    ...(input.mitigations === undefined ? {} : { mitigations: input.mitigations }),
    ...(input.residual_arc === undefined ? {} : { residualArc: input.residual_arc }),
  });
  const fields = (names: readonly ChainInputName[]): OptionalField[] => names.map((n) => CHAIN_FIELD[n]);
  if (chain.igrc === null) {
    if (ground && ground.band === null) notes.push(ground.statement);
    return {
      igrc: null,
      finalGrc: null,
      sail: null,
      missing: { igrc: fields(chain.missing.igrc), final_grc: fields(chain.missing.final_grc), sail: fields(chain.missing.sail) },
      borderline,
      notes,
      ground,
    };
  }
  // a band read from the ground environment: the Table 2 cell leads the iGRC's trace, and the iGRC says so
  const igrc: AssessResult<IgrcValue> =
    ground?.trace && chain.igrc.status !== 'invalid'
      ? { ...chain.igrc, trace: [ground.trace, ...chain.igrc.trace], notes: [ground.statement, ...chain.igrc.notes] }
      : chain.igrc;
  if (below250) notes.push('Mass category "< 250 g": the ≤ 250 g rule printed under Table 1 was checked with the category bound (250 g).');
  for (const c of IGRC_TABLE.columns) {
    if (input.characteristic_dimension_m === c.maxDimensionM)
      borderline.push(
        `The characteristic dimension (${c.maxDimensionM} m) is exactly the limit of the Table 1 column "${c.dimensionLabel}"; any larger UA falls in the next column.`,
      );
    if (input.max_speed_ms === c.maxSpeedMs)
      borderline.push(
        `The maximum speed (${c.maxSpeedMs} m/s) is exactly the limit of the Table 1 column "${c.speedLabel}"; any faster UA falls in the next column.`,
      );
  }
  const fin = chain.finalGrc;
  if (fin?.status === 'ok') {
    for (const n of fin.notes) if (/would not be accepted|cannot be claimed/.test(n)) borderline.push(n);
  }
  const sailMissing: OptionalField[] = input.residual_arc === undefined ? ['residual_arc'] : [];
  return { igrc, finalGrc: fin, sail: chain.sail, missing: { igrc: [], final_grc: [], sail: sailMissing }, borderline, notes, ground };
}

/** A deterministic derivation for one indicator. */
export interface Derivation {
  readonly value: IndicatorValue | null;
  /** table = read from a corpus table; rule = a rule printed in the corpus; none = no value. */
  readonly basis: 'table' | 'rule' | 'none';
  readonly explanation: string;
  readonly trace: readonly TraceStep[];
  readonly conditionalReasons: readonly string[];
  /** Inputs that would allow (or strengthen) a value. */
  readonly missing: readonly OptionalField[];
  readonly notes: readonly string[];
}

const none = (explanation: string, missing: readonly OptionalField[] = [], notes: readonly string[] = [], trace: readonly TraceStep[] = []): Derivation => ({
  value: null,
  basis: 'none',
  explanation,
  trace,
  conditionalReasons: [],
  missing,
  notes,
});

function traceText(trace: readonly TraceStep[]): string {
  return trace.map((s) => formatTraceStep(s)).join('; ');
}

function missingText(missing: readonly OptionalField[]): string {
  return missing.map((f) => fieldLabel(f)).join(', ');
}

/** The rule of S.4.4.4 "Atypical air environment" (p. 32): atypical airspace leads to ARC-a. */
export const ATYPICAL_AIRSPACE_RULE: TraceStep = {
  docId: EASA_DOC_ID,
  caption: 'S.4.4.4 Instructions — Atypical air environment',
  page: 32,
  section: 'S.4.4.4',
  row: 'Atypical air environment (a)',
  column: '—',
  cell: 'An atypical air environment (leading to ARC-a classification)',
  effect: 'initial ARC-a',
};

export function grcOrientation(grc: number): Orientation {
  if (grc <= 2) return 'very_low';
  if (grc <= 4) return 'low';
  if (grc <= 6) return 'medium';
  return 'high';
}

export const ARC_ORIENTATION: Readonly<Record<'a' | 'b' | 'c' | 'd', Orientation>> = { a: 'very_low', b: 'low', c: 'medium', d: 'high' };

/** An orientation as people write it ("very low", not the value's key "very_low"). */
const orientationWords = (o: string): string => o.replace(/_/g, ' ');

function calculated<T>(name: 'igrc' | 'final_grc' | 'sail', r: AssessResult<T> | null, value: (v: T) => IndicatorValue, calc: CalculatorOutcome): Derivation {
  const label = INDICATOR_CATALOG[name].label;
  if (r === null) {
    const missing = calc.missing[name];
    return none(
      missing.length > 0
        ? `${label} not computed: the calculator needs ${missingText(missing)}.`
        : `${label} not computed: an earlier step has no value (${earlierReason(calc)}).`,
      missing,
      calc.notes,
    );
  }
  if (r.status === 'invalid') return none(`${label} not computed: ${r.errors.map((e) => e.message).join(' ')}`, []);
  if (r.status !== 'ok') return none(`${label} has no value. ${r.reason}`, [], r.notes, r.trace);
  const v = value(r.value);
  return {
    value: v,
    basis: 'table',
    explanation: `${label} ${String(v)}, read from the tables: ${traceText(r.trace)}.${r.notes.length ? ` ${r.notes.join(' ')}` : ''}`,
    trace: r.trace,
    conditionalReasons: calc.borderline,
    missing: [],
    notes: [...calc.notes, ...r.notes],
  };
}

function earlierReason(calc: CalculatorOutcome): string {
  for (const r of [calc.igrc, calc.finalGrc]) {
    if (r && r.status === 'invalid') return r.errors.map((e) => e.message).join(' ');
    if (r && r.status !== 'ok') return r.reason;
  }
  return 'no value';
}

/** True when the tables put the operation outside the SORA (‘certified’ category to be considered). */
function outsideSora(calc: CalculatorOutcome): TraceStep[] | null {
  if (calc.igrc?.status === 'outside-sora') return [...calc.igrc.trace];
  if (calc.finalGrc?.status === 'ok' && !calc.finalGrc.value.withinSora)
    return [...(calc.igrc?.status === 'ok' ? calc.igrc.trace : []), ...calc.finalGrc.trace];
  if (calc.sail?.status === 'outside-sora') return [...calc.sail.trace];
  return null;
}

/** The deterministic derivation of one indicator. */
export function deriveIndicator(name: IndicatorName, input: InitialOperationInput, calc: CalculatorOutcome): Derivation {
  switch (name) {
    case 'igrc':
      return calculated('igrc', calc.igrc, (v: IgrcValue) => v.igrc, calc);
    case 'final_grc': {
      const d = calculated('final_grc', calc.finalGrc, (v: FinalGrcValue) => v.finalGrc, calc);
      if (d.value === null || calc.igrc?.status !== 'ok' || calc.finalGrc?.status !== 'ok') return d;
      // The final GRC starts from the iGRC cell; cite it too (no mitigation claimed → no Table 5 step).
      const trace = [...calc.igrc.trace, ...calc.finalGrc.trace];
      const credits = calc.finalGrc.value.credits;
      const how =
        credits.length === 0
          ? 'no ground-risk mitigation is claimed, so the final GRC equals the iGRC'
          : `credits ${credits.map((c) => `${c.mitigation.toUpperCase()} ${c.level} ${c.credit}`).join(', ')}`;
      return {
        ...d,
        trace,
        explanation: `Final GRC ${String(d.value)}: iGRC ${calc.igrc.value.igrc}, ${how}${calc.finalGrc.value.floorApplied ? ', bounded below by the controlled-ground-area value' : ''}. Table cells: ${traceText(trace)}.${calc.finalGrc.notes.length ? ` ${calc.finalGrc.notes.join(' ')}` : ''}`,
      };
    }
    case 'sail':
      return calculated('sail', calc.sail, (v: SailValue) => v.sail, calc);
    case 'initial_ground_risk_orientation': {
      const r = calc.igrc;
      if (r?.status === 'ok') {
        const o = grcOrientation(r.value.igrc);
        return {
          value: o,
          basis: 'table',
          explanation: `Initial ground risk orientation ${orientationWords(o)}: the intrinsic GRC is ${r.value.igrc} (${traceText(r.trace)}); SkyCite maps iGRC ≤ 2 to very low, 3–4 to low, 5–6 to medium and ≥ 7 to high (a coarse orientation, not a regulatory category).`,
          trace: r.trace,
          conditionalReasons: calc.borderline,
          missing: [],
          notes: [...r.notes],
        };
      }
      if (r?.status === 'outside-sora') {
        return {
          value: 'high',
          basis: 'table',
          explanation: `Initial ground risk orientation high: ${r.reason}`,
          trace: r.trace,
          conditionalReasons: [],
          missing: [],
          notes: [...r.notes],
        };
      }
      const missing = calc.missing.igrc;
      return none(
        missing.length > 0
          ? `No value without a model: the ground risk orientation is derived from the intrinsic GRC (Table 1), which needs ${missingText(missing)}.`
          : `No value: ${r && r.status === 'unavailable' ? r.reason : 'the iGRC could not be computed.'}`,
        missing,
        calc.notes,
      );
    }
    case 'initial_air_risk_orientation': {
      const lower = input.residual_arc
        ? [
            `The residual ARC given (ARC-${input.residual_arc}) results from the initial ARC lowered by strategic mitigations (Step #5), so the initial air risk is at least ${orientationWords(ARC_ORIENTATION[input.residual_arc])}.`,
          ]
        : [];
      if (input.airspace_type === 'atypical_segregated') {
        return {
          value: 'very_low',
          basis: 'rule',
          explanation: `Initial air risk orientation very low: ${formatTraceStep(ATYPICAL_AIRSPACE_RULE)}. SkyCite maps ARC-a to very low.`,
          trace: [ATYPICAL_AIRSPACE_RULE],
          conditionalReasons: [
            'Applies only if the operational volume is atypical airspace as defined in S.4.4.4 (e.g. reserved, restricted or temporarily segregated airspace); the competent authority designates atypical airspace and may raise the initial ARC (S.4.4.4(d), (e)).',
          ],
          missing: [],
          notes: lower,
        };
      }
      return none(
        'No value without a model: the initial ARC is assigned with the decision tree of Figure 6 (S.4.4.3, p. 32), which is not contained in the text corpus; determine it from an official air collision risk map or the published figure.',
        [],
        lower,
      );
    }
    case 'likely_regulatory_pathway': {
      const trace = outsideSora(calc);
      if (trace) {
        return {
          value: 'certified',
          basis: 'table',
          explanation: `Likely pathway certified: the tables place the operation outside the SORA (${traceText(trace)}); the text says the ‘certified’ category should then be considered (S.4.2.4(c); S.4.3.4, p. 30).`,
          trace,
          conditionalReasons: ['The text says the ‘certified’ category "should be considered": an orientation, not a classification.'],
          missing: [],
          notes: [],
        };
      }
      return none(
        'No value without a model: the pathway depends on whether the operation falls under the ‘open’ category, a standard scenario (STS) or a PDRA (S.3.2.2(a)), whose scope conditions are text, not tables. A language model reading the retrieved passages, or an assessor, can propose it; the SORA inputs (dimension, speed, population band, residual ARC) let the calculator show whether the tables place the operation outside the SORA.',
        [],
      );
    }
    case 'expected_assessment_depth':
      return none(
        'No value without a model: the assessment depth follows from the pathway (declaration under an STS, a PDRA, or the full SORA process), which is not derived from tables.',
        [],
      );
  }
}
