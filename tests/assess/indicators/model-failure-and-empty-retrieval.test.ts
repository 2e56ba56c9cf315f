/** E2 (empty retrieval) and E3 (model failure → retry → typed error on that indicator only). */
import { describe, expect, it } from 'vitest';
import { assessIndicators } from '../../../src/core/indicators/index.js';
import { BASE_INPUT, CHUNKS, fakeRetrieval, out, scriptedModel } from './helpers.js';

describe('model failure (E3)', () => {
  it('retries a failed call once and uses the retry', async () => {
    const model = scriptedModel((ind) => [new Error('timeout after 60 s'), out(ind, 'low'), out(ind, 'low')]);
    const r = await assessIndicators(BASE_INPUT, { retrieval: fakeRetrieval([CHUNKS.before]), model, runs: 2, indicators: ['initial_air_risk_orientation'] });
    const a = r.results.initial_air_risk_orientation!;
    expect(a).toMatchObject({ value: 'low', confidence: 'model-majority', consistency: 1, error: null });
    expect(a.runs.map((x) => x.attempts)).toEqual([2, 1]);
    expect(a.runs[0]?.errors).toEqual(['attempt 1: model failure: timeout after 60 s']);
  });

  it('also retries an output that fails the schema', async () => {
    const model = scriptedModel((ind) => ['Sure! The orientation is low.', out(ind, 'low')]);
    const r = await assessIndicators(BASE_INPUT, { retrieval: fakeRetrieval([CHUNKS.before]), model, runs: 1, indicators: ['initial_air_risk_orientation'] });
    expect(r.results.initial_air_risk_orientation?.runs[0]).toMatchObject({ attempts: 2, value: 'low' });
    expect(r.results.initial_air_risk_orientation?.runs[0]?.errors[0]).toMatch(/invalid output \(no-json\)/);
  });

  it('gives a typed error on the failing indicator only; the others keep their values', async () => {
    const model = scriptedModel((ind) =>
      ind === 'likely_regulatory_pathway'
        ? [new Error('endpoint unavailable')]
        : [out(ind, ind === 'expected_assessment_depth' ? 'structured_assessment' : 'low')],
    );
    const r = await assessIndicators(BASE_INPUT, { retrieval: fakeRetrieval([CHUNKS.before]), model, runs: 3 });
    const p = r.results.likely_regulatory_pathway!;
    expect(p.error).toMatchObject({ type: 'IndicatorModelError', kind: 'unavailable', indicator: 'likely_regulatory_pathway', attempts: 2 });
    expect(p.error?.message).toMatch(/failed twice in run 1: attempt 1: model failure: endpoint unavailable \| attempt 2/);
    expect(p.value).toBeNull();
    expect(p.confidence).toBe('evidence-only');
    expect(p.explanation).toContain(`• ${CHUNKS.before.title}`);
    expect(p.sources.map((s) => s.id)).toContain(CHUNKS.before.id);
    expect(r.results.initial_ground_risk_orientation).toMatchObject({ value: 'low', error: null });
    expect(r.results.expected_assessment_depth).toMatchObject({ value: 'structured_assessment', error: null });
  });

  it('reports invalid-output when no run returns a valid object', async () => {
    const model = scriptedModel((ind) => [out(ind, 'moderate')]);
    const r = await assessIndicators(BASE_INPUT, {
      retrieval: fakeRetrieval([CHUNKS.before]),
      model,
      runs: 2,
      indicators: ['initial_ground_risk_orientation'],
    });
    const g = r.results.initial_ground_risk_orientation!;
    expect(g.error).toMatchObject({ kind: 'invalid-output', attempts: 4 });
    expect(g.value).toBeNull();
  });

  it('stops on abort instead of retrying', async () => {
    const controller = new AbortController();
    const model = scriptedModel(() => [
      () => {
        controller.abort(new Error('user cancelled'));
        throw new Error('aborted by signal');
      },
    ]);
    await expect(assessIndicators(BASE_INPUT, { retrieval: fakeRetrieval([CHUNKS.before]), model, signal: controller.signal })).rejects.toThrow(
      'user cancelled',
    );
    expect(model.calls).toHaveLength(1);
  });
});

describe('empty retrieval (E2)', () => {
  it('returns low confidence asking for the missing inputs, without calling the model', async () => {
    const model = scriptedModel((ind) => [out(ind, 'high')]);
    const r = await assessIndicators(BASE_INPUT, {
      retrieval: fakeRetrieval([]),
      model,
      indicators: ['initial_ground_risk_orientation', 'likely_regulatory_pathway'],
    });
    expect(model.calls).toHaveLength(0);
    const g = r.results.initial_ground_risk_orientation!;
    expect(g).toMatchObject({ value: null, confidence: 'low', sources: [] });
    expect(g.missing).toEqual(['characteristic_dimension_m', 'max_speed_ms', 'population_band']);
    expect(g.clarification).toBe(
      'To give the initial ground risk orientation, please provide: Maximum characteristic dimension, Maximum speed, Population density band.',
    );
    expect(g.explanation).toMatch(/^Low confidence: no regulatory passage was retrieved/);
    expect(r.results.likely_regulatory_pathway?.clarification).toMatch(/Maximum characteristic dimension/);
    expect(r.results.likely_regulatory_pathway?.clarification).not.toMatch(/characteristic_dimension_m/);
  });

  it('treats a failing retrieval like an empty one and says so', async () => {
    const retrieval = { retrieve: async () => Promise.reject(new Error('index missing: rebuild with npm run index')) };
    const r = await assessIndicators(BASE_INPUT, { retrieval, indicators: ['expected_assessment_depth'] });
    const d = r.results.expected_assessment_depth!;
    expect(d.confidence).toBe('low');
    expect(d.notes).toContain('Retrieval failed: index missing: rebuild with npm run index');
    expect(d.clarification).toMatch(/check the operation inputs, the retrieval filters or the index/);
  });

  it('still gives calculated values from the tables, noting the missing passages', async () => {
    const r = await assessIndicators(
      { ...BASE_INPUT, characteristic_dimension_m: 1, max_speed_ms: 20, population_band: '<50' },
      { retrieval: fakeRetrieval([]), indicators: ['igrc'] },
    );
    expect(r.results.igrc).toMatchObject({ value: 3, confidence: 'calculated' });
    expect(r.results.igrc?.notes.join(' ')).toMatch(/No passage was retrieved/);
  });
});
