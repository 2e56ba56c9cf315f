/** Operation parameters read from free text: units, density words (Table 2), and what is left unread. */
import { describe, expect, it } from 'vitest';
import { formatMass } from '../../src/core/sora/units';
import { extractOperation, mergeParams } from '../../src/core/sora/extract.js';
import { runCalc } from '../../src/core/sora/message-calc.js';
import { runSoraChain } from '../../src/core/sora/chain.js';
import { assessOperation } from '../../src/core/sora/operation.js';

const p = (text: string) => extractOperation(text).params;

describe('lengths, speeds and masses in common units', () => {
  it('converts sizes written in cm, mm, feet, inches and words to metres', () => {
    expect(p('a quadcopter 120 cm across, 10 m/s').dimensionM).toBe(1.2);
    expect(p('a 6 ft wingspan glider').dimensionM).toBeCloseTo(1.829, 3);
    expect(p('rotor diameter of 30 inches').dimensionM).toBeCloseTo(0.762, 3);
    expect(p('a two-metre fixed wing').dimensionM).toBe(2);
    expect(p('frame of 450 mm').dimensionM).toBe(0.45);
  });

  it('does not take a height, a distance or a speed for the size', () => {
    expect(p('flying at 400 ft over a field').dimensionM).toBeUndefined();
    expect(p('a 1 m drone at 120 m height').dimensionM).toBe(1);
    expect(p('within 500 m of the pilot, 2 m wingspan').dimensionM).toBe(2);
    expect(p('cruising at 15 metres per second').dimensionM).toBeUndefined();
    expect(p('cruising at 15 metres per second').maxSpeedMs).toBe(15);
  });

  it('converts km/h, mph and knots to m/s and prefers the maximum speed', () => {
    expect(p('max 72 km/h').maxSpeedMs).toBe(20);
    expect(p('top speed 45 mph').maxSpeedMs).toBeCloseTo(20.12, 2);
    expect(p('40 knots').maxSpeedMs).toBeCloseTo(20.58, 2);
    const two = extractOperation('cruise 12 m/s, maximum 22 m/s');
    expect(two.params.maxSpeedMs).toBe(22);
    expect(two.notes.join(' ')).toMatch(/maximum speed/);
  });

  it('reads masses in g, kg and lb, but not a "4G" link', () => {
    expect(p('MTOM 1.5 kg').massG).toBe(1500);
    expect(p('a 249 g drone').massG).toBe(249);
    expect(p('2 lb payload drone').massG).toBe(907);
    expect(p('C2 link over 4G').massG).toBeUndefined();
  });

  it('reads a mass back as people write it: grams below 1 kg, kilograms from there (issue 35, item 6)', () => {
    expect(formatMass(249)).toBe('249 g');
    expect(formatMass(20000)).toBe('20 kg');
    expect(formatMass(1500)).toBe('1.5 kg');
    expect(formatMass(907)).toBe('907 g');
    expect(extractOperation('iGRC of a 20 kg drone').readings).toContain('Take-off mass 20 kg (from "20 kg")');
  });
});

describe('population density in numbers', () => {
  it('reads densities with thousands separators, per km² or per square mile', () => {
    expect(p('over 1,200 people per km²').population).toBe('<5000');
    expect(p('12 000 inhabitants/km2').population).toBe('<50000');
    const mile = extractOperation('about 300 people per square mile');
    expect(mile.params.population).toBe('<500');
    expect(mile.readings.join(' ')).toMatch(/115\.8 people\/km²/);
  });

  it('reads band expressions and says how "up to" is read', () => {
    expect(p('fewer than 50 people/km2').population).toBe('<50');
    const up = extractOperation('up to 500 people per km²');
    expect(up.params.population).toBe('<500');
    expect(up.notes.join(' ')).toMatch(/up to 500/);
  });
});

describe('population density in words (SORA 2.5 Table 2, p. 26)', () => {
  it('maps "remote area" to the < 5 row and cites Table 2', () => {
    const ex = extractOperation('iGRC for a 0.8 m drone at 20 m/s over a remote area');
    expect(ex.params.population).toBe('<5');
    expect(ex.params.populationDescriptor?.trace).toMatchObject({ caption: expect.stringMatching(/^Table 2 — /), page: 26, row: '<5' });
    expect(ex.readings.join(' ')).toMatch(/Table 2 \(p\. 26\)/);
  });

  it('does not read "remote pilot" or "remote identification" as a density', () => {
    expect(p('the remote pilot of a 1 m drone').population).toBeUndefined();
    expect(p('flying in remote identification mode').population).toBeUndefined();
  });

  it('maps "sparsely populated" to < 500 and says that the EASA forms group it with up to 5 / 50 / 500', () => {
    const ex = extractOperation('a 1.2 m quadcopter at 15 m/s over a sparsely populated area');
    expect(ex.params.population).toBe('<500');
    const note = ex.notes.join(' ');
    expect(note).toMatch(/documents disagree/);
    expect(note).toMatch(/Form 208/);
    expect(note).toMatch(/Form 209/);
    expect(note).toMatch(/"up to 5", "up to 50", "up to 500"/);
  });

  it('gives no single band for "populated area" and shows the iGRC of each row it may mean', () => {
    const ex = extractOperation('iGRC of a 1.2 m quadcopter at 15 m/s over a populated area?');
    expect(ex.params.population).toBeUndefined();
    expect(ex.params.populationCandidates).toEqual(['<5000', '<50000', '>50000']);
    const out = runCalc(ex.targets, ex.params, ex.readings, ex.notes);
    expect(out.items[0]).toMatchObject({ target: 'igrc', status: 'missing' });
    // Table 1, column 3m / 35 m/s: < 5 000 → 6, < 50 000 → 7, > 50 000 → 8
    expect(out.items[0]!.notes.join(' ')).toMatch(/<5000 people\/km² → iGRC 6; <50000 people\/km² → iGRC 7; >50000 people\/km² → iGRC 8/);
  });

  it('reads other Table 2 descriptors and description words', () => {
    expect(p('a suburban neighbourhood').population).toBe('<5000');
    expect(p('over forests').population).toBe('<5');
    expect(p('downtown').population).toBe('<50000');
    expect(p('lightly populated farmland').population).toBe('<50');
    expect(p('an extremely remote plateau').population).toBe('controlled');
    expect(p('over assemblies of people').population).toBe('>50000');
  });

  it('uses the highest density named (S.4.2.3(e)) and a stated number over the words', () => {
    const two = extractOperation('from a remote area into a suburban area');
    expect(two.params.population).toBe('<5000');
    expect(two.notes.join(' ')).toMatch(/highest population density/);
    const both = extractOperation('a remote area with 800 people/km²');
    expect(both.params.population).toBe('<5000');
    expect(both.notes.join(' ')).toMatch(/the number you gave is used/);
  });

  it('computes the iGRC from a descriptor with the Table 2 cell first in the trace', () => {
    const ex = extractOperation('What is the iGRC of a 1.2 m quadcopter flying 15 m/s over a sparsely populated area?');
    const out = runCalc(ex.targets, ex.params, ex.readings, ex.notes);
    const igrc = out.items.find((i) => i.target === 'igrc')!;
    expect(igrc).toMatchObject({ status: 'ok', value: '5' }); // Table 1: < 500 row, 3m / 35 m/s column
    expect(igrc.trace.map((t) => t.caption.split(' — ')[0])).toEqual(['Table 2', 'Table 1']);
  });

  it('lets a follow-up replace a worded population by a number', () => {
    const first = extractOperation('1 m drone, 20 m/s, over a populated area');
    const next = extractOperation('and with 300 people/km²?');
    const merged = mergeParams(first.params, next.params);
    expect(merged.population).toBe('<500');
    expect(merged.populationCandidates).toBeUndefined();
    expect(merged.populationDescriptor).toBeUndefined();
  });
});

describe('one SORA chain', () => {
  it('gives the same iGRC, final GRC and SAIL to the operations evaluation and to the chat calculator', () => {
    const op = assessOperation({ dimension_m: 2.5, max_speed_ms: 30, population: '<5000', mitigations: { m1a: 'low' }, residual_arc: 'b' });
    const ex = extractOperation('2.5 m wingspan, 30 m/s, over 2 000 people/km², M1(A) low, ARC-b: SAIL, final GRC and iGRC?');
    const out = runCalc(ex.targets, ex.params);
    const value = (t: string) => out.items.find((i) => i.target === t)!.value;
    expect(value('igrc')).toBe(String(op.summary.igrc));
    expect(value('final_grc')).toBe(String(op.summary.final_grc));
    expect(value('sail')).toBe(`SAIL ${op.summary.sail}`);
  });

  it('says which inputs each step still needs', () => {
    const c = runSoraChain({ dimensionM: 1, residualArc: 'c' });
    expect(c.igrc).toBeNull();
    expect(c.missing.igrc).toEqual(['speed', 'population']);
    expect(c.missing.sail).toEqual(['speed', 'population']);
    const stated = runSoraChain({ statedFinalGrc: 4, residualArc: 'c' });
    expect(stated.summary.sail).toBe('IV');
    expect(stated.missing.sail).toEqual([]);
  });
});
