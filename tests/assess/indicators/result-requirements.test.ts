/**
 * What each result needs is said before the run: per result the inputs its tables read, given,
 * read from the ground environment (Table 2) or still missing; per optional field the results
 * that need it (the residual ARC is needed for SAIL, not "optional").
 */
import { describe, expect, it } from 'vitest';
import { describeRequirements } from '../../../src/core/indicators/requirements.js';
import { BASE_INPUT } from './helpers.js';

const byResult = (raw: Record<string, unknown>) => Object.fromEntries(describeRequirements(raw).results.map((r) => [r.result, r]));

describe('what each result needs', () => {
  it('says SAIL needs the residual ARC, and labels the residual ARC as needed for SAIL', () => {
    const req = describeRequirements({ ...BASE_INPUT, characteristic_dimension_m: '2', max_speed_ms: '30' });
    const r = Object.fromEntries(req.results.map((x) => [x.result, x]));
    expect(r.igrc?.ready).toBe(true);
    expect(r.final_grc?.ready).toBe(true);
    expect(r.sail?.ready).toBe(false);
    expect(r.sail?.text).toBe('SAIL (Table 3, p. 38) needs the final GRC and Residual ARC. Still needed: Residual ARC.');
    expect(r.igrc?.text).toBe(
      'iGRC (Table 1, p. 24) needs Maximum characteristic dimension, Maximum speed and Population density band (< 500 people/km², read from the ground environment with Table 2). Ready.',
    );
    expect(req.fields.residual_arc).toBe('needed for SAIL');
    expect(Object.values(req.fields).join(' ')).not.toMatch(/^optional$/);
  });

  it('reads the band from a sparsely populated area and says so, instead of asking for an "optional" field', () => {
    const req = describeRequirements({ ...BASE_INPUT, characteristic_dimension_m: '2', max_speed_ms: '30' });
    const band = req.results[0]!.needs.find((n) => n.field === 'population_band');
    expect(band).toMatchObject({ state: 'derived', detail: '< 500 people/km², read from the ground environment with Table 2' });
    expect(req.fields.population_band).toBe('optional: read from the ground environment with Table 2 (< 500 people/km²)');
    expect(req.ground?.statement).toMatch(/< 500 people\/km² \(Table 2, .*p\. 26\)/);
  });

  it('labels the band as required when the ground environment is "Populated area"', () => {
    const req = describeRequirements({ ...BASE_INPUT, ground_environment: 'populated', characteristic_dimension_m: '2', max_speed_ms: '30' });
    expect(req.fields.population_band).toMatch(/^required for iGRC, final GRC and SAIL: "Populated area" spans several rows/);
    expect(req.results[0]!.text).toMatch(/Still needed: Population density band \("Populated area" spans several rows of Table 1\)\./);
  });

  it('names the missing and the unreadable inputs of a half-filled form', () => {
    const r = byResult({ ground_environment: 'sparsely_populated', characteristic_dimension_m: '2 furlongs' });
    expect(r.igrc?.needs.map((n) => [n.field, n.state])).toEqual([
      ['characteristic_dimension_m', 'invalid'],
      ['max_speed_ms', 'missing'],
      ['population_band', 'derived'],
    ]);
    expect(r.igrc?.text).toMatch(/Still needed: Maximum characteristic dimension \(correct the value\) and Maximum speed\./);
  });

  it('takes a band given over the ground environment', () => {
    const req = describeRequirements({ ...BASE_INPUT, population_band: '<50' });
    expect(req.ground).toBeNull();
    expect(req.results[0]!.needs.find((n) => n.field === 'population_band')?.state).toBe('given');
  });
});
