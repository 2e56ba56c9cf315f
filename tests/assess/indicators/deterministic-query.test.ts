/** Retrieval queries are built deterministically from base terms and the chosen categories. */
import { describe, expect, it } from 'vitest';
import { buildIndicatorQuery, INDICATOR_NAMES, type InitialOperationInput } from '../../../src/core/indicators/index.js';
import { BASE_INPUT } from './helpers.js';

const input: InitialOperationInput = { ...BASE_INPUT };

describe('buildIndicatorQuery', () => {
  it('gives the same query for the same inputs, for every indicator', () => {
    for (const name of INDICATOR_NAMES) {
      expect(buildIndicatorQuery(name, input)).toEqual(buildIndicatorQuery(name, { ...input }));
    }
  });

  it('starts with the indicator base terms and appends the discriminators of the chosen categories', () => {
    const q = buildIndicatorQuery('initial_air_risk_orientation', { ...input, visual_mode: 'BVLOS', airspace_type: 'controlled' });
    expect(q.query).toBe(
      'initial air risk class, ARC, airspace encounter category, air risk, BVLOS, beyond visual line of sight, airspace observers, sparsely populated area, controlled airspace, ARC-c, ANSP, 120 m above ground',
    );
    expect(q.terms[0]).toEqual({ term: 'initial air risk class', from: 'base' });
    expect(q.terms.find((t) => t.term === 'ANSP')?.from).toBe('airspace_type=controlled');
  });

  it('uses only the fields the indicator sees', () => {
    const q = buildIndicatorQuery('initial_air_risk_orientation', { ...input, mtom_category: '25kg_or_more' });
    expect(q.query).not.toMatch(/25 kg/);
    const p = buildIndicatorQuery('likely_regulatory_pathway', { ...input, mtom_category: '25kg_or_more' });
    expect(p.query).toMatch(/take-off mass higher than 25 kg/);
  });

  it('changes when a category changes', () => {
    const a = buildIndicatorQuery('likely_regulatory_pathway', input).query;
    const b = buildIndicatorQuery('likely_regulatory_pathway', { ...input, visual_mode: 'BVLOS' }).query;
    expect(a).not.toBe(b);
  });

  it('appends pathway hint terms for the PDRA/STS rows the inputs point to', () => {
    const s01 = buildIndicatorQuery('likely_regulatory_pathway', { ...input, ground_environment: 'controlled_ground_area' });
    expect(s01.terms.filter((t) => t.from.startsWith('hint')).map((t) => t.term)).toEqual(['PDRA-S01', 'STS-01']);
    const g03 = buildIndicatorQuery('likely_regulatory_pathway', { ...input, visual_mode: 'BVLOS', max_altitude_category: 'up_to_30m' });
    expect(g03.query).toMatch(/PDRA-G01, PDRA-G02, PDRA-G03$/);
  });

  it('adds the optional SORA inputs to the calculated indicators and drops duplicate terms', () => {
    const q = buildIndicatorQuery('sail', { ...input, population_band: '<500', residual_arc: 'c', mitigations: { m2: 'high' } });
    expect(q.query).toContain('population density < 500 people/km2');
    expect(q.query).toContain('residual ARC-c');
    expect(q.query).toContain('M2 high robustness');
    const lower = q.terms.map((t) => t.term.toLowerCase());
    expect(new Set(lower).size).toBe(lower.length);
  });
});
