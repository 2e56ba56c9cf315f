/** With a model: N runs, schema-validated, majority vote with value consistency; split votes are conditional. */
import { describe, expect, it } from 'vitest';
import { indicatorGenerationSchema } from '../../../src/core/indicators/output-schema.js';
import { createRetrievalEngine, type RetrievalEngine } from '../../../src/core/retrieval/engine.js';
import { fakeEmbedder } from '../../support/fake-embedder.js';
import { chunkOf, tinyIndex } from '../../support/tiny-index.js';
import { assessIndicators, majorityVote, type IndicatorRetrieval } from '../../../src/core/indicators/index.js';
import { BASE_INPUT, CHUNKS, fakeRetrieval, FIXED_NOW, out, scriptedModel } from './helpers.js';

const FOUR = ['likely_regulatory_pathway', 'initial_ground_risk_orientation', 'initial_air_risk_orientation', 'expected_assessment_depth'] as const;

describe('majority vote with a model double', () => {
  it('takes the majority of 5 runs and reports value consistency and the votes', async () => {
    const model = scriptedModel((ind) =>
      ind === 'likely_regulatory_pathway'
        ? [
            out(ind, 'specific_pdra', 'PDRA first [skysafe-sora-curated/99].'),
            out(ind, 'specific_pdra'),
            out(ind, 'specific_sora'),
            out(ind, 'specific_pdra'),
            out(ind, 'specific_pdra'),
          ]
        : ind === 'expected_assessment_depth'
          ? [out(ind, 'structured_assessment')]
          : [out(ind, 'low')],
    );
    const r = await assessIndicators(BASE_INPUT, { retrieval: fakeRetrieval([CHUNKS.before, CHUNKS.pdraS01]), model, now: FIXED_NOW });
    expect(r.order).toEqual(FOUR); // no SORA inputs: no calculated indicators by default
    const p = r.results.likely_regulatory_pathway!;
    expect(p.value).toBe('specific_pdra');
    expect(p.confidence).toBe('model-majority');
    expect(p.consistency).toBe(0.8);
    expect(p.votes).toEqual([
      { value: 'specific_pdra', count: 4 },
      { value: 'specific_sora', count: 1 },
    ]);
    expect(p.runs.map((x) => x.value)).toEqual(['specific_pdra', 'specific_pdra', 'specific_sora', 'specific_pdra', 'specific_pdra']);
    expect(p.conditional).toBe(false);
    expect(p.explanation).toBe('PDRA first [skysafe-sora-curated/99].'); // the first run agreeing with the majority
    expect(p.sources.map((s) => [s.id, s.title, s.pages])).toEqual([
      [CHUNKS.before.id, CHUNKS.before.title, 'page 19'],
      [CHUNKS.pdraS01.id, CHUNKS.pdraS01.title, 'no page'],
    ]);
    expect(r.results.initial_ground_risk_orientation).toMatchObject({ value: 'low', consistency: 1 });
    expect(model.calls).toHaveLength(20);
    expect(r.model).toEqual({ id: 'test-double', runs: 5, temperature: 0.2, top_p: 0.9 });
    expect(r.generatedAt).toBe('2025-01-02T03:04:05.000Z');
  });

  it("passes the paper sampling parameters, the indicator's output schema (constrained decoding) and the abort signal to the model", async () => {
    const model = scriptedModel((ind) => [out(ind, ind === 'expected_assessment_depth' ? 'full_sora' : 'medium')]);
    const controller = new AbortController();
    await assessIndicators(BASE_INPUT, {
      retrieval: fakeRetrieval([CHUNKS.before]),
      model,
      runs: 1,
      indicators: ['initial_air_risk_orientation'],
      signal: controller.signal,
    });
    expect(model.calls[0]?.options).toEqual({
      temperature: 0.2,
      top_p: 0.9,
      signal: controller.signal,
      schema: indicatorGenerationSchema('initial_air_risk_orientation'),
    });
    const schema = indicatorGenerationSchema('initial_air_risk_orientation');
    expect(schema.properties.name.enum).toEqual(['initial_air_risk_orientation']);
    expect(schema.properties.value.enum).toContain('medium');
  });

  it('sends the A.3.6 template: system, request with only the relevant inputs, then the context', async () => {
    const model = scriptedModel((ind) => [out(ind, 'low')]);
    await assessIndicators(
      { ...BASE_INPUT, characteristic_dimension_m: 2 },
      { retrieval: fakeRetrieval([CHUNKS.atypical]), model, runs: 1, indicators: ['initial_air_risk_orientation'] },
    );
    const [system, request, context] = model.calls[0]!.messages;
    expect(system?.role).toBe('system');
    expect(system?.content).toMatch(/^You are an assistant for drone operation pre assessment\./);
    expect(system?.content).toContain('Do not infer, compute, or mention other indicators.');
    expect(request?.role).toBe('user');
    expect(request?.content).toMatch(
      /^You will receive a context section and a small set of operation inputs\.\nUse only the context and the provided inputs\.\nReturn exactly one JSON object with keys name, value, explanation\.\nDo not output any additional text\.\n\nRequested indicator: initial_air_risk_orientation/,
    );
    expect(request?.content).toContain(
      'Operation inputs:\nvisual_mode: VLOS (visual line of sight)\nground_environment: Sparsely populated area\nairspace_type: Uncontrolled airspace\nmax_altitude_category: 30 m to ≤ 120 m above ground',
    );
    expect(request?.content).not.toMatch(/mtom_category|characteristic_dimension_m/); // not relevant to air risk
    expect(context).toEqual({
      role: 'user',
      content: `Context:\n[${CHUNKS.atypical.id}] ${CHUNKS.atypical.title} — easa-amc-gm-2019-947, page 32\n${CHUNKS.atypical.text}`,
    });
  });

  it('frames a split vote as conditional, with the alternatives', async () => {
    const model = scriptedModel((ind) => [
      out(ind, 'low', 'Low reading.'),
      out(ind, 'medium', 'Medium reading.'),
      out(ind, 'medium', 'Medium again.'),
      out(ind, 'low'),
      out(ind, 'high'),
    ]);
    const r = await assessIndicators(BASE_INPUT, { retrieval: fakeRetrieval([CHUNKS.before]), model, indicators: ['initial_ground_risk_orientation'] });
    const g = r.results.initial_ground_risk_orientation!;
    expect(g.consistency).toBe(0.4);
    expect(g.value).toBe('medium'); // 2–2 tie between low and medium goes to the more demanding value
    expect(g.conditional).toBe(true);
    expect(g.conditionalReasons[0]).toBe('Runs split: medium (2/5), low (2/5), high (1/5).');
    expect(g.explanation).toMatch(/^Conditional \(indicative only\): Runs split: .* Majority reading: Medium reading\.$/);
  });

  it('treats a majority of "undetermined" as low confidence with no value', async () => {
    const model = scriptedModel((ind) => [out(ind, 'undetermined', 'The context does not give the UA dimension.')]);
    const r = await assessIndicators(BASE_INPUT, {
      retrieval: fakeRetrieval([CHUNKS.before]),
      model,
      runs: 3,
      indicators: ['initial_ground_risk_orientation'],
    });
    const g = r.results.initial_ground_risk_orientation!;
    expect(g).toMatchObject({ value: null, confidence: 'low', consistency: 1 });
    expect(g.clarification).toMatch(/Maximum characteristic dimension.*Maximum speed.*Population density band/);
  });

  it('notes explanations citing chunks that were not in the context', async () => {
    const model = scriptedModel((ind) => [out(ind, 'low', 'See [easa-amc-gm-2019-947/made-up].')]);
    const r = await assessIndicators(BASE_INPUT, { retrieval: fakeRetrieval([CHUNKS.before]), model, runs: 1, indicators: ['initial_air_risk_orientation'] });
    expect(r.results.initial_air_risk_orientation?.notes.join(' ')).toMatch(/not in the context: easa-amc-gm-2019-947\/made-up/);
  });

  it('breaks ties conservatively and lets undetermined win a tie', () => {
    expect(majorityVote('expected_assessment_depth', ['simple_declaration', 'full_sora'])?.value).toBe('full_sora');
    expect(majorityVote('likely_regulatory_pathway', ['open', 'undetermined'])?.value).toBe('undetermined');
    expect(majorityVote('likely_regulatory_pathway', [])).toBeNull();
  });

  it('runs on the real retrieval engine: its evidence becomes the context and the sources', async () => {
    const emb = fakeEmbedder(32);
    const index = await tinyIndex(
      [
        chunkOf('easa/pdra-s01', 'PDRA-S01 scope', 'The PDRA-S01 covers VLOS operations over a controlled ground area with a UA up to 3 m.'),
        chunkOf('easa/night', 'Night operations', 'Night operations need lights on the UA for orientation.'),
      ],
      emb,
    );
    const engine: RetrievalEngine = createRetrievalEngine({ index, embedder: emb });
    const retrieval: IndicatorRetrieval = engine; // the app's adapter passes the engine's result shape through
    const model = scriptedModel((ind) => [out(ind, 'specific_pdra', 'PDRA-S01 fits [easa/pdra-s01].')]);
    const r = await assessIndicators(BASE_INPUT, { retrieval, model, runs: 1, indicators: ['likely_regulatory_pathway'] });
    const p = r.results.likely_regulatory_pathway!;
    const context = model.calls[0]!.messages.at(-1)!.content;
    const direct = await engine.retrieve(p.query);
    expect(direct.evidence.length).toBeGreaterThan(0);
    expect(p.sources.map((s) => s.id)).toEqual(direct.evidence.map((e) => e.id));
    expect(context).toContain(direct.context);
    expect(p.value).toBe('specific_pdra');
  });
});

describe('calculated values with a model', () => {
  it('lets the model explain the computed value but never change it', async () => {
    const model = scriptedModel((ind) =>
      ind === 'igrc'
        ? [out('igrc', 7, 'wrong value'), out('igrc', 5, 'Table 1 row "< 500" [easa-amc-gm-2019-947/amc1-art11/s4.2.3/table-1].')]
        : [out(ind, 'low')],
    );
    const r = await assessIndicators(
      { ...BASE_INPUT, characteristic_dimension_m: 2, max_speed_ms: 30, population_band: '<500' },
      { retrieval: fakeRetrieval([CHUNKS.table1]), model, indicators: ['igrc'] },
    );
    const i = r.results.igrc!;
    expect(i.value).toBe(5);
    expect(i.confidence).toBe('calculated');
    expect(i.runs[0]).toMatchObject({ attempts: 2, value: 5 });
    expect(i.runs[0]?.errors[0]).toMatch(/value-mismatch/);
    expect(i.explanation).toMatch(/^Table 1 row "< 500"/);
    expect(i.calculation).toMatch(/Table 1 — Intrinsic ground risk class \(GRC\) determination \(p\. 24/);
    const request = model.calls[0]!.messages[1]!.content;
    expect(request).toContain("The value was derived deterministically from the regulation's tables or rules: 5.");
    expect(request).toContain(
      'Table cell: Table 1 — Intrinsic ground risk class (GRC) determination (p. 24, S.4.2.3) — row "< 500", column "3m / 35 m/s": "5"',
    );
  });
});
