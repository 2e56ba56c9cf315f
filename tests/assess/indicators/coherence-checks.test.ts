/** Cross-indicator coherence checks flag contradictions without changing values. */
import { describe, expect, it } from 'vitest';
import { assessIndicators, checkCoherence, type CoherenceFlag, type InitialOperationInput } from '../../../src/core/indicators/index.js';
import { BASE_INPUT, CHUNKS, fakeRetrieval, out, scriptedModel } from './helpers.js';

const input: InitialOperationInput = { ...BASE_INPUT };
const ids = (flags: readonly CoherenceFlag[]) => flags.map((f) => f.id);

describe('checkCoherence', () => {
  it('flags pathway open with depth full_sora', () => {
    const flags = checkCoherence({ likely_regulatory_pathway: 'open', expected_assessment_depth: 'full_sora' }, input);
    expect(flags).toEqual([
      expect.objectContaining({ id: 'open-vs-full-sora', severity: 'contradiction', indicators: ['likely_regulatory_pathway', 'expected_assessment_depth'] }),
    ]);
    expect(flags[0]?.message).toMatch(/‘specific’ category/);
  });

  it('flags SAIL III or above with a simple declaration, not SAIL II', () => {
    expect(ids(checkCoherence({ sail: 'III', expected_assessment_depth: 'simple_declaration' }, input))).toEqual(['sail-vs-simple-declaration']);
    expect(ids(checkCoherence({ sail: 'II', expected_assessment_depth: 'simple_declaration' }, input))).toEqual([]);
  });

  it('flags a high iGRC with a very low ground orientation', () => {
    expect(ids(checkCoherence({ igrc: 7, initial_ground_risk_orientation: 'very_low' }, input))).toEqual(['igrc-high-vs-ground-low']);
  });

  it('flags BVLOS in controlled airspace with a very low air orientation', () => {
    const bvlos = { ...input, visual_mode: 'BVLOS', airspace_type: 'controlled' } as const;
    expect(ids(checkCoherence({ initial_air_risk_orientation: 'very_low' }, bvlos))).toEqual(['bvlos-controlled-airspace-vs-air-very-low']);
    expect(ids(checkCoherence({ initial_air_risk_orientation: 'medium' }, bvlos))).toEqual([]);
  });

  it('flags pathway open against inputs outside the open category', () => {
    const flags = checkCoherence(
      { likely_regulatory_pathway: 'open' },
      { ...input, visual_mode: 'BVLOS', mtom_category: '25kg_or_more', max_altitude_category: 'above_150m' },
    );
    expect(ids(flags)).toEqual(['open-vs-bvlos', 'open-vs-mass', 'open-vs-altitude']);
    expect(flags.every((f) => /not part of the text corpus/.test(f.message))).toBe(true);
  });

  it('flags a residual ARC higher than the initial air orientation', () => {
    expect(ids(checkCoherence({ initial_air_risk_orientation: 'low' }, { ...input, residual_arc: 'c' }))).toEqual(['residual-arc-above-initial']);
  });

  it('flags inputs whose ground environment and population band disagree', () => {
    expect(ids(checkCoherence({}, { ...input, ground_environment: 'controlled_ground_area', population_band: '<500' }))).toEqual([
      'ground-environment-vs-population-band',
    ]);
    expect(ids(checkCoherence({}, { ...input, ground_environment: 'populated', population_band: '<5000' }))).toEqual([]);
  });

  it('ignores indicators without a value', () => {
    expect(checkCoherence({ likely_regulatory_pathway: 'open', expected_assessment_depth: null }, input)).toEqual([]);
  });
});

describe('coherence in the workflow', () => {
  it('reports contradictions between independently voted indicators and the computed SAIL', async () => {
    const model = scriptedModel((ind) => [
      out(ind, ind === 'likely_regulatory_pathway' ? 'open' : ind === 'expected_assessment_depth' ? 'simple_declaration' : 'low'),
    ]);
    const r = await assessIndicators(
      { ...input, characteristic_dimension_m: 2, max_speed_ms: 30, population_band: '<500', residual_arc: 'b' },
      { retrieval: fakeRetrieval([CHUNKS.before]), model, runs: 1, explainCalculated: false },
    );
    expect(r.results.sail?.value).toBe('IV');
    expect(ids(r.coherence)).toEqual(expect.arrayContaining(['sail-vs-simple-declaration', 'sail-vs-open']));
    expect(r.results.likely_regulatory_pathway?.value).toBe('open'); // flagged, not changed
  });
});
