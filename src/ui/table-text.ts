/**
 * How a passage's text is shown: a typed SORA table as a structured grid, any other table in its
 * printed layout (monospace, original spacing) — or, in an answer card (`cells`), as a grid of its
 * printed cells that fits the card (core/text/units.ts printedTableRows) — prose as text. Highlights
 * that would paint most of a table (a table is one "sentence" to the sentence splitter) are dropped:
 * they say nothing.
 */
import { gridForChunk, highlightedCells, type TableGrid } from '../core/sora/tables/grid';
import type { TraceStep } from '../core/sora/types';
import type { Chunk } from '../core/model/chunk';
import { printedTableRows, type PrintedRow } from '../core/text/units';
import { normalizeRanges, type TextRange } from './highlight';

export type PassageLayout =
  | { kind: 'grid'; grid: TableGrid; highlighted: Set<string> }
  | { kind: 'cells'; rows: PrintedRow[] }
  | { kind: 'layout'; ranges: TextRange[] }
  | { kind: 'prose'; ranges: TextRange[] };

/** Share of a table's text a highlight may cover and still be shown. */
export const MAX_TABLE_HIGHLIGHT_SHARE = 0.5;

export function passageLayout(
  chunk: Pick<Chunk, 'docId' | 'kind' | 'title' | 'pageStart' | 'text'> & Partial<Pick<Chunk, 'footnoteMarkers'>>,
  ranges: readonly TextRange[],
  trace: readonly TraceStep[] = [],
  options: { cells?: boolean } = {},
): PassageLayout {
  const grid = gridForChunk(chunk);
  if (grid) return { kind: 'grid', grid, highlighted: highlightedCells(grid, trace) };
  if (chunk.kind === 'table') {
    const rows = options.cells ? printedTableRows(chunk) : null;
    if (rows) return { kind: 'cells', rows };
    const norm = normalizeRanges(ranges, chunk.text.length);
    const covered = norm.reduce((n, r) => n + r.end - r.start, 0);
    return { kind: 'layout', ranges: covered > chunk.text.length * MAX_TABLE_HIGHLIGHT_SHARE ? [] : norm };
  }
  return { kind: 'prose', ranges: [...ranges] };
}

/**
 * A printed row's CSS grid columns: each cell as wide as printed, in proportion; a row label (the first
 * of several cells) never narrower than its longest usual word ("Criterion"), any other cell than a short one.
 */
export const printedColumns = (row: { cells: readonly { width: number }[] }): string =>
  row.cells.map((c, k) => `minmax(${k === 0 && row.cells.length > 1 ? '6.5rem' : '2.75rem'}, ${Math.max(1, c.width)}fr)`).join(' ');
