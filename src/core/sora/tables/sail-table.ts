/**
 * The SAIL table of AMC1 Article 11, S.4.7, p. 38. The text (S.4.7.3) cites it as "Table 7";
 * it is captioned "Table 3", and we cite the caption as printed.
 */
import { EASA_DOC_ID, type SourceRef } from '../types.js';

export const SAIL_LEVELS = ['I', 'II', 'III', 'IV', 'V', 'VI'] as const;
export type Sail = (typeof SAIL_LEVELS)[number];
export const RESIDUAL_ARCS = ['a', 'b', 'c', 'd'] as const;
export type ResidualArc = (typeof RESIDUAL_ARCS)[number];

export interface SailRow {
  /** Row label as printed ("≤2", "3", … "7"). */
  readonly label: string;
  /** Final GRC values covered by the row. */
  readonly minGrc: number;
  readonly maxGrc: number;
  readonly cells: Readonly<Record<ResidualArc, Sail>>;
}

export const SAIL_TABLE = {
  source: {
    docId: EASA_DOC_ID,
    caption: 'Table 3 — SAIL determination',
    page: 38,
    section: 'S.4.7.3',
  } satisfies SourceRef,
  title: 'SAIL determination',
  columnHeader: 'Residual ARC',
  rowHeader: 'Final GRC',
  rows: [
    { label: '≤2', minGrc: Number.NEGATIVE_INFINITY, maxGrc: 2, cells: { a: 'I', b: 'II', c: 'IV', d: 'VI' } },
    { label: '3', minGrc: 3, maxGrc: 3, cells: { a: 'II', b: 'II', c: 'IV', d: 'VI' } },
    { label: '4', minGrc: 4, maxGrc: 4, cells: { a: 'III', b: 'III', c: 'IV', d: 'VI' } },
    { label: '5', minGrc: 5, maxGrc: 5, cells: { a: 'IV', b: 'IV', c: 'IV', d: 'VI' } },
    { label: '6', minGrc: 6, maxGrc: 6, cells: { a: 'V', b: 'V', c: 'V', d: 'VI' } },
    { label: '7', minGrc: 7, maxGrc: 7, cells: { a: 'VI', b: 'VI', c: 'VI', d: 'VI' } },
  ] satisfies readonly SailRow[],
  /** The last row, printed as one merged cell across all residual ARC columns. */
  beyond: { label: '>7', minGrc: 8, cell: 'Operation classified in the ‘certified’ category' },
} as const;
