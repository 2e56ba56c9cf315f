/**
 * Deterministic retrieval queries (SKYSAFE §2.8, A.3.3): the indicator's base terms, then the
 * discriminator terms of the categories chosen for the fields the indicator sees (in field order),
 * then the hint terms whose conditions the inputs meet. Duplicates (case-insensitive) are dropped,
 * first occurrence kept. Same inputs → same query, byte for byte.
 */
import { MITIGATION_KEYS } from '../sora/tables/grc-mitigations-table.js';
import { CATEGORICAL_FIELDS, type CategoricalField, type InitialOperationInput } from './inputs.js';
import { DISCRIMINATORS, INDICATOR_CATALOG, type IndicatorName, type IndicatorSpec, type QueryHint } from './catalog.js';

export interface IndicatorQuery {
  readonly indicator: IndicatorName;
  /** The query string sent to the retrieval engine. */
  readonly query: string;
  /** The terms, in order, with where each came from. */
  readonly terms: readonly { readonly term: string; readonly from: string }[];
}

const POPULATION_TERMS: Readonly<Record<string, string>> = {
  controlled: 'controlled ground area',
  '<5': 'population density < 5 people/km2',
  '<50': 'population density < 50 people/km2',
  '<500': 'population density < 500 people/km2',
  '<5000': 'population density < 5 000 people/km2',
  '<50000': 'population density < 50 000 people/km2',
  '>50000': 'assemblies of people > 50 000 people/km2',
};

function hintApplies(hint: QueryHint, input: InitialOperationInput): boolean {
  return (Object.entries(hint.when) as [CategoricalField, readonly string[]][]).every(([field, values]) => values.includes(input[field]));
}

/** The query for one indicator and operation. */
export function buildIndicatorQuery(name: IndicatorName, input: InitialOperationInput): IndicatorQuery {
  const spec: IndicatorSpec = INDICATOR_CATALOG[name];
  const terms: { term: string; from: string }[] = [];
  const seen = new Set<string>();
  const add = (term: string, from: string) => {
    const key = term.trim().toLowerCase();
    if (key === '' || seen.has(key)) return;
    seen.add(key);
    terms.push({ term: term.trim(), from });
  };
  for (const t of spec.baseTerms) add(t, 'base');
  for (const field of spec.fields) {
    if ((CATEGORICAL_FIELDS as readonly string[]).includes(field)) {
      const f = field as CategoricalField;
      const table = DISCRIMINATORS[f] as Readonly<Record<string, readonly string[]>>;
      for (const t of table[input[f]] ?? []) add(t, `${f}=${input[f]}`);
    } else if (field === 'population_band' && input.population_band) {
      add(POPULATION_TERMS[input.population_band] ?? '', `population_band=${input.population_band}`);
    } else if (field === 'residual_arc' && input.residual_arc) {
      add(`residual ARC-${input.residual_arc}`, `residual_arc=${input.residual_arc}`);
    } else if (field === 'mitigations' && input.mitigations) {
      for (const k of MITIGATION_KEYS) {
        const level = input.mitigations[k];
        if (level && level !== 'none') add(`${k === 'm2' ? 'M2' : `M1(${k.slice(2).toUpperCase()})`} ${level} robustness`, `mitigations.${k}=${level}`);
      }
    }
  }
  spec.hints.forEach((hint, i) => {
    if (hintApplies(hint, input)) for (const t of hint.terms) add(t, `hint ${i + 1}`);
  });
  return { indicator: name, query: terms.map((t) => t.term).join(', '), terms };
}
