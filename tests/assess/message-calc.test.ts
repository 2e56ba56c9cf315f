import { describe, expect, it } from 'vitest';
import { bandForDensity, extractOperation as extractCalc, mergeParams } from '../../src/core/sora/extract';
import { runCalc } from '../../src/core/sora/message-calc';

describe('Ask calculator: parameter extraction', () => {
  it('reads dimension, speed, density, ARC and mitigations', () => {
    const ex = extractCalc('What SAIL for my drone with a 2 m wingspan at 30 m/s over 400 people/km², ARC-c, M2 medium?');
    expect(ex.params).toMatchObject({ dimensionM: 2, maxSpeedMs: 30, population: '<500', residualArc: 'c', mitigations: { m2: 'medium' } });
    expect(ex.targets).toEqual(['sail']);
    expect(ex.readings.length).toBeGreaterThanOrEqual(5);
  });

  it('converts units and does not take heights for the dimension', () => {
    const ex = extractCalc('iGRC for a 90 cm quadcopter, max 72 km/h, flying at 120 m height, controlled ground area');
    expect(ex.params.dimensionM).toBe(0.9);
    expect(ex.params.maxSpeedMs).toBe(20);
    expect(ex.params.population).toBe('controlled');
    expect(ex.targets).toEqual(['igrc']);
  });

  it('leaves an ambiguous length unread rather than guessing', () => {
    const ex = extractCalc('iGRC for a drone 3 m at 100 m altitude');
    expect(ex.params.dimensionM).toBe(3);
    const amb = extractCalc('iGRC with 3 m and 5 m');
    expect(amb.params.dimensionM).toBeUndefined();
  });

  it('reads stated GRC, SAIL and OSO numbers as inputs', () => {
    expect(extractCalc('SAIL for GRC 4 and ARC-b?')).toMatchObject({ params: { grc: 4, residualArc: 'b' }, targets: ['sail'] });
    const oso = extractCalc('What robustness does OSO #05 need at SAIL III?');
    expect(oso.params).toMatchObject({ sail: 'III', osoIds: ['05'] });
    expect(oso.targets).toEqual(['oso']);
  });

  it('maps densities to Table 1 bands', () => {
    expect(bandForDensity(4)).toBe('<5');
    expect(bandForDensity(50)).toBe('<500');
    expect(bandForDensity(60000)).toBe('>50000');
  });
});

describe('Ask calculator: results', () => {
  it('computes SAIL with the table cells it was read from', () => {
    const ex = extractCalc('SAIL for GRC 4 and ARC-c?');
    const out = runCalc(ex.targets, ex.params, ex.readings);
    const sail = out.items[0]!;
    expect(sail.status).toBe('ok');
    expect(sail.value).toMatch(/^SAIL (I|II|III|IV|V|VI)$/);
    expect(sail.trace[0]!.caption).toMatch(/Table/);
    expect(sail.trace[0]!.page).toBeGreaterThan(0);
  });

  it('says which inputs are missing', () => {
    const ex = extractCalc('What SAIL do we get for ARC-c?');
    const out = runCalc(ex.targets, ex.params);
    expect(out.items[0]).toMatchObject({ target: 'sail', status: 'missing' });
    expect(out.items[0]!.missing.join(' ')).toMatch(/final GRC/);
    const igrc = runCalc(['igrc'], { dimensionM: 1 });
    expect(igrc.items[0]!.missing).toHaveLength(2);
  });

  it('chains iGRC → final GRC → SAIL → OSO from operation parameters', () => {
    const p = { dimensionM: 1, maxSpeedMs: 25, population: '<50' as const, residualArc: 'b' as const, mitigations: { m2: 'medium' as const } };
    const out = runCalc(['igrc', 'final_grc', 'sail', 'oso'], p);
    expect(out.items.map((i) => i.status)).toEqual(['ok', 'ok', 'ok', 'ok']);
    const igrc = Number(out.items[0]!.value);
    const fin = Number(out.items[1]!.value);
    expect(fin).toBeLessThanOrEqual(igrc);
    expect(out.items[2]!.trace.length).toBeGreaterThan(1);
    expect(out.items[3]!.value).toContain('OSO #');
  });

  it('lets a follow-up override one parameter', () => {
    const first = extractCalc('SAIL for GRC 4 and ARC-c?');
    const next = extractCalc('and for ARC-d?');
    const merged = mergeParams(first.params, next.params);
    expect(merged).toMatchObject({ grc: 4, residualArc: 'd' });
  });
});
