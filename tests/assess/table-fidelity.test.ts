/**
 * Every typed table is re-read from source.txt — located by its caption as printed, rows read from
 * the lines above the caption — and compared cell by cell; pages are checked by counting footers.
 */
import { beforeAll, describe, expect, it } from 'vitest';
import {
  CONTAINMENT_TABLES,
  CONTROLLED_AREA_FLOOR_PRINCIPLE,
  GRC_MITIGATIONS_TABLE,
  IGRC_TABLE,
  M1_FLOOR_RULE,
  M1A_MEDIUM_M1B_EXCLUSION,
  OSO_TABLE,
  SAIL_TABLE,
  SMALL_UA_CONTAINMENT_RULE,
  TMPR_TABLE,
  type MitigationCell,
} from '../../src/core/sora/tables/index.js';
import { initialArc } from '../../src/core/sora/arc.js';
import { collapse, layoutCells, loadSource, type SourceText } from './corpus-text.js';

let src: SourceText;
beforeAll(() => {
  src = loadSource();
});

/** Collapsed text of lines [from, to). */
const textOf = (from: number, to: number) => collapse(src.lines.slice(from, to).join(' '));

/** Index of the caption line (the caption may wrap onto the next line, e.g. Table 6). */
function captionLine(caption: string): number {
  const hits = src.lines.flatMap((l, i) => (collapse(`${l} ${src.lines[i + 1] ?? ''}`).startsWith(caption) && l.trim() !== '' ? [i] : []));
  const exact = hits.filter((i) => caption.startsWith(collapse(src.lines[i] ?? '')));
  expect(exact, `caption "${caption}"`).toHaveLength(1);
  return exact[0] as number;
}

describe('Table 1 (iGRC) matches the source text', () => {
  it('has the caption on the recorded page and every cell as printed', () => {
    const cap = captionLine(IGRC_TABLE.source.caption);
    expect(src.pageOf(cap)).toBe(IGRC_TABLE.source.page);
    const top = src.findBackward(cap, (t) => t === IGRC_TABLE.title);
    expect(src.pageOf(top)).toBe(IGRC_TABLE.source.page);
    const firstNote = src.findForward(top, (t) => t.startsWith('—'));

    const dims = layoutCells(src.lines[src.findForward(top, (t) => t.includes('1m'))] ?? '').slice(-5);
    expect(dims).toEqual(IGRC_TABLE.columns.map((c) => c.dimensionLabel));
    const speeds = layoutCells(src.lines[src.findForward(top, (t) => t.startsWith('Maximum speed'))] ?? '').slice(-5);
    expect(speeds).toEqual(IGRC_TABLE.columns.map((c) => c.speedLabel));

    const valueLines: { index: number; label: string[]; cells: string[] }[] = [];
    for (let i = top; i < firstNote; i++) {
      const parts = layoutCells(src.lines[i] ?? '');
      let k = parts.length;
      while (k > 0 && /^(?:\d+|Not part of SORA)$/.test(parts[k - 1] ?? '')) k--;
      if (parts.length - k >= 2) valueLines.push({ index: i, label: parts.slice(0, k), cells: parts.slice(k) });
    }
    expect(valueLines).toHaveLength(IGRC_TABLE.rows.length);
    IGRC_TABLE.rows.forEach((row, r) => {
      const printed = valueLines[r];
      if (!printed) throw new Error('missing row');
      // The grey cell is one merged cell in print: collapse repeated "Not part of SORA".
      const typed = row.cells.map(String).filter((c, i, all) => !(c === 'Not part of SORA' && all[i - 1] === c));
      expect(printed.cells, `row ${row.label}`).toEqual(typed);
      const label =
        printed.label.length > 0
          ? (printed.label[printed.label.length - 1] as string)
          : collapse(`${src.lines[printed.index - 1]} ${src.lines[printed.index + 1]}`);
      expect(label.endsWith(row.label), `label of row ${r}: "${label}"`).toBe(true);
    });
  });

  it('contains the small-UA rule and the > 40 m limit as typed', () => {
    const cap = captionLine(IGRC_TABLE.source.caption);
    const top = src.findBackward(cap, (t) => t === IGRC_TABLE.title);
    const notes = textOf(top, cap);
    const r = IGRC_TABLE.smallUaRule;
    expect(notes).toContain(`take-off mass less than or equal to ${r.maxTakeOffMassG} g`);
    expect(notes).toContain(`maximum speed less than or equal to ${r.maxSpeedMs} m/s`);
    expect(notes).toContain(`iGRC of ${r.igrc} regardless of population density`);
    expect(notes).toContain(`unless operating over assemblies of people${r.footnote}`);
    const after = textOf(cap, cap + 4);
    expect(after).toContain(`maximum characteristic dimension greater than ${IGRC_TABLE.beyondLastColumn.dimensionGreaterThanM} m`);
    expect(after).toContain('Annex F');
    expect(src.pageOf(cap + 2)).toBe(IGRC_TABLE.beyondLastColumn.page);
  });

  it('reads columns by both criteria: "the rightmost column matching both criteria"', () => {
    const i = src.findForward(0, (t) => t.startsWith('(a)') && t.includes('intersection of the applicable maximum population density'));
    expect(textOf(i, i + 3)).toContain('rightmost column matching both criteria, the maximum UA characteristic dimension and the maximum speed');
  });
});

describe('Table 5 (ground risk mitigations) matches the source text', () => {
  it('has every cell as printed, footnote markers included', () => {
    const cap = captionLine(GRC_MITIGATIONS_TABLE.source.caption);
    expect(src.pageOf(cap)).toBe(GRC_MITIGATIONS_TABLE.source.page);
    const top = src.findBackward(cap, (t) => t === GRC_MITIGATIONS_TABLE.columnHeader);
    const header = layoutCells(src.lines[src.findForward(top + 1, (t) => t.startsWith(GRC_MITIGATIONS_TABLE.rowHeader))] ?? '');
    expect(header.slice(-3)).toEqual(Object.values(GRC_MITIGATIONS_TABLE.columnLabels));
    for (const row of GRC_MITIGATIONS_TABLE.rows) {
      const i = src.findForward(top, (t) => t.startsWith(row.label));
      expect(i).toBeLessThan(cap);
      expect(src.pageOf(i)).toBe(GRC_MITIGATIONS_TABLE.source.page);
      const cells = layoutCells(src.lines[i] ?? '');
      expect(cells[0]).toBe(row.label);
      const typed: MitigationCell[] = [row.cells.low, row.cells.medium, row.cells.high];
      expect(cells.slice(1)).toEqual(typed.map((c) => c.printed));
      typed.forEach((c) => {
        // Independent reading of the printed cell: "–N" optionally followed by a glued footnote number.
        const m = /^–(\d)(\d+)?$/.exec(c.printed);
        expect(c.credit).toBe(m ? -Number(m[1]) : null);
        expect(c.footnote).toBe(m?.[2] ? Number(m[2]) : undefined);
        if (!m) expect(c.printed).toBe('n/a');
      });
    }
  });

  it('has footnote 30 on the same page', () => {
    const cap = captionLine(GRC_MITIGATIONS_TABLE.source.caption);
    const fn = src.findForward(cap, (t) => t.startsWith('30 '));
    expect(src.pageOf(fn)).toBe(GRC_MITIGATIONS_TABLE.source.page);
    expect(textOf(fn, fn + 6)).toContain('claim a reduction of the iGRC higher than 2');
  });

  it('locates the floor statements on their recorded pages', () => {
    const f = src.findForward(0, (t) => t.startsWith('(f)') && t.includes('When applying all the M1 mitigations'));
    expect(src.pageOf(f)).toBe(M1_FLOOR_RULE.source.page);
    expect(textOf(f, f + 3)).toContain('cannot be reduced to a value lower than the lowest value in the applicable column');
    const p8 = src.findForward(0, (t) => t.startsWith(`${CONTROLLED_AREA_FLOOR_PRINCIPLE.row} `) && t.includes('The GRC cannot be lowered'));
    expect(src.pageOf(p8)).toBe(CONTROLLED_AREA_FLOOR_PRINCIPLE.source.page);
    expect(textOf(p8, p8 + 2)).toContain('cannot be lowered to a value less than the equivalent for controlled ground area');
    const b1 = captionLine(CONTROLLED_AREA_FLOOR_PRINCIPLE.source.caption);
    expect(src.pageOf(b1)).toBe(CONTROLLED_AREA_FLOOR_PRINCIPLE.source.page);
    const ex = src.findForward(0, (t) => t.startsWith('To prevent double-counting time-based restrictions'));
    expect(src.pageOf(ex)).toBe(M1A_MEDIUM_M1B_EXCLUSION.source.page);
    expect(textOf(ex, ex + 2)).toContain('M1(A) medium robustness mitigation cannot be combined with any M1(B) mitigations');
  });
});

describe('Table 3 (SAIL) matches the source text', () => {
  it('has every cell as printed', () => {
    const cap = captionLine(SAIL_TABLE.source.caption);
    expect(src.pageOf(cap)).toBe(SAIL_TABLE.source.page);
    const top = src.findBackward(cap, (t) => t === SAIL_TABLE.title);
    expect(src.findForward(top, (t) => t === SAIL_TABLE.columnHeader)).toBeLessThan(cap);
    const header = src.lines[src.findForward(top, (t) => t.startsWith(SAIL_TABLE.rowHeader))] ?? '';
    expect(header.trim().slice(SAIL_TABLE.rowHeader.length).trim().split(/\s+/)).toEqual(['a', 'b', 'c', 'd']);
    for (const row of SAIL_TABLE.rows) {
      const i = src.findForward(top, (t) => t.split(/\s+/)[0] === row.label);
      expect(i).toBeLessThan(cap);
      const [label, ...cells] = (src.lines[i] ?? '').trim().split(/\s+/);
      expect(label).toBe(row.label);
      expect(cells).toEqual([row.cells.a, row.cells.b, row.cells.c, row.cells.d]);
    }
    const beyond = src.findForward(top, (t) => t.startsWith(SAIL_TABLE.beyond.label));
    expect(collapse((src.lines[beyond] ?? '').trim().slice(SAIL_TABLE.beyond.label.length))).toBe(SAIL_TABLE.beyond.cell);
  });

  it('is cited as "Table 7" in the text but captioned "Table 3"', () => {
    const i = src.findForward(0, (t) => t.startsWith('Identify the SAIL associated with the proposed operation'));
    expect(textOf(i, i + 2)).toContain('using Table 7');
  });
});

describe('Table 6 (TMPR) matches the source text', () => {
  it('has every cell as printed', () => {
    const cap = captionLine(TMPR_TABLE.source.caption);
    expect(src.pageOf(cap)).toBe(TMPR_TABLE.source.page);
    const top = src.findBackward(cap, (t) => t.startsWith(TMPR_TABLE.rowHeader));
    expect(layoutCells(src.lines[top] ?? '')).toEqual([TMPR_TABLE.rowHeader, TMPR_TABLE.columnHeader]);
    const rows = src.lines
      .slice(top + 1, cap)
      .map(layoutCells)
      .filter((c) => c.length > 0);
    expect(rows).toEqual(TMPR_TABLE.rows.map((r) => [r.label, r.cell]));
  });
});

describe('Tables 8–13 (containment) match the source text', () => {
  it.each(CONTAINMENT_TABLES.map((t) => [t.source.caption, t] as const))('%s', (_caption, table) => {
    const cap = captionLine(table.source.caption);
    expect(src.pageOf(cap)).toBe(table.source.page);
    const top = src.findBackward(cap, (t) => t === table.title);
    expect(src.pageOf(top)).toBe(table.source.page);
    expect(src.lines[top + 1]?.trim()).toBe(table.shelterLine);

    const assembliesAt = src.findForward(top, (t) => t.startsWith('Outdoor assemblies') || t.startsWith('allowed within 1 km'));
    const sailAt = src.findForward(top, (t) => t === 'SAIL');
    // Density limits, left to right, as printed in the header (merged cells print once).
    const printedDensities = (textOf(top + 2, assembliesAt).match(/<\s?\d{1,3}(?: \d{3})*/g) ?? []).map(collapse);
    const typedDensities = table.columns
      .map((c) => c.densityLabel)
      .filter((l, i, all) => l !== 'No upper limit' && all[i - 1] !== l)
      .map((l) => l.replace(' people/km2', ''));
    expect(printedDensities).toEqual(typedDensities);
    const header = textOf(top + 2, sailAt);
    for (const w of ['No', 'upper', 'limit']) expect(header).toContain(w);
    const assemblies = textOf(assembliesAt - 1, sailAt);
    for (const a of ['> 400k', '40k to', '400k', '< 40k']) expect(assemblies).toContain(a);

    for (const row of table.rows) {
      const i = src.findForward(sailAt, (t) => t === row.label || t.startsWith(`${row.label}  `));
      expect(i).toBeLessThan(cap);
      const rest = (src.lines[i] ?? '').trim().slice(row.label.length);
      expect(rest.match(/Out of scope|High|Medium|Low/g), `${table.source.caption} row ${row.label}`).toEqual([...row.cells]);
      expect(row.cells).toHaveLength(table.columns.length);
    }
  });

  it('states the < 250 g rule of S.4.8.3(a) on the recorded page', () => {
    const i = src.findForward(0, (t) => t.startsWith('(a)') && t.includes('If the UA has a take-off mass of less than 250 g'));
    expect(src.pageOf(i)).toBe(SMALL_UA_CONTAINMENT_RULE.source.page);
    expect(textOf(i, i + 2)).toContain('apply low containment');
  });
});

describe('Table 14 (OSO robustness per SAIL) matches the source text', () => {
  it('has every cell as printed, glued "MH" tokens resolved to two cells', () => {
    const cap = captionLine(OSO_TABLE.source.caption);
    expect(src.pageOf(cap)).toBe(OSO_TABLE.source.lastPage);
    const top = src.findBackward(cap, (t) => t.startsWith('OSO ID'));
    expect(src.pageOf(top)).toBe(OSO_TABLE.source.page);
    const header = src.lines[src.findForward(top, (t) => /^I\s+II\s+III\s+IV\s+V\s+VI\b/.test(t))] ?? '';
    expect(header.trim().split(/\s+/).slice(0, 6)).toEqual([...OSO_TABLE.columns]);

    const printedRows = src.lines.flatMap((l, i) => (i > top && i < cap && /^OSO #\d\d\b/.test(l.trim()) ? [i] : []));
    expect(printedRows.map((i) => (src.lines[i] ?? '').trim().slice(0, 7))).toEqual(OSO_TABLE.rows.map((r) => r.id));

    OSO_TABLE.rows.forEach((row, r) => {
      const i = printedRows[r] as number;
      const tokens = (src.lines[i] ?? '').trim().slice(row.id.length).trim().split(/\s+/);
      // Longest run of robustness tokens on the row's line.
      let best: string[] = [];
      let run: string[] = [];
      for (const t of tokens) {
        if (/^(?:NR|L|M|H)+$/.test(t)) run.push(t);
        else run = [];
        if (run.length > best.length) best = [...run];
      }
      const split = best.flatMap((t) => t.match(/NR|L|M|H/g) ?? []);
      expect(split, `${row.id}`).toEqual([...row.cells]);
      const printed = 'printed' in row ? row.printed : undefined;
      expect(best, `${row.id} printed tokens`).toEqual(printed ? [...printed.tokens] : [...row.cells]);
      expect(src.pageOf(i)).toBe(
        r >= OSO_TABLE.rows.findIndex((x) => x.id === OSO_TABLE.firstRowOnLastPage) ? OSO_TABLE.source.lastPage : OSO_TABLE.source.page,
      );
      const near = textOf(i - 2, i + 3);
      for (const w of row.label.split(' ')) expect(near, `${row.id} label word "${w}"`).toContain(w);
    });
  });
});

describe('the initial ARC decision tree is a figure absent from the text', () => {
  it('is captioned on the page the calculator cites, with no table text around it', () => {
    const step = initialArc().trace[0];
    if (!step) throw new Error('trace missing');
    const i = src.lineEquals(step.caption);
    expect(src.pageOf(i)).toBe(step.page);
    // Only blank lines between the previous footer/header and the caption: the figure body is absent.
    const header = src.findBackward(i - 1, (t) => t === 'Issue 1, Amendment 3');
    expect(textOf(header + 1, i)).toBe('');
  });
});
