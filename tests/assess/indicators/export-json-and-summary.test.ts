/** Export: JSON document and printable summary. */
import { beforeAll, describe, expect, it } from 'vitest';
import {
  assessIndicators,
  DISCLAIMER,
  renderSummary,
  serializeAssessment,
  toExportDocument,
  type AssessmentResult,
} from '../../../src/core/indicators/index.js';
import { BASE_INPUT, CHUNKS, fakeRetrieval, FIXED_NOW, out, scriptedModel } from './helpers.js';

let result: AssessmentResult;

beforeAll(async () => {
  const model = scriptedModel((ind) =>
    ind === 'likely_regulatory_pathway'
      ? [out(ind, 'specific_pdra'), out(ind, 'specific_sora'), out(ind, 'specific_pdra')]
      : ind === 'expected_assessment_depth'
        ? [out(ind, 'full_sora')]
        : ind === 'initial_air_risk_orientation'
          ? [new Error('down')]
          : ind === 'igrc' || ind === 'final_grc'
            ? [out(ind, 3, 'Table 1 cell [easa-amc-gm-2019-947/amc1-art11/s4.2.3/table-1].')]
            : ind === 'sail'
              ? [out(ind, 'II', 'SAIL table.')]
              : [out(ind, 'low', 'Explained from [easa-amc-gm-2019-947/amc1-art11/s4.2.3/table-1].')],
  );
  result = await assessIndicators(
    { ...BASE_INPUT, characteristic_dimension_m: 1, max_speed_ms: 20, population_band: '<50', residual_arc: 'b' },
    { retrieval: fakeRetrieval([CHUNKS.table1, CHUNKS.before]), model, runs: 3, now: FIXED_NOW },
  );
});

describe('JSON export', () => {
  it('carries the schema version, inputs, every requested result, sources, documents and the disclaimer', () => {
    const doc = JSON.parse(serializeAssessment(result)) as ReturnType<typeof toExportDocument>;
    expect(doc.schema).toBe('skycite.indicators');
    expect(doc.schemaVersion).toBe(1);
    expect(doc.generatedAt).toBe('2025-01-02T03:04:05.000Z');
    expect(doc.disclaimer).toBe(DISCLAIMER);
    expect(doc.inputs).toEqual(result.input);
    expect(Object.keys(doc.results)).toEqual([...result.order]);
    expect(doc.results.sail).toMatchObject({
      value: 'II',
      confidence: 'calculated',
      trace: [expect.objectContaining({ caption: 'Table 3 — SAIL determination' })],
    });
    expect(doc.results.likely_regulatory_pathway).toMatchObject({ value: 'specific_pdra', consistency: 2 / 3, sources: [CHUNKS.table1.id, CHUNKS.before.id] });
    expect(doc.results.initial_air_risk_orientation?.error).toMatchObject({ type: 'IndicatorModelError', kind: 'unavailable' });
    expect(doc.sources.map((s) => s.id)).toEqual([CHUNKS.table1.id, CHUNKS.before.id]);
    expect(doc.documents['easa-amc-gm-2019-947']).toMatchObject({ edition: expect.stringMatching(/Amendment 3/) });
    expect(doc.model).toEqual({ id: 'test-double', runs: 3, temperature: 0.2, top_p: 0.9 });
  });
});

describe('printable summary', () => {
  it('lists inputs, a table of indicators, explanations with table cells, coherence and documents', () => {
    const md = renderSummary(result);
    expect(md).toMatch(/^# SkyCite — initial operation indicators\n/);
    expect(md).toContain(`> ${DISCLAIMER}`);
    expect(md).toContain('- VLOS / BVLOS: VLOS (visual line of sight)');
    expect(md).toContain('| Likely regulatory pathway | Specific — PDRA | model majority vote | 67 % |');
    expect(md).toContain('| SAIL | SAIL II (conditional) | calculated from the tables | — |'); // 1 m is a Table 1 column limit
    expect(md).toContain('- Condition: The characteristic dimension (1 m) is exactly the limit of the Table 1 column "1m"');
    expect(md).not.toContain('read from the tables: .');
    expect(md).toContain('| Initial air risk orientation | no value | evidence only, no value inferred — model error | — |');
    expect(md).toContain('- Table 3 — SAIL determination (p. 38, S.4.7.3) — row "3", column "b": "II" → SAIL II');
    expect(md).toContain('## Coherence checks');
    // each check's severity in words, never its identifier
    expect(md).toMatch(/^- \*\*(Contradiction|Check this|The documents differ)\*\* \(/m);
    expect(md).not.toMatch(/^- \*\*(contradiction|warning|note)\*\*/m);
    expect(md).toMatch(/- easa-amc-gm-2019-947: EASA, AMC & GM to Regulation \(EU\) 2019\/947/);
  });

  it('writes its time as people read it, never as a raw ISO string (issue 35, item 6)', () => {
    const md = renderSummary({ ...result, generatedAt: '2026-11-25T20:05:41.123Z' });
    expect(md).toContain('Generated 2026-11-25 20:05 UTC');
    expect(md).not.toMatch(/\d{4}-\d{2}-\d{2}T/);
    expect(renderSummary(result, undefined, () => '25 Nov 2026, 21:05 CET')).toContain('Generated 25 Nov 2026, 21:05 CET');
  });
});
