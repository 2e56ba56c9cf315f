/** E1 and the form: invalid operation inputs name the field, what was given and the allowed values. */
import { describe, expect, it } from 'vitest';
import {
  AIRSPACE_TYPES,
  assessIndicators,
  FIELD_SPECS,
  GROUND_ENVIRONMENTS,
  MTOM_CATEGORIES,
  OperationInputError,
  validateOperationInput,
} from '../../../src/core/indicators/index.js';
import { BASE_INPUT, CHUNKS, fakeRetrieval } from './helpers.js';

describe('validateOperationInput', () => {
  it('accepts the five categorical fields and returns a typed value', () => {
    const r = validateOperationInput(BASE_INPUT);
    expect(r).toEqual({ ok: true, value: BASE_INPUT });
  });

  it('accepts labels and case variants of the vocabularies, and numbers typed as strings', () => {
    const r = validateOperationInput({
      mtom_category: '4 kg to < 25 kg',
      visual_mode: 'bvlos',
      ground_environment: 'Controlled ground area',
      airspace_type: 'ATYPICAL_SEGREGATED',
      max_altitude_category: 'up_to_30m',
      characteristic_dimension_m: '2,5',
      max_speed_ms: 30,
      population_band: '< 500',
      residual_arc: 'ARC-b',
      mitigations: { m2: 'medium', m1a: 'none' },
    });
    expect(r.ok).toBe(true);
    if (!r.ok) return;
    expect(r.value).toEqual({
      mtom_category: 'below_25kg',
      visual_mode: 'BVLOS',
      ground_environment: 'controlled_ground_area',
      airspace_type: 'atypical_segregated',
      max_altitude_category: 'up_to_30m',
      characteristic_dimension_m: 2.5,
      max_speed_ms: 30,
      population_band: '<500',
      residual_arc: 'b',
      mitigations: { m2: 'medium' },
    });
  });

  it('names the field, the value given and the allowed values for a value outside a vocabulary', () => {
    const r = validateOperationInput({ ...BASE_INPUT, airspace_type: 'class G' });
    expect(r.ok).toBe(false);
    if (r.ok) return;
    expect(r.errors).toEqual([expect.objectContaining({ field: 'airspace_type', got: 'class G', allowed: [...AIRSPACE_TYPES] })]);
    // the message speaks the form's language: the field's label and the choices' labels, no codes
    expect(r.errors[0]?.message).toContain('Airspace type');
    expect(r.errors[0]?.message).toContain('Uncontrolled airspace');
    expect(r.errors[0]?.message).not.toMatch(/airspace_type|atypical_segregated/);
  });

  it('reports every missing required field with its allowed values', () => {
    const r = validateOperationInput({ visual_mode: 'VLOS', airspace_type: 'controlled', max_altitude_category: 'up_to_120m' });
    expect(r.ok).toBe(false);
    if (r.ok) return;
    expect(r.errors.map((e) => e.field)).toEqual(['mtom_category', 'ground_environment']);
    expect(r.errors[0]?.allowed).toEqual([...MTOM_CATEGORIES]);
    expect(r.errors[1]?.allowed).toEqual([...GROUND_ENVIRONMENTS]);
    expect(r.errors[0]?.message).toMatch(/required/);
  });

  it('rejects unknown fields and invalid optional SORA inputs', () => {
    const r = validateOperationInput({
      ...BASE_INPUT,
      wingspan: 2,
      characteristic_dimension_m: -1,
      population_band: 'crowded',
      residual_arc: 'e',
      mitigations: { m1c: 'high' },
    });
    expect(r.ok).toBe(false);
    if (r.ok) return;
    const byField = Object.fromEntries(r.errors.map((e) => [e.field, e]));
    expect(Object.keys(byField).sort()).toEqual(['characteristic_dimension_m', 'mitigations.m1c', 'population_band', 'residual_arc', 'wingspan']);
    expect(byField.population_band?.allowed).toContain('<500');
    expect(byField.residual_arc?.allowed).toEqual(['a', 'b', 'c', 'd']);
    expect(byField['mitigations.m1c']?.allowed).toEqual(['none', 'low']); // Table 5: M1(C) has no medium/high
  });

  it('treats blank optional fields (empty form inputs) as absent', () => {
    const r = validateOperationInput({ ...BASE_INPUT, characteristic_dimension_m: '', population_band: null, residual_arc: '  ' });
    expect(r).toEqual({ ok: true, value: BASE_INPUT });
  });

  it('rejects a non-object', () => {
    const r = validateOperationInput('VLOS please');
    expect(r.ok).toBe(false);
  });

  it('describes every field for the form, with options for the choices', () => {
    expect(FIELD_SPECS.filter((f) => f.required).map((f) => f.field)).toEqual([
      'mtom_category',
      'visual_mode',
      'ground_environment',
      'airspace_type',
      'max_altitude_category',
    ]);
    for (const f of FIELD_SPECS.filter((s) => s.kind === 'choice')) expect(f.options?.length).toBeGreaterThan(1);
  });
});

describe('error flow E1 in the workflow', () => {
  it('throws OperationInputError naming the field by its label and the choices, before any retrieval', async () => {
    const retrieval = fakeRetrieval([CHUNKS.before]);
    const run = assessIndicators({ ...BASE_INPUT, visual_mode: 'EVLOS' }, { retrieval });
    await expect(run).rejects.toBeInstanceOf(OperationInputError);
    await expect(run).rejects.toThrow(/VLOS \/ BVLOS: "EVLOS" is not one of the choices \(VLOS \(visual line of sight\) · BVLOS/);
    await expect(run).rejects.not.toThrow(/visual_mode/);
    expect(retrieval.queries).toEqual([]);
  });

  it('rejects an unknown indicator name', async () => {
    await expect(assessIndicators(BASE_INPUT, { retrieval: fakeRetrieval([CHUNKS.before]), indicators: ['colour' as never] })).rejects.toThrow(/indicators/);
  });
});
