/** Behaviour of the calculator on the rules around the tables. */
import { describe, expect, it } from 'vitest';
import {
  allowedLevels,
  assessOperation,
  containmentFor,
  finalGrc,
  initialArc,
  intrinsicGrc,
  osoRobustness,
  sailFor,
  selectIgrcColumn,
  tmprFor,
  type AssessResult,
  type Computed,
} from '../../src/core/sora/index.js';

function expectOk<T>(r: AssessResult<T>): Computed<T> {
  if (r.status !== 'ok') throw new Error(`expected a value, got ${JSON.stringify(r)}`);
  return r;
}

describe('iGRC column choice', () => {
  it('takes the first column covering both the dimension and the speed (boundaries inclusive)', () => {
    expect(selectIgrcColumn(1, 25)).toBe(0);
    expect(selectIgrcColumn(0.5, 30)).toBe(1); // speed pushes a small UA right
    expect(selectIgrcColumn(2, 50)).toBe(2);
    expect(selectIgrcColumn(3, 35)).toBe(1);
    expect(selectIgrcColumn(3.01, 20)).toBe(2);
    expect(selectIgrcColumn(39, 200)).toBe(4);
    expect(selectIgrcColumn(10, 201)).toBeNull();
  });

  it('traces the cell with table caption, page, row and column as printed', () => {
    const r = expectOk(intrinsicGrc({ dimensionM: 2, maxSpeedMs: 50, population: '<500' }));
    expect(r.value.igrc).toBe(6);
    expect(r.trace).toEqual([
      expect.objectContaining({
        caption: 'Table 1 — Intrinsic ground risk class (GRC) determination',
        page: 24,
        row: '< 500',
        column: '8m / 75 m/s',
        cell: '6',
      }),
    ]);
  });
});

describe('small-UA rule (≤ 250 g and ≤ 25 m/s)', () => {
  it('gives iGRC 1 regardless of population density', () => {
    for (const population of ['<5', '<500', '<50000']) {
      const r = expectOk(intrinsicGrc({ dimensionM: 0.3, maxSpeedMs: 20, population, takeOffMassG: 250 }));
      expect(r.value.igrc).toBe(1);
      expect(r.value.smallUaRule).toBe(true);
      expect(r.trace[0]?.column).toContain('250 g');
    }
  });

  it('does not apply over assemblies of people, above 250 g, or above 25 m/s', () => {
    expect(expectOk(intrinsicGrc({ dimensionM: 0.3, maxSpeedMs: 20, population: '>50000', takeOffMassG: 200 })).value.igrc).toBe(7);
    expect(expectOk(intrinsicGrc({ dimensionM: 0.3, maxSpeedMs: 20, population: '<5000', takeOffMassG: 251 })).value.igrc).toBe(5);
    expect(expectOk(intrinsicGrc({ dimensionM: 0.3, maxSpeedMs: 26, population: '<5000', takeOffMassG: 200 })).value.igrc).toBe(6);
    expect(expectOk(intrinsicGrc({ dimensionM: 0.3, maxSpeedMs: 20, population: '<5000' })).value.igrc).toBe(5);
  });
});

describe('operations outside Table 1', () => {
  it('reports a UA larger than 40 m as not computable from the corpus (Annex F)', () => {
    const r = intrinsicGrc({ dimensionM: 45, maxSpeedMs: 60, population: '<5' });
    expect(r.status).toBe('unavailable');
    if (r.status !== 'unavailable') return;
    expect(r.reason).toMatch(/greater than 40 m/);
    expect(r.reason).toMatch(/Annex F/);
    expect(assessOperation({ dimension_m: 45, max_speed_ms: 60, population: '<5', residual_arc: 'b' }).summary).toEqual({
      igrc: null,
      final_grc: null,
      sail: null,
    });
  });

  it('reports the "Not part of SORA" cells as outside the SORA with their trace', () => {
    const r = intrinsicGrc({ dimensionM: 5, maxSpeedMs: 50, population: '>50000' });
    expect(r.status).toBe('outside-sora');
    if (r.status !== 'outside-sora') return;
    expect(r.trace[0]).toMatchObject({ row: '> 50 000', column: '8m / 75 m/s', cell: 'Not part of SORA', page: 24 });
    expect(expectOk(intrinsicGrc({ dimensionM: 3, maxSpeedMs: 35, population: '>50000' })).value.igrc).toBe(8);
  });
});

describe('final GRC', () => {
  it('applies Table 5 credits in the order M1(A), M1(B), M1(C), M2 whatever the input order', () => {
    const r = expectOk(finalGrc({ igrc: 7, columnIndex: 2, mitigations: { m2: 'high', m1c: 'low', m1a: 'low' } }));
    expect(r.value.finalGrc).toBe(3);
    expect(r.trace.map((t) => t.row.split(' ')[0])).toEqual(['M1(A)', 'M1(C)', 'M2']);
    expect(r.trace.map((t) => t.cell)).toEqual(['–1', '–1', '–2']);
    expect(r.trace.every((t) => t.page === 29)).toBe(true);
  });

  it('reads the printed "–230" as –2 with footnote 30', () => {
    const r = expectOk(finalGrc({ igrc: 6, columnIndex: 1, mitigations: { m1b: 'high' } }));
    expect(r.value.finalGrc).toBe(4);
    expect(r.trace[0]?.cell).toBe('–230');
    expect(r.notes.join(' ')).toMatch(/footnote 30/);
  });

  it('stops at the controlled-ground-area value of the same column (not at 1)', () => {
    // 8m column: controlled ground area = 2.
    const r = expectOk(finalGrc({ igrc: 5, columnIndex: 2, mitigations: { m1a: 'low', m1b: 'high', m1c: 'low' } }));
    expect(r.value.finalGrc).toBe(2);
    expect(r.value.floorApplied).toBe(true);
    expect(r.trace).toEqual(
      expect.arrayContaining([
        expect.objectContaining({ caption: 'Table B.1 — Basic principles', page: 84, row: '#8' }),
        expect.objectContaining({ section: 'S.4.3.4(f)', page: 30 }),
        expect.objectContaining({ caption: 'Table 1 — Intrinsic ground risk class (GRC) determination', row: 'Controlled ground area', cell: '2' }),
      ]),
    );
    // 40 m column: controlled ground area = 3.
    expect(expectOk(finalGrc({ igrc: 6, columnIndex: 4, mitigations: { m1a: 'medium', m2: 'high' } })).value.finalGrc).toBe(3);
  });

  it('applies the floor after M2 too (Annex B principle #8)', () => {
    const r = expectOk(finalGrc({ igrc: 1, columnIndex: 1, mitigations: { m2: 'high' } }));
    expect(r.value.finalGrc).toBe(1);
    expect(r.trace.some((t) => t.row === '#8')).toBe(true);
  });

  it('rejects "n/a" cells and unknown mitigations, naming the field and the allowed values', () => {
    const r = finalGrc({ igrc: 5, columnIndex: 1, mitigations: { m1a: 'high', m1b: 'low', m1c: 'medium', m2: 'low', m3: 'high' } as never });
    expect(r.status).toBe('invalid');
    if (r.status !== 'invalid') return;
    const byField = Object.fromEntries(r.errors.map((e) => [e.field, e.allowed]));
    expect(byField).toEqual({
      'mitigations.m1a': ['none', 'low', 'medium'],
      'mitigations.m1b': ['none', 'medium', 'high'],
      'mitigations.m1c': ['none', 'low'],
      'mitigations.m2': ['none', 'medium', 'high'],
      'mitigations.m3': ['m1a', 'm1b', 'm1c', 'm2'],
    });
    expect(r.errors[0]?.message).toMatch(/n\/a/);
    expect(allowedLevels('m1c')).toEqual(['none', 'low']);
  });

  it('flags M1(A) medium combined with M1(B) (Annex B, B.2) without refusing to compute', () => {
    const r = expectOk(finalGrc({ igrc: 3, columnIndex: 0, mitigations: { m1a: 'medium', m1b: 'high' } }));
    expect(r.value.finalGrc).toBe(1);
    expect(r.notes.join(' ')).toMatch(/cannot be combined/);
  });

  it('marks a final GRC above 7 as outside the SORA, and the SAIL table gives no SAIL', () => {
    const a = assessOperation({ dimension_m: 15, max_speed_ms: 100, population: '<50000', residual_arc: 'b' });
    expect(a.summary).toEqual({ igrc: 9, final_grc: 9, sail: null });
    expect(a.sail?.status).toBe('outside-sora');
    expect(a.trace.at(-1)).toMatchObject({ caption: 'Table 3 — SAIL determination', row: '>7', page: 38 });
    expect(a.notes.join(' ')).toMatch(/certified/);
  });
});

describe('invalid inputs', () => {
  it('lists every bad field with its allowed values', () => {
    const r = intrinsicGrc({ dimensionM: -1, maxSpeedMs: Number.NaN, population: 'lots' });
    expect(r.status).toBe('invalid');
    if (r.status !== 'invalid') return;
    expect(r.errors.map((e) => e.field)).toEqual(['dimension_m', 'max_speed_ms', 'population']);
    expect(r.errors[2]?.allowed).toEqual(['controlled', '<5', '<50', '<500', '<5000', '<50000', '>50000']);
    const s = sailFor({ finalGrc: 3, residualArc: 'e' });
    expect(s.status === 'invalid' && s.errors[0]?.allowed).toEqual(['a', 'b', 'c', 'd']);
  });

  it('accepts common spellings of bands and ARCs', () => {
    expect(expectOk(intrinsicGrc({ dimensionM: 1, maxSpeedMs: 20, population: '< 5 000' })).value.band).toBe('<5000');
    expect(expectOk(sailFor({ finalGrc: 4, residualArc: 'ARC-c' })).value.sail).toBe('IV');
  });
});

describe('SAIL, TMPR, containment, OSO robustness and initial ARC', () => {
  it('reads the SAIL table (captioned "Table 3") with the "≤2" row', () => {
    const r = expectOk(sailFor({ finalGrc: 1, residualArc: 'd' }));
    expect(r.value.sail).toBe('VI');
    expect(r.trace[0]).toMatchObject({ caption: 'Table 3 — SAIL determination', row: '≤2', column: 'd', cell: 'VI', page: 38 });
  });

  it('gives the TMPR of Table 6', () => {
    expect(expectOk(tmprFor('c')).value.tmpr).toBe('Medium');
    expect(expectOk(tmprFor('ARC-a')).value.tmpr).toBe('No requirement');
    expect(expectOk(tmprFor('d')).trace[0]).toMatchObject({ row: 'ARC-d', cell: 'High', page: 35 });
  });

  it('picks the containment column that satisfies both the density and the assembly limits', () => {
    const base = { dimensionM: 1, maxSpeedMs: 20, sail: 'II', adjacentAreaDensity: 10_000 };
    expect(expectOk(containmentFor({ ...base, largestAssemblyWithin1Km: 0 })).value.robustness).toBe('Low');
    expect(expectOk(containmentFor({ ...base, largestAssemblyWithin1Km: 100_000 })).value.robustness).toBe('Medium');
    expect(expectOk(containmentFor({ ...base, largestAssemblyWithin1Km: 500_000 })).value.robustness).toBe('High');
    const three = { dimensionM: 3, maxSpeedMs: 30, sail: 'I', largestAssemblyWithin1Km: 0, shelterApplicable: false };
    expect(expectOk(containmentFor({ ...three, adjacentAreaDensity: 300 })).value.robustness).toBe('Low');
    const r = expectOk(containmentFor({ ...three, adjacentAreaDensity: 3_000 }));
    expect(r.value.robustness).toBe('Medium');
    expect(r.trace[0]).toMatchObject({ caption: expect.stringMatching(/^Table 10 /), row: 'I & II', page: 40 });
  });

  it('reports containment "Out of scope" cells, the missing shelter choice and the < 250 g rule', () => {
    expect(containmentFor({ dimensionM: 30, maxSpeedMs: 150, sail: 'I', adjacentAreaDensity: 100, largestAssemblyWithin1Km: 0 }).status).toBe('outside-sora');
    const m = containmentFor({ dimensionM: 2, maxSpeedMs: 30, sail: 'I', adjacentAreaDensity: 100, largestAssemblyWithin1Km: 0 });
    expect(m.status === 'invalid' && m.errors[0]?.field).toBe('shelter_applicable');
    const tiny = expectOk(
      containmentFor({ dimensionM: 0.2, maxSpeedMs: 15, sail: 'II', adjacentAreaDensity: 40_000, largestAssemblyWithin1Km: 1e6, takeOffMassG: 200 }),
    );
    expect(tiny.value.robustness).toBe('Low');
    expect(
      containmentFor({ dimensionM: 1, maxSpeedMs: 20, sail: 'I', adjacentAreaDensity: 1, largestAssemblyWithin1Km: 0, shelterApplicable: false }).status,
    ).toBe('unavailable');
  });

  it('gives OSO robustness per SAIL, with the glued "MH" cells split', () => {
    const iv = expectOk(osoRobustness('IV', ['OSO #03', 3, '#9']));
    expect(iv.value.map((o) => [o.id, o.robustness])).toEqual([
      ['OSO #03', 'M'],
      ['OSO #09', 'M'],
    ]);
    expect(expectOk(osoRobustness('SAIL V', ['3'])).value[0]?.robustness).toBe('H');
    const all = expectOk(osoRobustness(1));
    expect(all.value).toHaveLength(17);
    expect(all.value.filter((o) => o.robustness === 'NR').map((o) => o.id)).toContain('OSO #24');
    expect(expectOk(osoRobustness('VI', ['OSO #24'])).trace[0]?.page).toBe(45);
    const bad = osoRobustness('II', ['OSO #10']);
    expect(bad.status === 'invalid' && bad.errors[0]?.allowed).toHaveLength(17);
  });

  it('does not guess the initial ARC: Figure 6 is not in the text corpus', () => {
    const r = initialArc();
    expect(r.available).toBe(false);
    expect(r.status).toBe('unavailable');
    expect(r.reason).toMatch(/^The initial ARC decision tree is Figure 6 in the source and is not contained in the text corpus/);
  });
});
