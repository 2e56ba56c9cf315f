/**
 * Table 14 of AMC1 Article 11 — recommended OSOs and their robustness per SAIL, S.4.9.3,
 * pp. 44–45 (body starts on p. 44, caption on p. 45).
 *
 * Extraction note: in six rows (OSO #03, #07, #09, #16, #17, #23) the text prints five tokens for
 * the six SAIL columns, one of them "MH". Every other row prints exactly six tokens, and splitting
 * "MH" into "M" and "H" gives six. "MH" is therefore two adjacent cells (SAIL IV = M, SAIL V = H)
 * whose separating spaces were lost in the layout extraction — not a struck-through/inserted pair
 * (a replaced value would leave five cells for six columns). Those rows carry a `printed` record.
 */
import { EASA_DOC_ID, type SourceRef } from '../types.js';
import type { Sail } from './sail-table.js';

export type OsoRobustness = 'NR' | 'L' | 'M' | 'H';

export interface OsoRow {
  /** OSO number as printed, e.g. "OSO #01". */
  readonly id: string;
  /** Row description as printed (lines joined by one space). */
  readonly label: string;
  /** Robustness for SAIL I … VI. */
  readonly cells: readonly [OsoRobustness, OsoRobustness, OsoRobustness, OsoRobustness, OsoRobustness, OsoRobustness];
  /** Present when the printed tokens differ from the cells (glued cells in the extraction). */
  readonly printed?: { readonly tokens: readonly string[]; readonly resolution: string };
}

const GLUED_IV_V = {
  tokens: ['L', 'L', 'M', 'MH', 'H'],
  resolution: '"MH" printed without a space is the SAIL IV cell "M" followed by the SAIL V cell "H".',
} as const;

export const OSO_TABLE = {
  source: {
    docId: EASA_DOC_ID,
    caption: 'Table 14 — Recommended operational safety objectives (OSOs)',
    page: 44,
    lastPage: 45,
    section: 'S.4.9.3',
  } satisfies SourceRef,
  columns: ['I', 'II', 'III', 'IV', 'V', 'VI'] as readonly Sail[],
  /** First row printed after the page break (rows from here on are on `lastPage`). */
  firstRowOnLastPage: 'OSO #18',
  /** Meaning of the cell codes, S.4.9.4(c). */
  legend: { NR: 'not required', L: 'low', M: 'medium', H: 'high' } as const,
  rows: [
    { id: 'OSO #01', label: 'Ensure that the UAS operator is a competent and/or proven organisation', cells: ['NR', 'L', 'M', 'H', 'H', 'H'] },
    { id: 'OSO #02', label: 'UAS designed and produced by a competent and/or proven organisation', cells: ['NR', 'NR', 'L', 'M', 'H', 'H'] },
    { id: 'OSO #03', label: 'UAS maintenance', cells: ['L', 'L', 'M', 'M', 'H', 'H'], printed: GLUED_IV_V },
    {
      id: 'OSO #04',
      label: 'UAS components essential to safe operations are designed to an airworthiness design standard',
      cells: ['NR', 'NR', 'NR', 'M', 'H', 'H'],
    },
    { id: 'OSO #05', label: 'UAS is designed considering system safety and reliability', cells: ['NR', 'NR', 'L', 'M', 'H', 'H'] },
    {
      id: 'OSO #06',
      label: 'C3 link characteristics (e.g. performance spectrum use) are appropriate for the UAS operation',
      cells: ['NR', 'L', 'L', 'M', 'H', 'H'],
    },
    { id: 'OSO #07', label: 'Conformity check of the UAS configuration', cells: ['L', 'L', 'M', 'M', 'H', 'H'], printed: GLUED_IV_V },
    { id: 'OSO #08', label: 'Operational procedures are defined, validated and adhered to', cells: ['L', 'M', 'H', 'H', 'H', 'H'] },
    { id: 'OSO #09', label: 'Remote crew trained and current', cells: ['L', 'L', 'M', 'M', 'H', 'H'], printed: GLUED_IV_V },
    {
      id: 'OSO #13',
      label: 'External services supporting UAS operations are adequate for the UAS operation',
      cells: ['L', 'L', 'M', 'H', 'H', 'H'],
    },
    { id: 'OSO #16', label: 'Multi-crew coordination', cells: ['L', 'L', 'M', 'M', 'H', 'H'], printed: GLUED_IV_V },
    { id: 'OSO #17', label: 'Remote crew is fit to operate', cells: ['L', 'L', 'M', 'M', 'H', 'H'], printed: GLUED_IV_V },
    { id: 'OSO #18', label: 'Automatic protection of the flight envelope from human errors', cells: ['NR', 'NR', 'L', 'M', 'H', 'H'] },
    { id: 'OSO #19', label: 'Safe recovery from human error', cells: ['NR', 'NR', 'L', 'M', 'M', 'H'] },
    {
      id: 'OSO #20',
      label: 'A human factors evaluation has been performed and the HMI found appropriate for the intended UAS operation',
      cells: ['NR', 'L', 'L', 'M', 'M', 'H'],
    },
    {
      id: 'OSO #23',
      label: 'Environmental conditions for safe operations defined and measurable',
      cells: ['L', 'L', 'M', 'M', 'H', 'H'],
      printed: GLUED_IV_V,
    },
    {
      id: 'OSO #24',
      label: 'UAS designed and qualified to operate in adverse environmental conditions',
      cells: ['NR', 'NR', 'M', 'H', 'H', 'H'],
    },
  ] satisfies readonly OsoRow[],
} as const;
