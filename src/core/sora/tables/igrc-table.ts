/**
 * Table 1 (as captioned) of AMC1 Article 11 — iGRC determination, S.4.2.3, p. 24.
 * The text cites it as "Table 2"; the caption is what we cite.
 */
import { EASA_DOC_ID, type SourceRef } from '../types.js';

/** Population density bands, as used by the evaluation sets (people/km²). `>50000` = assemblies of people. */
export const POPULATION_BANDS = ['controlled', '<5', '<50', '<500', '<5000', '<50000', '>50000'] as const;
export type PopulationBand = (typeof POPULATION_BANDS)[number];

/** A Table 1 cell: an iGRC, or one of the grey cells printed as "Not part of SORA". */
export type IgrcCell = number | 'Not part of SORA';

export interface IgrcColumn {
  /** Dimension label as printed in the header row. */
  readonly dimensionLabel: string;
  /** Speed label as printed in the header row. */
  readonly speedLabel: string;
  readonly maxDimensionM: number;
  readonly maxSpeedMs: number;
}

export interface IgrcRow {
  readonly band: PopulationBand;
  /** Row label as printed (multi-line labels joined by one space). */
  readonly label: string;
  readonly cells: readonly IgrcCell[];
}

export const IGRC_TABLE = {
  source: {
    docId: EASA_DOC_ID,
    caption: 'Table 1 — Intrinsic ground risk class (GRC) determination',
    page: 24,
    section: 'S.4.2.3',
  } satisfies SourceRef,
  title: 'UAS iGRC',
  rowHeader: 'Maximum iGRC population density (people/km2)',
  columnHeader: 'Maximum UA characteristic dimension and Maximum speed',
  columns: [
    { dimensionLabel: '1m', speedLabel: '25 m/s', maxDimensionM: 1, maxSpeedMs: 25 },
    { dimensionLabel: '3m', speedLabel: '35 m/s', maxDimensionM: 3, maxSpeedMs: 35 },
    { dimensionLabel: '8m', speedLabel: '75 m/s', maxDimensionM: 8, maxSpeedMs: 75 },
    { dimensionLabel: '20 m', speedLabel: '120 m/s', maxDimensionM: 20, maxSpeedMs: 120 },
    { dimensionLabel: '40 m', speedLabel: '200 m/s', maxDimensionM: 40, maxSpeedMs: 200 },
  ] satisfies readonly IgrcColumn[],
  rows: [
    { band: 'controlled', label: 'Controlled ground area', cells: [1, 1, 2, 3, 3] },
    { band: '<5', label: '<5', cells: [2, 3, 4, 5, 6] },
    { band: '<50', label: '< 50', cells: [3, 4, 5, 6, 7] },
    { band: '<500', label: '< 500', cells: [4, 5, 6, 7, 8] },
    { band: '<5000', label: '< 5 000', cells: [5, 6, 7, 8, 9] },
    { band: '<50000', label: '< 50 000', cells: [6, 7, 8, 9, 10] },
    // The grey cell is printed once across the three right-hand columns (merged cell).
    { band: '>50000', label: '> 50 000', cells: [7, 8, 'Not part of SORA', 'Not part of SORA', 'Not part of SORA'] },
  ] satisfies readonly IgrcRow[],
  /** The first note printed under the table (small-UA rule), as typed data. */
  smallUaRule: {
    maxTakeOffMassG: 250,
    maxSpeedMs: 25,
    igrc: 1,
    exceptBand: '>50000' as PopulationBand,
    footnote: 21,
  },
  /** S.4.2.3(e), printed just below the caption: beyond the last column the table does not apply. */
  beyondLastColumn: {
    dimensionGreaterThanM: 40,
    section: 'S.4.2.3(e)',
    page: 24,
  },
} as const;
