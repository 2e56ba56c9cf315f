/**
 * Tables 8–13 of AMC1 Article 11 — containment robustness by UA size class, SAIL and the
 * operational limitations for the adjacent ground area, S.4.8.3, pp. 39–41.
 *
 * Column layout (read from the header rows, which are merged cells in the PDF): each column pairs an
 * "average population density allowed" limit with an "outdoor assemblies allowed within 1 km of the
 * operational volume" limit. Where one printed label spans several columns it is repeated here.
 */
import { EASA_DOC_ID, type SourceRef } from '../types.js';
import type { Sail } from './sail-table.js';

export type ContainmentCell = 'High' | 'Medium' | 'Low' | 'Out of scope';

/** An upper limit: `null` = no upper limit; `inclusive` tells whether the limit value itself is allowed. */
export interface Limit {
  readonly max: number | null;
  readonly inclusive: boolean;
}

export interface ContainmentColumn {
  /** Density label as printed (multi-line labels joined by one space). */
  readonly densityLabel: string;
  readonly density: Limit;
  /** Assemblies label as printed. */
  readonly assembliesLabel: string;
  readonly assemblies: Limit;
}

export interface ContainmentRow {
  /** SAIL row label as printed (e.g. "IV, V -& VI", with the strike-through artefact). */
  readonly label: string;
  readonly sails: readonly Sail[];
  readonly cells: readonly ContainmentCell[];
}

export interface ContainmentTable {
  readonly source: SourceRef;
  /** Title line as printed above the table, e.g. "1 m UA (< 25 m/s)". */
  readonly title: string;
  /** Shelter line as printed (footnote markers included). */
  readonly shelterLine: string;
  readonly shelterAssumed: boolean;
  readonly sizeClass: { readonly maxDimensionM: number; readonly maxSpeedMs: number };
  readonly columns: readonly ContainmentColumn[];
  readonly rows: readonly ContainmentRow[];
}

const NO_LIMIT: Limit = { max: null, inclusive: true };
const below = (max: number): Limit => ({ max, inclusive: false });
const upTo = (max: number): Limit => ({ max, inclusive: true });

const NUL = 'No upper limit';
const D50K = '< 50 000 people/km2';
const D5K = '< 5 000 people/km2';
const D500 = '< 500 people/km2';
const D50 = '< 50 people/km2';
const A_BIG = '> 400k';
const A_MID = 'Assemblies of 40k to 400k';

/** Five-column layout shared by Tables 11, 12 and 13. */
function fiveColumns(): ContainmentColumn[] {
  const small = 'Assemblies of < 40k';
  return [
    { densityLabel: NUL, density: NO_LIMIT, assembliesLabel: A_BIG, assemblies: NO_LIMIT },
    { densityLabel: D50K, density: below(50_000), assembliesLabel: A_MID, assemblies: upTo(400_000) },
    { densityLabel: D5K, density: below(5_000), assembliesLabel: small, assemblies: below(40_000) },
    { densityLabel: D500, density: below(500), assembliesLabel: small, assemblies: below(40_000) },
    { densityLabel: D50, density: below(50), assembliesLabel: small, assemblies: below(40_000) },
  ];
}

const section = 'S.4.8.3';
const src = (caption: string, page: number): SourceRef => ({ docId: EASA_DOC_ID, caption, page, section });

export const CONTAINMENT_TABLES: readonly ContainmentTable[] = [
  {
    source: src('Table 8 — Containment requirements for a UA up to 1 m UA with shelter assumption', 39),
    title: '1 m UA (< 25 m/s)',
    shelterLine: 'Sheltering assumed applicable for the UA in the adjacent ground area35',
    shelterAssumed: true,
    sizeClass: { maxDimensionM: 1, maxSpeedMs: 25 },
    columns: [
      { densityLabel: NUL, density: NO_LIMIT, assembliesLabel: A_BIG, assemblies: NO_LIMIT },
      { densityLabel: NUL, density: NO_LIMIT, assembliesLabel: A_MID, assemblies: upTo(400_000) },
      { densityLabel: D50K, density: below(50_000), assembliesLabel: 'Assemblies of < 40k', assemblies: below(40_000) },
    ],
    rows: [
      { label: 'I & II', sails: ['I', 'II'], cells: ['High', 'Medium', 'Low'] },
      { label: 'III', sails: ['III'], cells: ['Medium', 'Low', 'Low'] },
      { label: 'IV, V -& VI', sails: ['IV', 'V', 'VI'], cells: ['Low', 'Low', 'Low'] },
    ],
  },
  {
    source: src('Table 9 — Containment requirements for a UA up to 3 m with shelter assumption', 40),
    title: '3 m UA (< 35 m/s)',
    shelterLine: 'Shelter assumed applicable for the UA in the adjacent ground area32',
    shelterAssumed: true,
    sizeClass: { maxDimensionM: 3, maxSpeedMs: 35 },
    columns: [
      { densityLabel: NUL, density: NO_LIMIT, assembliesLabel: A_BIG, assemblies: NO_LIMIT },
      { densityLabel: NUL, density: NO_LIMIT, assembliesLabel: A_MID, assemblies: upTo(400_000) },
      { densityLabel: D50K, density: below(50_000), assembliesLabel: 'Assemblies of < 40k people', assemblies: below(40_000) },
      { densityLabel: D5K, density: below(5_000), assembliesLabel: 'Assemblies of < 40k people', assemblies: below(40_000) },
    ],
    rows: [
      { label: 'I & II', sails: ['I', 'II'], cells: ['Out of scope', 'High', 'Medium', 'Low'] },
      { label: 'III', sails: ['III'], cells: ['Out of scope', 'Medium', 'Low', 'Low'] },
      { label: 'IV', sails: ['IV'], cells: ['Medium', 'Low', 'Low', 'Low'] },
      { label: 'V & VI', sails: ['V', 'VI'], cells: ['Low', 'Low', 'Low', 'Low'] },
    ],
  },
  {
    source: src('Table 10 — Containment requirements for a UA up to 3 m without shelter assumption', 40),
    title: '3 m UA (< 35 m/s)',
    shelterLine: 'Shelter assumed not applicable for the UA in the adjacent ground area',
    shelterAssumed: false,
    sizeClass: { maxDimensionM: 3, maxSpeedMs: 35 },
    columns: [
      { densityLabel: NUL, density: NO_LIMIT, assembliesLabel: A_BIG, assemblies: NO_LIMIT },
      { densityLabel: D50K, density: below(50_000), assembliesLabel: A_MID, assemblies: upTo(400_000) },
      { densityLabel: D5K, density: below(5_000), assembliesLabel: 'Assemblies of < 40k people', assemblies: below(40_000) },
      { densityLabel: D500, density: below(500), assembliesLabel: 'Assemblies of < 40k people', assemblies: below(40_000) },
    ],
    rows: [
      { label: 'I & II', sails: ['I', 'II'], cells: ['Out of scope', 'High', 'Medium', 'Low'] },
      { label: 'III', sails: ['III'], cells: ['Out of scope', 'Medium', 'Low', 'Low'] },
      { label: 'IV', sails: ['IV'], cells: ['Medium', 'Low', 'Low', 'Low'] },
      { label: 'V & VI', sails: ['V', 'VI'], cells: ['Low', 'Low', 'Low', 'Low'] },
    ],
  },
  {
    source: src('Table 11 — Containment requirements for a UA up to 8 m', 40),
    title: '8 m UA (< 75 m/s)',
    shelterLine: 'Sheltering assumed not applicable for the UA in the adjacent ground area',
    shelterAssumed: false,
    sizeClass: { maxDimensionM: 8, maxSpeedMs: 75 },
    columns: fiveColumns(),
    rows: [
      { label: 'I & II', sails: ['I', 'II'], cells: ['Out of scope', 'Out of scope', 'High', 'Medium', 'Low'] },
      { label: 'III', sails: ['III'], cells: ['Out of scope', 'Out of scope', 'Medium', 'Low', 'Low'] },
      { label: 'IV', sails: ['IV'], cells: ['Out of scope', 'Medium', 'Low', 'Low', 'Low'] },
      { label: 'V', sails: ['V'], cells: ['Medium', 'Low', 'Low', 'Low', 'Low'] },
      { label: 'VI', sails: ['VI'], cells: ['Low', 'Low', 'Low', 'Low', 'Low'] },
    ],
  },
  {
    source: src('Table 12 — Containment requirements for a UA up to 20 m', 41),
    title: '20 m UA (< 120 m/s)',
    shelterLine: 'Sheltering assumed not applicable for the UA in the adjacent ground area',
    shelterAssumed: false,
    sizeClass: { maxDimensionM: 20, maxSpeedMs: 120 },
    columns: fiveColumns(),
    rows: [
      { label: 'I & II', sails: ['I', 'II'], cells: ['Out of scope', 'Out of scope', 'Out of scope', 'High', 'Medium'] },
      { label: 'III', sails: ['III'], cells: ['Out of scope', 'Out of scope', 'Out of scope', 'Medium', 'Low'] },
      { label: 'IV', sails: ['IV'], cells: ['Out of scope', 'Out of scope', 'Medium', 'Low', 'Low'] },
      { label: 'V', sails: ['V'], cells: ['Out of scope', 'Medium', 'Low', 'Low', 'Low'] },
      { label: 'VI', sails: ['VI'], cells: ['Medium', 'Low', 'Low', 'Low', 'Low'] },
    ],
  },
  {
    source: src('Table 13 — Containment requirements for a UA up to 40 m', 41),
    title: '< 40 m UA (< 200 m/s)',
    shelterLine: 'Sheltering assumed not applicable for the UA in the adjacent ground area',
    shelterAssumed: false,
    sizeClass: { maxDimensionM: 40, maxSpeedMs: 200 },
    columns: fiveColumns(),
    rows: [
      { label: 'I & II', sails: ['I', 'II'], cells: ['Out of scope', 'Out of scope', 'Out of scope', 'Out of scope', 'High'] },
      { label: 'III', sails: ['III'], cells: ['Out of scope', 'Out of scope', 'Out of scope', 'Out of scope', 'Medium'] },
      { label: 'IV', sails: ['IV'], cells: ['Out of scope', 'Out of scope', 'Out of scope', 'Medium', 'Low'] },
      { label: 'V', sails: ['V'], cells: ['Out of scope', 'Out of scope', 'Medium', 'Low', 'Low'] },
      { label: 'VI', sails: ['VI'], cells: ['Out of scope', 'Medium', 'Low', 'Low', 'Low'] },
    ],
  },
];

/** S.4.8.3(a), p. 38: a UA below 250 g takes low containment with no adjacent-area limitations. */
export const SMALL_UA_CONTAINMENT_RULE = {
  source: { docId: EASA_DOC_ID, caption: 'S.4.8.3(a) (text)', page: 38, section: 'S.4.8.3(a)' } satisfies SourceRef,
  belowTakeOffMassG: 250,
  robustness: 'Low' as ContainmentCell,
} as const;
