import { describe, expect, it } from 'vitest';
import { assessIndicators } from '../../src/core/indicators/run';
import {
  changedFields,
  copyFormValues,
  describeError,
  emptyFormValues,
  formConversions,
  formRequirements,
  formToRaw,
  mitigationLabel,
  mitigationOptions,
  validateForm,
} from '../../src/ui/assess/form';
import { retrievalAdapter } from '../../src/ui/assess/retrieval';
import { createFakeRuntime } from './fake-runtime';

function filled() {
  const v = emptyFormValues();
  v.mtom_category = 'below_25kg';
  v.visual_mode = 'BVLOS';
  v.ground_environment = 'sparsely_populated';
  v.airspace_type = 'uncontrolled';
  v.max_altitude_category = 'up_to_120m';
  return v;
}

describe('Assess form adapter', () => {
  it('reports every missing required field, naming the field and the allowed values', () => {
    const { result, errors } = validateForm(emptyFormValues());
    expect(result.ok).toBe(false);
    expect(Object.keys(errors).sort()).toEqual(['airspace_type', 'ground_environment', 'max_altitude_category', 'mtom_category', 'visual_mode']);
    expect(errors.visual_mode![0]).toContain('VLOS / BVLOS is required');
    expect(errors.visual_mode![0]).toContain('VLOS (visual line of sight) · BVLOS (beyond visual line of sight)');
    expect(errors.mtom_category![0]).not.toMatch(/mtom_category|below_250g/);
  });

  it('leaves blank optional fields out and converts decimal commas', () => {
    const v = filled();
    v.characteristic_dimension_m = '2,5';
    const raw = formToRaw(v);
    expect(raw).not.toHaveProperty('max_speed_ms');
    expect(raw).not.toHaveProperty('mitigations');
    const { result } = validateForm(v);
    expect(result.ok && result.value.characteristic_dimension_m).toBe(2.5);
  });

  it('puts number errors on the number field', () => {
    const v = filled();
    v.max_speed_ms = 'fast';
    const { errors } = validateForm(v);
    expect(Object.keys(errors)).toEqual(['max_speed_ms']);
    expect(errors.max_speed_ms![0]).toMatch(/^Maximum speed must be a number greater than 0, in metres per second .*"fast" is not\.$/);
  });

  it('passes claimed mitigations and puts mitigation errors on their select', () => {
    const v = filled();
    v.mitigations.m2 = 'high';
    expect(formToRaw(v).mitigations).toEqual({ m2: 'high' });
    expect(validateForm(v).result.ok).toBe(true);
    v.mitigations.m1c = 'high'; // n/a in Table 5
    const { errors } = validateForm(v);
    expect(Object.keys(errors)).toEqual(['mitigations.m1c']);
    expect(errors['mitigations.m1c']![0]).toContain('n/a');
  });

  it('offers only the Table 5 levels that exist', () => {
    expect(mitigationOptions('m1c')).toEqual(['none', 'low']);
    expect(mitigationOptions('m2')).toEqual(['none', 'medium', 'high']);
    expect(mitigationLabel('m1a')).toMatch(/^M1\(A\)/);
  });

  it('words every field error with labels, never internal codes', () => {
    const v = filled();
    v.mtom_category = 'heavy';
    v.characteristic_dimension_m = 'two metres';
    v.max_speed_ms = '-3';
    v.population_band = 'lots';
    v.residual_arc = 'e';
    v.mitigations.m1c = 'high';
    const { errors } = validateForm(v);
    const messages = Object.values(errors).flat();
    expect(messages).toHaveLength(6);
    for (const m of messages) {
      expect(m).not.toMatch(/\b(?:mtom_category|characteristic_dimension_m|max_speed_ms|population_band|residual_arc|mitigations\.\w+|below_250g|below_4kg)\b/);
      expect(describeError({ field: 'f', got: null, allowed: [], message: m })).toBe(m);
    }
    expect(errors.characteristic_dimension_m![0]).toMatch(/^Maximum characteristic dimension must be a number greater than 0, in metres/);
    expect(errors.mtom_category![0]).toMatch(/Maximum take-off mass: "heavy" is not one of the choices \(< 250 g · 250 g to < 900 g/);
  });
});

describe('retrieval adapter (offline, no model)', () => {
  it('asks the runtime for the flat retrieval only: the indicators do not read the document agents', async () => {
    const runtime = createFakeRuntime();
    const asked: unknown[] = [];
    const retrieve = runtime.retrieve.bind(runtime);
    runtime.retrieve = (q, o) => (asked.push(o), retrieve(q, o));
    const { retrieval } = retrievalAdapter(runtime);
    await retrieval.retrieve('intrinsic ground risk class population density', { filters: { jurisdictions: ['EU'] } });
    expect(asked).toEqual([{ filters: { jurisdictions: ['EU'] }, agents: false }]);
  });

  it('feeds the indicator workflow from runtime.retrieve and resolves chunk metadata', async () => {
    const runtime = createFakeRuntime();
    const { retrieval, lookup, chunks } = retrievalAdapter(runtime);
    const v = filled();
    v.characteristic_dimension_m = '1';
    v.max_speed_ms = '25';
    v.population_band = '<50';
    v.residual_arc = 'b';
    const { result } = validateForm(v);
    expect(result.ok).toBe(true);
    if (!result.ok) return;
    const out = await assessIndicators(result.value, { retrieval, chunkLookup: lookup });
    expect(runtime.queries.length).toBeGreaterThan(0);
    expect(out.model).toBeNull();
    const igrc = out.results.igrc!;
    expect(igrc.confidence).toBe('calculated');
    expect(typeof igrc.value).toBe('number');
    expect(igrc.trace.length).toBeGreaterThan(0);
    expect(out.results.sail?.value).not.toBeNull();
    for (const r of Object.values(out.results)) for (const s of r.sources) expect(chunks.has(s.id)).toBe(true);
  });
});

describe('Assess form: units, what changed, what is needed', () => {
  it('accepts "30 m/s" and "3,5 m" in the number fields and says what a conversion read', () => {
    const v = filled();
    v.characteristic_dimension_m = '3,5 m';
    v.max_speed_ms = '30 m/s';
    const { result, errors } = validateForm(v);
    expect(errors).toEqual({});
    expect(result.ok && [result.value.characteristic_dimension_m, result.value.max_speed_ms]).toEqual([3.5, 30]);
    v.max_speed_ms = '90 km/h';
    expect(formConversions(v)).toEqual({ max_speed_ms: '90 km/h = 25 m/s' });
  });

  it('puts a wrong-dimension unit error on its field', () => {
    const v = filled();
    v.characteristic_dimension_m = '30 m/s';
    expect(validateForm(v).errors).toEqual({
      characteristic_dimension_m: ['Maximum characteristic dimension: "30 m/s" is a speed, not a length; give a length in m, cm, mm, ft.'],
    });
  });

  it('names the fields changed between two snapshots, by value read (not by text), mitigations included', () => {
    const before = filled();
    before.max_speed_ms = '30';
    const now = copyFormValues(before);
    now.max_speed_ms = ' 30 m/s ';
    expect(changedFields(before, now)).toEqual([]);
    now.mitigations.m2 = 'medium';
    now.residual_arc = 'c';
    expect(changedFields(before, now)).toEqual(['Claimed ground-risk mitigations', 'Residual ARC']);
    const bad = copyFormValues(before);
    bad.max_speed_ms = 'fast';
    expect(changedFields(before, bad)).toEqual(['Maximum speed']);
  });

  it('says before the run that SAIL needs the residual ARC and that the band is read from the ground environment', () => {
    const v = filled();
    v.characteristic_dimension_m = '2';
    v.max_speed_ms = '30';
    const req = formRequirements(v);
    expect(req.fields.residual_arc).toBe('needed for SAIL');
    expect(req.fields.population_band).toMatch(/^optional: read from the ground environment with Table 2/);
    expect(req.results.map((r) => [r.result, r.ready])).toEqual([
      ['igrc', true],
      ['final_grc', true],
      ['sail', false],
    ]);
  });
});
