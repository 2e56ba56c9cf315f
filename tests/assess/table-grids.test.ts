/**
 * The typed SORA tables as display grids: each is found for its chunk of the EASA document (by
 * caption and page), has a cell for every column, and the cell a calculation read is the one
 * highlighted.
 */
import { readFileSync } from 'node:fs';
import { describe, expect, it } from 'vitest';
import { chunkEasaDocument } from '../../corpus-build/chunking/easa-chunker.js';
import { loadLayoutText } from '../../corpus-build/loaders/easa-layout.js';
import { containmentFor } from '../../src/core/sora/containment.js';
import { finalGrc } from '../../src/core/sora/final-grc.js';
import { intrinsicGrc } from '../../src/core/sora/igrc.js';
import { osoRobustness } from '../../src/core/sora/oso.js';
import { sailFor } from '../../src/core/sora/sail.js';
import { gridForChunk, gridForStep, highlightedCells, TABLE_GRIDS } from '../../src/core/sora/tables/grid.js';
import { tmprFor } from '../../src/core/sora/tmpr.js';
import type { AssessResult, TraceStep } from '../../src/core/sora/types.js';
import { easaSourcePath } from '../support/paths.js';

const chunks = chunkEasaDocument(loadLayoutText(readFileSync(easaSourcePath, 'utf8'), 'easa-amc-gm-2019-947'), {
  docId: 'easa-amc-gm-2019-947',
  edition: 'x',
  jurisdiction: 'EU',
  language: 'en',
});

const traceOf = (r: AssessResult<unknown>): readonly TraceStep[] => (r.status === 'invalid' ? [] : r.trace);

/** Text of the highlighted cells of the grid the first step was read from. */
function highlighted(steps: readonly TraceStep[]): string[] {
  const grid = gridForStep(steps[0]!);
  if (!grid) throw new Error(`no grid for ${steps[0]!.caption}`);
  return [...highlightedCells(grid, steps)].map((k) => {
    const [r, c] = k.split(':').map(Number);
    return grid.rows[r!]!.cells[c!]!.text;
  });
}

describe('table grids', () => {
  it('finds the grid of every typed table for its chunk, and none for other tables', () => {
    const tables = chunks.filter((c) => c.kind === 'table');
    const matched = tables.map((c) => gridForChunk({ ...c, docId: 'easa-amc-gm-2019-947' })).filter(Boolean);
    expect(matched).toHaveLength(TABLE_GRIDS.length);
    expect(new Set(matched.map((g) => g!.source.caption)).size).toBe(TABLE_GRIDS.length);
    // the other "Table 1" (robustness matrix, p. 14) is not the iGRC table
    const robustness = tables.find((c) => c.title.startsWith('Table 1 — Robustness'));
    expect(robustness && gridForChunk({ ...robustness, docId: 'easa-amc-gm-2019-947' })).toBeNull();
  });

  it('gives every body row one cell per column (merged cells counted by their span)', () => {
    for (const g of TABLE_GRIDS) {
      const width = g.head[g.head.length - 1]!.reduce((n, h) => n + (h.colSpan ?? 1), 0) + (g.head.length > 1 && g.head[0]![0]!.rowSpan === 2 ? 1 : 0);
      for (const r of g.rows) expect(1 + r.cells.reduce((n, c) => n + (c.colSpan ?? 1), 0), `${g.source.caption} ${r.header}`).toBe(width);
    }
  });

  it('highlights the cell each calculator step read', () => {
    const ig = intrinsicGrc({ dimensionM: 2, maxSpeedMs: 30, population: '<500' });
    expect(highlighted(traceOf(ig))).toEqual(['5']);
    const grey = intrinsicGrc({ dimensionM: 10, maxSpeedMs: 50, population: '>50000' });
    expect(highlighted(traceOf(grey))).toEqual(['Not part of SORA']);
    expect(highlighted(traceOf(sailFor({ finalGrc: 4, residualArc: 'c' })))).toEqual(['IV']);
    expect(highlighted(traceOf(sailFor({ finalGrc: 9, residualArc: 'b' })))).toEqual(['Operation classified in the ‘certified’ category']);
    expect(highlighted(traceOf(tmprFor('b')))).toEqual(['Low']);
    const fin = finalGrc({ igrc: 5, columnIndex: 1, mitigations: { m2: 'high' } });
    const t5 = traceOf(fin).filter((s) => s.caption.startsWith('Table 5'));
    expect(highlighted(t5)).toEqual(['–2']);
    const oso = osoRobustness('III', ['05']);
    expect(highlighted(traceOf(oso))).toEqual(['L']);
    const cont = containmentFor({
      dimensionM: 2,
      maxSpeedMs: 30,
      sail: 'III',
      adjacentAreaDensity: 400,
      largestAssemblyWithin1Km: 1000,
      shelterApplicable: true,
    });
    expect(highlighted(traceOf(cont)).length).toBe(1);
  });
});
