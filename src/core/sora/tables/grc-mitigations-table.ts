/**
 * Table 5 of AMC1 Article 11 — mitigations for the final GRC, S.4.3.3, p. 29, and the two textual
 * statements that bound the reduction (S.4.3.4(f), p. 30; Annex B Table B.1 principle #8, p. 84).
 */
import { EASA_DOC_ID, type SourceRef } from '../types.js';

export const MITIGATION_KEYS = ['m1a', 'm1b', 'm1c', 'm2'] as const;
export type MitigationKey = (typeof MITIGATION_KEYS)[number];
export const ROBUSTNESS_COLUMNS = ['low', 'medium', 'high'] as const;
export type RobustnessColumn = (typeof ROBUSTNESS_COLUMNS)[number];
/** A mitigation level as an input: a Table 5 column, or `none` (not claimed). */
export type MitigationLevel = RobustnessColumn | 'none';

/** A Table 5 cell: printed text, the GRC credit it gives (null for "n/a") and any glued footnote. */
export interface MitigationCell {
  readonly printed: string;
  readonly credit: number | null;
  readonly footnote?: number;
}

export interface MitigationRow {
  readonly key: MitigationKey;
  readonly label: string;
  readonly cells: Readonly<Record<RobustnessColumn, MitigationCell>>;
}

const NA: MitigationCell = { printed: 'n/a', credit: null };

export const GRC_MITIGATIONS_TABLE = {
  source: {
    docId: EASA_DOC_ID,
    caption: 'Table 5 — Mitigations for the determination of the final GRC',
    page: 29,
    section: 'S.4.3.3',
  } satisfies SourceRef,
  rowHeader: 'Mitigations for ground risk',
  columnHeader: 'Level of robustness',
  columnLabels: { low: 'Low', medium: 'Medium', high: 'High' } as const,
  /** Rows in the order printed, which is also the order of application (S.4.3.3(a)). */
  rows: [
    {
      key: 'm1a',
      label: 'M1(A) — Strategic mitigations — Sheltering',
      cells: { low: { printed: '–1', credit: -1 }, medium: { printed: '–2', credit: -2 }, high: NA },
    },
    {
      key: 'm1b',
      label: 'M1(B) — Strategic mitigations — Operational restrictions',
      cells: { low: NA, medium: { printed: '–1', credit: -1 }, high: { printed: '–230', credit: -2, footnote: 30 } },
    },
    {
      key: 'm1c',
      label: 'M1(C) — Tactical mitigations — Ground observation',
      cells: { low: { printed: '–1', credit: -1 }, medium: NA, high: NA },
    },
    {
      key: 'm2',
      label: 'M2 — Effects of UA impact dynamics are reduced',
      cells: { low: NA, medium: { printed: '–1', credit: -1 }, high: { printed: '–2', credit: -2 } },
    },
  ] satisfies readonly MitigationRow[],
} as const;

/** S.4.3.4(f): the M1 floor at the lowest value of the applicable Table 1 column. */
export const M1_FLOOR_RULE = {
  source: {
    docId: EASA_DOC_ID,
    caption: 'S.4.3.4(f) (text)',
    page: 30,
    section: 'S.4.3.4(f)',
  } satisfies SourceRef,
} as const;

/** Annex B, Table B.1 principle #8: the GRC cannot go below the controlled-ground-area value. */
export const CONTROLLED_AREA_FLOOR_PRINCIPLE = {
  source: {
    docId: EASA_DOC_ID,
    caption: 'Table B.1 — Basic principles',
    page: 84,
    section: 'Annex B, B.1',
  } satisfies SourceRef,
  row: '#8',
} as const;

/** Annex B, B.2 (p. 85): M1(A) medium cannot be combined with any M1(B) mitigation. */
export const M1A_MEDIUM_M1B_EXCLUSION = {
  source: {
    docId: EASA_DOC_ID,
    caption: 'Annex B, B.2 M1(A) — Strategic mitigations — Sheltering (text)',
    page: 85,
    section: 'Annex B, B.2',
  } satisfies SourceRef,
} as const;
