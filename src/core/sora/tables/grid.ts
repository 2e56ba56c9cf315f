/**
 * The typed SORA tables as display grids: header rows and body rows as printed (labels and cells
 * from the typed data, merged cells kept merged), each body cell keyed by the row and column
 * labels the calculator's trace uses, so the cell a calculation read can be highlighted.
 * A chunk of the static index is shown as one of these grids when it is that table (same
 * document, caption and page); every other table keeps its printed layout.
 */
import { containmentColumnLabel } from '../containment.js';
import { igrcColumnLabel } from '../igrc.js';
import { EASA_DOC_ID, type SourceRef, type TraceStep } from '../types.js';
import { CONTAINMENT_TABLES } from './containment-tables.js';
import { DENSITY_DESCRIPTORS_TABLE } from './density-descriptors-table.js';
import { GRC_MITIGATIONS_TABLE, ROBUSTNESS_COLUMNS } from './grc-mitigations-table.js';
import { IGRC_TABLE } from './igrc-table.js';
import { OSO_TABLE } from './oso-table.js';
import { RESIDUAL_ARCS, SAIL_TABLE } from './sail-table.js';
import { TMPR_TABLE } from './tmpr-table.js';

export interface GridHeadCell {
  readonly text: string;
  readonly colSpan?: number;
  readonly rowSpan?: number;
}

export interface GridCell {
  readonly text: string;
  readonly colSpan?: number;
  /** Trace column labels this cell answers to (a merged cell answers to several). */
  readonly columns: readonly string[];
}

export interface GridRow {
  /** Row header as printed. */
  readonly header: string;
  /** The trace row label of this row. */
  readonly key: string;
  readonly cells: readonly GridCell[];
}

export interface TableGrid {
  readonly source: SourceRef;
  /** A title line printed above the table, if any. */
  readonly title?: string;
  /** Header rows; the first cell of each is the corner (row-header column). */
  readonly head: readonly (readonly GridHeadCell[])[];
  readonly rows: readonly GridRow[];
  /** Lines printed with the table (legends, notes), as typed. */
  readonly notes: readonly string[];
}

const cell = (text: string, ...columns: string[]): GridCell => ({ text, columns });

function igrcGrid(): TableGrid {
  const T = IGRC_TABLE;
  const labels = T.columns.map((c) => igrcColumnLabel(c));
  return {
    source: T.source,
    title: T.title,
    head: [
      [{ text: 'Maximum UA characteristic dimension', rowSpan: 1 }, ...T.columns.map((c) => ({ text: c.dimensionLabel }))],
      [{ text: 'Maximum speed' }, ...T.columns.map((c) => ({ text: c.speedLabel }))],
    ],
    rows: T.rows.map((r) => {
      const cells: GridCell[] = [];
      r.cells.forEach((c, i) => {
        const prev = cells[cells.length - 1];
        // the grey "Not part of SORA" cell is printed once across the columns it covers
        if (c === 'Not part of SORA' && prev?.text === c) {
          cells[cells.length - 1] = { text: c, colSpan: (prev.colSpan ?? 1) + 1, columns: [...prev.columns, labels[i]!] };
        } else cells.push(cell(String(c), labels[i]!));
      });
      return { header: r.label, key: r.label, cells };
    }),
    notes: [`${T.rowHeader}: rows. ${T.columnHeader}: columns (the right-most column matching both criteria).`],
  };
}

function descriptorGrid(): TableGrid {
  const T = DENSITY_DESCRIPTORS_TABLE;
  return {
    source: T.source,
    head: [T.columnLabels.map((text) => ({ text }))],
    rows: T.rows.map((r) => ({
      header: r.quantitative,
      key: r.quantitative,
      cells: [cell(r.descriptors.join(' / '), T.columnLabels[1]), cell(r.description, T.columnLabels[2])],
    })),
    notes: [],
  };
}

function sailGrid(): TableGrid {
  const T = SAIL_TABLE;
  return {
    source: T.source,
    title: T.title,
    head: [
      [
        { text: T.rowHeader, rowSpan: 2 },
        { text: T.columnHeader, colSpan: RESIDUAL_ARCS.length },
      ],
      RESIDUAL_ARCS.map((a) => ({ text: a })),
    ],
    rows: [
      ...T.rows.map((r) => ({ header: r.label, key: r.label, cells: RESIDUAL_ARCS.map((a) => cell(r.cells[a], a)) })),
      { header: T.beyond.label, key: T.beyond.label, cells: [{ text: T.beyond.cell, colSpan: RESIDUAL_ARCS.length, columns: [...RESIDUAL_ARCS] }] },
    ],
    notes: ['The text (S.4.7.3) cites this table as "Table 7"; it is captioned "Table 3".'],
  };
}

function mitigationGrid(): TableGrid {
  const T = GRC_MITIGATIONS_TABLE;
  return {
    source: T.source,
    head: [
      [
        { text: T.rowHeader, rowSpan: 2 },
        { text: T.columnHeader, colSpan: 3 },
      ],
      ROBUSTNESS_COLUMNS.map((c) => ({ text: T.columnLabels[c] })),
    ],
    rows: T.rows.map((r) => ({ header: r.label, key: r.label, cells: ROBUSTNESS_COLUMNS.map((c) => cell(r.cells[c].printed, T.columnLabels[c])) })),
    notes: ['"–230" is the credit –2 followed by footnote 30.'],
  };
}

function tmprGrid(): TableGrid {
  const T = TMPR_TABLE;
  return {
    source: T.source,
    head: [[{ text: T.rowHeader }, { text: T.columnHeader }]],
    rows: T.rows.map((r) => ({ header: r.label, key: r.label, cells: [cell(r.cell, T.columnHeader)] })),
    notes: [],
  };
}

function containmentGrids(): TableGrid[] {
  return CONTAINMENT_TABLES.map((t) => ({
    source: t.source,
    title: `${t.title} — ${t.shelterLine}`,
    head: [
      [{ text: 'Average population density allowed in the adjacent area' }, ...t.columns.map((c) => ({ text: c.densityLabel }))],
      [{ text: 'Outdoor assemblies allowed within 1 km' }, ...t.columns.map((c) => ({ text: c.assembliesLabel }))],
    ],
    rows: t.rows.map((r) => ({ header: `SAIL ${r.label}`, key: r.label, cells: r.cells.map((c, i) => cell(c, containmentColumnLabel(t.columns[i]!))) })),
    notes: [],
  }));
}

function osoGrid(): TableGrid {
  const T = OSO_TABLE;
  return {
    source: T.source,
    head: [[{ text: 'OSO' }, { text: 'Description' }, ...T.columns.map((s) => ({ text: `SAIL ${s}` }))]],
    rows: T.rows.map((r) => ({
      header: r.id,
      key: `${r.id} ${r.label}`,
      cells: [cell(r.label), ...r.cells.map((c, i) => cell(c, `SAIL ${T.columns[i]}`))],
    })),
    notes: [
      `Legend (S.4.9.4(c)): ${Object.entries(T.legend)
        .map(([k, v]) => `${k} = ${v}`)
        .join(', ')}.`,
    ],
  };
}

/** Every typed table as a grid, in table order. */
export const TABLE_GRIDS: readonly TableGrid[] = [igrcGrid(), descriptorGrid(), sailGrid(), mitigationGrid(), tmprGrid(), ...containmentGrids(), osoGrid()];

/** The grid of a static-index chunk: same document, a table, its title the caption as printed, starting on the caption's page. */
export function gridForChunk(chunk: {
  readonly docId: string;
  readonly kind: string;
  readonly title: string;
  readonly pageStart: number | null;
}): TableGrid | null {
  if (chunk.kind !== 'table' || chunk.docId !== EASA_DOC_ID) return null;
  return TABLE_GRIDS.find((g) => g.source.caption === chunk.title && g.source.page === chunk.pageStart) ?? null;
}

/** The grid a trace step was read from (by caption and page). */
export function gridForStep(step: Pick<TraceStep, 'caption' | 'page' | 'docId'>): TableGrid | null {
  return (
    TABLE_GRIDS.find(
      (g) => g.source.caption === step.caption && step.docId === g.source.docId && (step.page === g.source.page || step.page === g.source.lastPage),
    ) ?? null
  );
}

/** Cells of the grid that trace steps read: `${rowIndex}:${cellIndex}` keys. */
export function highlightedCells(grid: TableGrid, steps: readonly TraceStep[]): Set<string> {
  const out = new Set<string>();
  for (const s of steps) {
    if (s.caption !== grid.source.caption) continue;
    grid.rows.forEach((r, ri) => {
      if (r.key !== s.row) return;
      r.cells.forEach((c, ci) => {
        if (c.columns.includes(s.column)) out.add(`${ri}:${ci}`);
      });
    });
  }
  return out;
}
