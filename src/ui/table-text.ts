/**
 * How a passage's text is shown: a typed SORA table as a structured grid, any other table in its
 * printed layout (monospace, original spacing), prose as text. Highlights that would paint most of
 * a table (a table is one "sentence" to the sentence splitter) are dropped: they say nothing.
 */
import { gridForChunk, highlightedCells, type TableGrid } from '../core/sora/tables/grid';
import type { TraceStep } from '../core/sora/types';
import type { Chunk } from '../core/model/chunk';
import { normalizeRanges, type TextRange } from './highlight';

export type PassageLayout =
  { kind: 'grid'; grid: TableGrid; highlighted: Set<string> } | { kind: 'layout'; ranges: TextRange[] } | { kind: 'prose'; ranges: TextRange[] };

/** Share of a table's text a highlight may cover and still be shown. */
export const MAX_TABLE_HIGHLIGHT_SHARE = 0.5;

export function passageLayout(
  chunk: Pick<Chunk, 'docId' | 'kind' | 'title' | 'pageStart' | 'text'>,
  ranges: readonly TextRange[],
  trace: readonly TraceStep[] = [],
): PassageLayout {
  const grid = gridForChunk(chunk);
  if (grid) return { kind: 'grid', grid, highlighted: highlightedCells(grid, trace) };
  if (chunk.kind === 'table') {
    const norm = normalizeRanges(ranges, chunk.text.length);
    const covered = norm.reduce((n, r) => n + r.end - r.start, 0);
    return { kind: 'layout', ranges: covered > chunk.text.length * MAX_TABLE_HIGHLIGHT_SHARE ? [] : norm };
  }
  return { kind: 'prose', ranges: [...ranges] };
}
