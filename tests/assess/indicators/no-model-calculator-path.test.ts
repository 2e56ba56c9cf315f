/** Without a model: calculator values with table citations, corpus rules, and evidence-only rationale. */
import { describe, expect, it } from 'vitest';
import { assessIndicators, defaultIndicators, type InitialOperationInput } from '../../../src/core/indicators/index.js';
import { BASE_INPUT, CHUNKS, fakeRetrieval } from './helpers.js';

// op-16 of the operations evaluation set: iGRC 5, final GRC 3, SAIL IV.
const SORA_INPUT: InitialOperationInput = {
  ...BASE_INPUT,
  visual_mode: 'BVLOS',
  ground_environment: 'populated',
  characteristic_dimension_m: 3,
  max_speed_ms: 34,
  population_band: '<500',
  mitigations: { m2: 'high' },
  residual_arc: 'c',
};

describe('no-model path', () => {
  it('adds iGRC, final GRC and SAIL to the default indicators when the SORA inputs allow them', () => {
    expect(defaultIndicators(SORA_INPUT)).toEqual([
      'likely_regulatory_pathway',
      'initial_ground_risk_orientation',
      'initial_air_risk_orientation',
      'expected_assessment_depth',
      'igrc',
      'final_grc',
      'sail',
    ]);
    expect(defaultIndicators({ ...SORA_INPUT, residual_arc: undefined })).not.toContain('sail');
  });

  it('returns calculator-backed iGRC / final GRC / SAIL with the table cells they were read from', async () => {
    const r = await assessIndicators(SORA_INPUT, { retrieval: fakeRetrieval([CHUNKS.table1]) });
    const { igrc, final_grc, sail } = r.results;
    expect(igrc).toMatchObject({ value: 5, confidence: 'calculated', consistency: null, runs: [] });
    expect(final_grc).toMatchObject({ value: 3, confidence: 'calculated' });
    expect(sail).toMatchObject({ value: 'IV', valueLabel: 'SAIL IV', confidence: 'calculated' });
    expect(igrc?.trace).toEqual([
      expect.objectContaining({
        caption: 'Table 1 — Intrinsic ground risk class (GRC) determination',
        page: 24,
        row: '< 500',
        column: '3m / 35 m/s',
        cell: '5',
      }),
    ]);
    expect(final_grc?.trace.map((t) => t.caption)).toContain('Table 5 — Mitigations for the determination of the final GRC');
    expect(sail?.trace).toEqual([expect.objectContaining({ caption: 'Table 3 — SAIL determination', page: 38, row: '3', column: 'c', cell: 'IV' })]);
    expect(sail?.explanation).toMatch(/^SAIL IV, read from the tables: Table 3 — SAIL determination \(p\. 38, S\.4\.7\.3\)/);
    expect(igrc?.sources[0]?.id).toBe(CHUNKS.table1.id);
  });

  it('frames a value on a Table 1 column boundary as conditional', async () => {
    const r = await assessIndicators(SORA_INPUT, { retrieval: fakeRetrieval([CHUNKS.table1]), indicators: ['igrc'] });
    expect(r.results.igrc?.conditional).toBe(true);
    expect(r.results.igrc?.conditionalReasons[0]).toMatch(/exactly the limit of the Table 1 column "3m"/);
  });

  it('derives the ground orientation from the computed iGRC, saying the mapping is a convention', async () => {
    const r = await assessIndicators(SORA_INPUT, { retrieval: fakeRetrieval([CHUNKS.table1]), indicators: ['initial_ground_risk_orientation'] });
    const g = r.results.initial_ground_risk_orientation!;
    expect(g).toMatchObject({ value: 'medium', confidence: 'calculated' });
    expect(g.explanation).toMatch(/intrinsic GRC is 5 .*not a regulatory category/);
  });

  it('gives no value and an evidence-only rationale where no table or rule decides', async () => {
    const r = await assessIndicators(BASE_INPUT, { retrieval: fakeRetrieval([CHUNKS.before, CHUNKS.pdraS01]) });
    for (const name of ['likely_regulatory_pathway', 'initial_air_risk_orientation', 'expected_assessment_depth', 'initial_ground_risk_orientation'] as const) {
      const x = r.results[name]!;
      expect(x.value, name).toBeNull();
      expect(x.confidence, name).toBe('evidence-only');
      expect(x.explanation, name).toContain('• S.3.2 Before starting the SORA process (page 19): Before starting');
      // titles and pages for people; the passage ids stay in the result's sources (and the export), not in the text
      expect(x.explanation, name).not.toContain(CHUNKS.before.id);
      expect(
        x.sources.map((s) => s.id),
        name,
      ).toContain(CHUNKS.before.id);
      expect(x.explanation, name).toContain('no value is inferred');
    }
    expect(r.results.initial_air_risk_orientation?.explanation).toMatch(/Figure 6/);
    expect(r.results.initial_ground_risk_orientation?.clarification).toMatch(/please provide: Maximum characteristic dimension/);
    expect(r.model).toBeNull();
  });

  it('applies the atypical-airspace rule of S.4.4.4 (ARC-a) as a conditional, cited value', async () => {
    const r = await assessIndicators(
      { ...BASE_INPUT, airspace_type: 'atypical_segregated' },
      { retrieval: fakeRetrieval([CHUNKS.atypical]), indicators: ['initial_air_risk_orientation'] },
    );
    const a = r.results.initial_air_risk_orientation!;
    expect(a).toMatchObject({ value: 'very_low', confidence: 'calculated', conditional: true });
    expect(a.trace).toEqual([expect.objectContaining({ section: 'S.4.4.4', page: 32 })]);
  });

  it('points to the ‘certified’ category when the tables put the operation outside the SORA', async () => {
    const r = await assessIndicators(
      { ...BASE_INPUT, ground_environment: 'assembly_of_people', characteristic_dimension_m: 5, max_speed_ms: 50, population_band: '>50000' },
      { retrieval: fakeRetrieval([CHUNKS.table1]), indicators: ['likely_regulatory_pathway', 'igrc', 'initial_ground_risk_orientation'] },
    );
    expect(r.results.likely_regulatory_pathway).toMatchObject({ value: 'certified', confidence: 'calculated', conditional: true });
    expect(r.results.likely_regulatory_pathway?.trace[0]).toMatchObject({ cell: 'Not part of SORA' });
    expect(r.results.igrc).toMatchObject({ value: null, confidence: 'evidence-only' });
    expect(r.results.igrc?.explanation).toMatch(/Outside the SORA/);
    expect(r.results.initial_ground_risk_orientation).toMatchObject({ value: 'high', confidence: 'calculated' });
  });

  it('says which inputs a requested calculated indicator still needs', async () => {
    // "Populated area" spans several Table 1 rows, so the band is needed (a sparsely populated area would give it, Table 2)
    const r = await assessIndicators(
      { ...BASE_INPUT, ground_environment: 'populated', characteristic_dimension_m: 1 },
      { retrieval: fakeRetrieval([CHUNKS.table1]), indicators: ['sail'] },
    );
    expect(r.results.sail).toMatchObject({ value: null, missing: ['max_speed_ms', 'population_band', 'residual_arc'] });
    expect(r.results.sail?.clarification).toBe('To give the SAIL, please provide: Maximum speed, Population density band, Residual ARC.');
  });
});
