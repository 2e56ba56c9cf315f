/** Table 6 of AMC1 Article 11 — TMPR by residual ARC (BVLOS), S.4.6.3, p. 35. */
import { EASA_DOC_ID, type SourceRef } from '../types.js';
import type { ResidualArc } from './sail-table.js';

export type TmprLevel = 'High' | 'Medium' | 'Low' | 'No requirement';

export const TMPR_TABLE = {
  source: {
    docId: EASA_DOC_ID,
    caption: 'Table 6 — Tactical mitigation performance requirements (TMPR) and assignment of the TMPR level of robustness',
    page: 35,
    section: 'S.4.6.3',
  } satisfies SourceRef,
  columnHeader: 'TMPR and corresponding level of robustness',
  rowHeader: 'Residual ARC',
  rows: [
    { arc: 'd', label: 'ARC-d', cell: 'High' },
    { arc: 'c', label: 'ARC-c', cell: 'Medium' },
    { arc: 'b', label: 'ARC-b', cell: 'Low' },
    { arc: 'a', label: 'ARC-a', cell: 'No requirement' },
  ] satisfies readonly { arc: ResidualArc; label: string; cell: TmprLevel }[],
} as const;
