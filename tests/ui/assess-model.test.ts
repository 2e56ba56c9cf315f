/**
 * The Assess view's model: validation before a run, a run without and with a language model
 * (structured completions over the one engine interface, each constrained to the indicator's JSON schema), stop, failures, and the audit record of every run.
 */
import { describe, expect, it, vi } from 'vitest';
import { INDICATOR_NAMES } from '../../src/core/indicators/catalog';
import { AssessModel } from '../../src/ui/assess/assess-model.svelte';
import { appStandIn, chatStandIn, LOADED_MODEL, type AppStandIn } from './stand-ins';

function withAnnounce(app: AppStandIn): AppStandIn & { announce(text: string): void; announced: string[] } {
  const announced: string[] = [];
  return Object.assign(app, { announced, announce: (t: string) => announced.push(t) });
}

function fill(model: AssessModel, sora = false): void {
  Object.assign(model.values, {
    mtom_category: 'below_25kg',
    visual_mode: 'VLOS',
    ground_environment: 'sparsely_populated',
    airspace_type: 'uncontrolled',
    max_altitude_category: 'up_to_120m',
  });
  if (sora) Object.assign(model.values, { characteristic_dimension_m: '2', max_speed_ms: '30', population_band: '<500', residual_arc: 'c' });
}

/** A JSON reply for whichever indicator the request names. */
const reply = (messages: { content: string }[]): string => {
  const name = INDICATOR_NAMES.find((n) => messages.some((m) => m.content.includes(`Requested indicator: ${n}`)))!;
  const value = name === 'likely_regulatory_pathway' ? 'specific_sora' : name === 'expected_assessment_depth' ? 'full_sora' : 'low';
  return JSON.stringify({ name, value, explanation: 'From the context.' });
};

describe('Assess model', () => {
  it('does not run with missing required inputs, and names them', async () => {
    const app = withAnnounce(appStandIn());
    const model = new AssessModel(app);
    await model.run();
    expect(model.submitted).toBe(true);
    expect(Object.keys(model.errors)).toContain('visual_mode');
    expect(model.result).toBeNull();
    expect(app.runtime.queries).toEqual([]);
    expect(await app.audit.count()).toBe(0);
  });

  it('runs without a model: table values with their cells, and an audited record of the run', async () => {
    const app = withAnnounce(appStandIn());
    const model = new AssessModel(app);
    fill(model, true);
    await model.run();
    expect(model.error).toBeNull();
    expect(model.running).toBe(false);
    const r = model.result!;
    expect(r.model).toBeNull();
    expect(r.results.igrc).toMatchObject({ value: 5, confidence: 'calculated' }); // Table 1: 2 m / 30 m/s, < 500 people/km² → 5
    expect(r.results.igrc!.trace.length).toBeGreaterThan(0);
    expect(app.announced).toContain('Assessment ready.');
    expect(app.runtime.queries).toHaveLength(r.order.length); // one retrieval per indicator

    const [rec] = (await app.audit.list()).records;
    expect(model.audited).toBe(true);
    expect(rec).toMatchObject({ kind: 'assess', mode: 'evidence-only', modelId: null, route: null, calculator: null, indexManifestSha: app.manifestSha });
    expect(rec!.question).toMatch(/^Assessment — .*VLOS/);
    expect(rec!.subQueries).toEqual(app.runtime.queries);
    expect(rec!.assessment!.document.results['igrc']).toMatchObject({ value: 5, trace: r.results.igrc!.trace });
    expect(rec!.assessment!.retrievals.map((x) => x.query)).toEqual(app.runtime.queries);
    expect(rec!.assessment!.retrievals[0]!.evidence[0]).toMatchObject({ parts: expect.any(Object), stages: expect.any(Array) });
    expect(rec!.models).toMatchObject({ embedding: { id: 'test-model' }, generation: null });
    expect(rec!.answer).toContain('iGRC');
  });

  it('runs the model N times per indicator with a model loaded, and records the model', async () => {
    const chat = chatStandIn({}, [(request) => reply(request.messages)]);
    const app = withAnnounce(appStandIn({ chat }));
    const model = new AssessModel(app);
    model.runs = 3;
    fill(model);
    await model.run();
    const r = model.result!;
    expect(r.model).toMatchObject({ id: LOADED_MODEL, runs: 3 });
    expect(chat.structuredCalls).toHaveLength(r.order.length * 3);
    expect(chat.structuredCalls[0]!.params).toMatchObject({ temperature: 0.2, top_p: 0.9 });
    // each run's reply is constrained to that indicator's schema (response_format); ajv still validates it
    const first = chat.structuredCalls[0]!;
    const name = (first.schema as { properties: { name: { enum: string[] } } }).properties.name.enum[0]!;
    expect(first.messages.some((m) => m.content.includes(`Requested indicator: ${name}`))).toBe(true);
    expect(r.results.likely_regulatory_pathway).toMatchObject({ value: 'specific_sora', consistency: 1 });
    const [rec] = (await app.audit.list()).records;
    expect(rec).toMatchObject({ kind: 'assess', mode: 'generative', modelId: LOADED_MODEL });
    expect(rec!.models?.generation?.id).toBe(LOADED_MODEL);
  });

  it('leaves the model out when the user unticks it', async () => {
    const chat = chatStandIn();
    const app = withAnnounce(appStandIn({ chat }));
    const model = new AssessModel(app);
    model.useModel = false;
    fill(model);
    await model.run();
    expect(chat.structuredCalls).toHaveLength(0);
    expect(model.result!.model).toBeNull();
  });

  it('stops a run: "Stopped.", no result kept from it, nothing audited', async () => {
    const chat = chatStandIn({}, ['hang']);
    const app = withAnnounce(appStandIn({ chat }));
    const model = new AssessModel(app);
    fill(model);
    const pending = model.run();
    await vi.waitFor(() => expect(model.progress ?? '').toMatch(/model run 1 of/), { timeout: 5_000, interval: 2 });
    model.stop();
    await pending;
    expect(model.error).toBe('Stopped.');
    expect(model.running).toBe(false);
    expect(model.result).toBeNull();
    expect(await app.audit.count()).toBe(0);
  });

  it('keeps the result and says why when the audit log cannot be written', async () => {
    const app = withAnnounce(appStandIn());
    const failing = Object.assign(app, {
      audit: { ...app.audit, add: async () => Promise.reject(new Error('Storage is full: export and clear the audit log.')) },
    });
    const model = new AssessModel(failing);
    fill(model);
    await model.run();
    expect(model.result).not.toBeNull();
    expect(model.audited).toBe(false);
    expect(model.auditError).toBe('Storage is full: export and clear the audit log.');
  });

  it('reports a failed retrieval as low confidence, not as a crash', async () => {
    const app = withAnnounce(appStandIn());
    const retrieve = app.runtime.retrieve.bind(app.runtime);
    let calls = 0;
    app.runtime.retrieve = async (q, o) => {
      if (++calls === 1) throw new Error('The retrieval worker failed. Reload the app.');
      return retrieve(q, o);
    };
    const model = new AssessModel(app);
    fill(model);
    await model.run();
    expect(model.error).toBeNull();
    const first = model.result!.results[model.result!.order[0]!]!;
    expect(first.confidence).toBe('low');
    expect(first.notes.join(' ')).toMatch(/retrieval worker failed/);
  });
});

describe('Assess model: a result never outlives its inputs unmarked', () => {
  it('marks the result out of date the moment an input changes, and names the field', async () => {
    const model = new AssessModel(withAnnounce(appStandIn()));
    fill(model, true);
    await model.run();
    expect(model.result?.results.sail?.value).toBeDefined();
    expect(model.stale).toBe(false);
    expect(model.staleNotice).toBeNull();
    model.values.max_speed_ms = '40';
    expect(model.stale).toBe(true);
    expect(model.staleNotice).toBe('Out of date: these results are for the previous inputs (changed since the run: Maximum speed). Run again to update them.');
  });

  it('keeps the result marked out of date after an invalid entry ("0", a wrong unit) and a refused run', async () => {
    const app = withAnnounce(appStandIn());
    const model = new AssessModel(app);
    fill(model, true);
    await model.run();
    const first = model.result;
    for (const bad of ['0', '3 m']) {
      model.values.max_speed_ms = bad;
      await model.run(); // refused: the field error appears
      expect(model.errors.max_speed_ms?.[0]).toMatch(/^Maximum speed/);
      expect(model.result).toBe(first);
      expect(model.stale).toBe(true);
      expect(model.staleNotice).toMatch(/changed since the run: Maximum speed\)\. Correct the fields marked in the form, then run again\.$/);
    }
  });

  it('is current again when the inputs read the same ("30 m/s" for 30), and after a new run', async () => {
    const model = new AssessModel(withAnnounce(appStandIn()));
    fill(model, true);
    await model.run();
    model.values.max_speed_ms = '30 m/s';
    expect(model.stale).toBe(false);
    model.values.max_speed_ms = '108 km/h';
    expect(model.stale).toBe(false);
    model.values.population_band = '<50';
    expect(model.stale).toBe(true);
    await model.run();
    expect(model.stale).toBe(false);
    expect(model.result?.input.population_band).toBe('<50');
  });

  it('runs with units typed in the number fields', async () => {
    const model = new AssessModel(withAnnounce(appStandIn()));
    fill(model, true);
    Object.assign(model.values, { characteristic_dimension_m: '200 cm', max_speed_ms: '30 m/s' });
    await model.run();
    expect(model.errors).toEqual({});
    expect(model.result?.input).toMatchObject({ characteristic_dimension_m: 2, max_speed_ms: 30 });
    expect(model.result?.results.igrc?.value).toBe(5);
  });
});
