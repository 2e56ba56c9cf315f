/**
 * One reading of the ground (SORA 2.5 Table 2, p. 26, and the EASA forms' grouping): the ground
 * environment gives the band when Table 2 has its descriptor; a band and an environment that
 * describe the same ground raise nothing; a real disagreement is said once, in words, with both
 * sources; a band left out is read from the environment and the indicators are computed.
 */
import { describe, expect, it } from 'vitest';
import {
  assessIndicators,
  checkCoherence,
  compareGroundAndBand,
  readGround,
  renderSummary,
  runCalculator,
  type InitialOperationInput,
} from '../../../src/core/indicators/index.js';
import { BASE_INPUT, CHUNKS, fakeRetrieval } from './helpers.js';

const RAW_ID = /sparsely_populated|assembly_of_people|controlled_ground_area|"<\d+"|"populated"/;

describe('ground environment → population density band (Table 2)', () => {
  it('reads "Sparsely populated area" as the "< 500" row, citing Table 2 and its page', () => {
    const g = readGround('sparsely_populated');
    expect(g.band).toBe('<500');
    expect(g.trace).toMatchObject({
      caption: expect.stringMatching(/^Table 2 — /),
      page: 26,
      row: '< 500',
      cell: 'Sparsely populated / Residential lightly populated',
    });
    // short, plain, and its source (document, table, page) stated once
    expect(g.statement).toMatch(/< 500 people\/km²/);
    expect(g.statement).toMatch(/Table 2, AMC & GM to Regulation \(EU\) 2019\/947, S\.4\.2\.4, p\. 26/);
    expect(g.statement.match(/p\. 26/g)).toHaveLength(1);
    expect(g.statement.length).toBeLessThan(200);
  });

  it('reads controlled ground and assemblies of people as their rows', () => {
    expect(readGround('controlled_ground_area').band).toBe('controlled');
    expect(readGround('assembly_of_people').band).toBe('>50000');
  });

  it('gives no band for "Populated area", which the forms print against three rows', () => {
    const g = readGround('populated');
    expect(g.band).toBeNull();
    expect(g.statement).toMatch(/up to 5 000, up to 50 000 and more than 50 000 people\/km²/);
    expect(g.statement).toMatch(/^Choose the population density band/);
    expect(g.statement).toMatch(/EASA Forms 208 and 209, pp\. 176–177 and 197/);
  });
});

describe('ground environment ↔ band agreement', () => {
  it('raises nothing for "Sparsely populated area" with "< 500" (Table 2\'s own row)', () => {
    expect(compareGroundAndBand('sparsely_populated', '<500')).toEqual({ kind: 'agree', message: null });
    const input: InitialOperationInput = { ...BASE_INPUT, ground_environment: 'sparsely_populated', population_band: '<500' };
    expect(checkCoherence({}, input)).toEqual([]);
  });

  it('raises nothing for the other rows Table 2 and the forms both give', () => {
    expect(compareGroundAndBand('controlled_ground_area', 'controlled').kind).toBe('agree');
    expect(compareGroundAndBand('assembly_of_people', '>50000').kind).toBe('agree');
    expect(compareGroundAndBand('populated', '<5000').kind).toBe('agree');
    expect(compareGroundAndBand('populated', '<50000').kind).toBe('agree');
  });

  it('says a real disagreement once, in words (labels, not identifiers), with both sources', () => {
    const input: InitialOperationInput = { ...BASE_INPUT, ground_environment: 'sparsely_populated', population_band: '<5000' };
    const flags = checkCoherence({}, input);
    expect(flags.map((f) => f.id)).toEqual(['ground-environment-vs-population-band']);
    const m = flags[0]!.message;
    expect(m).toMatch(/^"Sparsely populated area" and < 5 000 people\/km² describe different grounds/);
    expect(m).toMatch(/Table 2 puts "Sparsely populated" at < 500 people\/km² \(AMC & GM to Regulation \(EU\) 2019\/947, S\.4\.2\.4, p\. 26\)/);
    expect(m.match(/p\. 26/g)).toHaveLength(1);
    expect(m.length).toBeLessThan(260); // was about 480 characters
    expect(m).not.toMatch(RAW_ID);
  });

  it('flags "Populated area" with "< 500": both documents read "< 500" as sparsely populated', () => {
    const a = compareGroundAndBand('populated', '<500');
    expect(a.kind).toBe('disagree');
    expect(a.message).toMatch(/Table 2 calls < 500 people\/km² "Sparsely populated \/ Residential lightly populated" \(.*p\. 26\)/);
  });

  it('says where the documents themselves differ, as a note naming both', () => {
    const a = compareGroundAndBand('sparsely_populated', '<50');
    expect(a.kind).toBe('documents-differ');
    // the view labels it "The documents differ": the message does not say it again
    expect(a.message).not.toMatch(/documents differ/);
    expect(a.message).toMatch(/EASA Forms 208 and 209 allow this pair \(pp\. 176–177 and 197\)/);
    expect(a.message).toMatch(/Table 2 puts "Sparsely populated" at < 500 people\/km² \(.*p\. 26\)/);
    const flags = checkCoherence({}, { ...BASE_INPUT, ground_environment: 'sparsely_populated', population_band: '<50' });
    expect(flags).toEqual([expect.objectContaining({ id: 'ground-documents-differ', severity: 'note' })]);
    expect(flags[0]!.message).not.toMatch(RAW_ID);
  });

  it('flags a controlled ground area with a populated band, and a band of controlled ground under another environment', () => {
    expect(compareGroundAndBand('controlled_ground_area', '<500').kind).toBe('disagree');
    expect(compareGroundAndBand('sparsely_populated', 'controlled').kind).toBe('disagree');
    expect(compareGroundAndBand('assembly_of_people', '<5000').kind).toBe('disagree');
  });
});

describe('a band left out is read from the ground environment', () => {
  const noBand: InitialOperationInput = { ...BASE_INPUT, ground_environment: 'sparsely_populated', characteristic_dimension_m: 2, max_speed_ms: 30 };

  it('computes iGRC and final GRC with the Table 2 band, and the iGRC says so with the Table 2 cell first', () => {
    const calc = runCalculator(noBand);
    expect(calc.igrc).toMatchObject({ status: 'ok', value: { igrc: 5 } }); // Table 1: 3 m / 35 m/s column, < 500 row → 5
    expect(calc.finalGrc).toMatchObject({ status: 'ok', value: { finalGrc: 5 } });
    expect(calc.missing).toEqual({ igrc: [], final_grc: [], sail: ['residual_arc'] });
    expect(calc.igrc?.status === 'ok' && calc.igrc.trace[0]).toMatchObject({ caption: expect.stringMatching(/^Table 2 — /), page: 26, row: '< 500' });
    expect(calc.ground?.band).toBe('<500');
  });

  it('runs the default indicators with iGRC, final GRC and SAIL computed, and says where the band came from', async () => {
    const r = await assessIndicators({ ...noBand, residual_arc: 'b' }, { retrieval: fakeRetrieval([CHUNKS.table1]) });
    expect(r.results.igrc?.value).toBe(5);
    expect(r.results.final_grc?.value).toBe(5);
    expect(r.results.sail?.value).toBe('IV');
    expect(r.results.initial_ground_risk_orientation?.value).toBe('medium');
    expect(r.results.igrc?.explanation).toMatch(/Population density band read from the ground environment: < 500 people\/km² \(Table 2, .*p\. 26\)/);
    expect(r.coherence).toEqual([]);
    expect(renderSummary(r)).toContain('- Population density band: < 500 people/km² (not given; read from the ground environment with Table 2, p. 26)');
  });

  it('asks for the band when the environment is "Populated area", saying why', async () => {
    const r = await assessIndicators({ ...noBand, ground_environment: 'populated' }, { retrieval: fakeRetrieval([CHUNKS.table1]), indicators: ['igrc'] });
    expect(r.results.igrc?.value).toBeNull();
    expect(r.results.igrc?.missing).toEqual(['population_band']);
    expect(r.results.igrc?.notes.join(' ')).toMatch(/"Populated area" is not in Table 2/);
  });

  it('uses the band given over the environment', () => {
    const calc = runCalculator({ ...noBand, population_band: '<50' });
    expect(calc.ground).toBeNull();
    expect(calc.igrc).toMatchObject({ status: 'ok', value: { igrc: 4 } });
  });
});
