/**
 * Shared result and trace types for the SORA 2.5 calculator.
 *
 * Every calculator function returns an {@link AssessResult}: either a computed value with the
 * trace of table cells it was read from, a "not computable" outcome (outside SORA, or the corpus
 * does not contain what is needed) with its reason and trace, or a list of validation errors.
 */

import { SkyCiteError } from '../errors.js';

/** Identifier of the authoritative document the tables are read from. */
export const EASA_DOC_ID = 'easa-amc-gm-2019-947' as const;
export type DocId = typeof EASA_DOC_ID;

/** Where a table (or a rule stated in text) is printed in the source document. */
export interface SourceRef {
  readonly docId: DocId;
  /** Caption exactly as printed (e.g. the SAIL table is captioned "Table 3"). */
  readonly caption: string;
  /** Page (1-based, counted by the page footers) on which the table body starts. */
  readonly page: number;
  /** Last page when the table spans a page break (its caption is on this page). */
  readonly lastPage?: number;
  /** Section of the AMC in which the table or rule is printed. */
  readonly section: string;
}

/** One step of a calculation: which table cell (or textual rule) produced an intermediate value. */
export interface TraceStep {
  readonly docId: DocId;
  readonly caption: string;
  readonly page: number;
  readonly section: string;
  /** Row label as printed (or a short description of the rule's scope). */
  readonly row: string;
  /** Column label as printed (or a short description of the rule's scope). */
  readonly column: string;
  /** The cell as printed in the source text, footnote markers included. */
  readonly cell: string;
  /** What the step did, in the calculator's own words. */
  readonly effect?: string;
}

/** A rejected input: the field, what was given, and the values the tables allow. */
export interface ValidationError {
  readonly field: string;
  readonly got: unknown;
  readonly allowed: readonly string[];
  readonly message: string;
  /** The value names a table cell printed "n/a" (a mitigation level Table 5 does not credit). */
  readonly notApplicable?: true;
}

/** A computed value. */
export interface Computed<T> {
  readonly status: 'ok';
  readonly available: true;
  readonly value: T;
  readonly trace: readonly TraceStep[];
  readonly notes: readonly string[];
}

/**
 * No value: either the operation is outside the SORA (`outside-sora`), or the text corpus does not
 * contain what is needed to compute it (`unavailable`, e.g. a figure or a referenced external
 * document). Never a guess.
 */
export interface NotComputable {
  readonly status: 'outside-sora' | 'unavailable';
  readonly available: false;
  readonly value: null;
  readonly reason: string;
  readonly trace: readonly TraceStep[];
  readonly notes: readonly string[];
}

/** The inputs were rejected; nothing was computed. */
export interface Invalid {
  readonly status: 'invalid';
  readonly available: false;
  readonly value: null;
  readonly errors: readonly ValidationError[];
}

export type AssessResult<T> = Computed<T> | NotComputable | Invalid;

export function ok<T>(value: T, trace: readonly TraceStep[], notes: readonly string[] = []): Computed<T> {
  return { status: 'ok', available: true, value, trace, notes };
}

export function notComputable(status: NotComputable['status'], reason: string, trace: readonly TraceStep[] = [], notes: readonly string[] = []): NotComputable {
  return { status, available: false, value: null, reason, trace, notes };
}

export function invalid(errors: readonly ValidationError[]): Invalid {
  return { status: 'invalid', available: false, value: null, errors };
}

/** Builds a trace step from a table's source reference. */
export function traceFrom(source: SourceRef, row: string, column: string, cell: string, effect?: string, page: number = source.page): TraceStep {
  const step: TraceStep = { docId: source.docId, caption: source.caption, page, section: source.section, row, column, cell };
  return effect === undefined ? step : { ...step, effect };
}

/** Human-readable one-line rendering of a trace step, e.g. for CLIs and answers. */
export function formatTraceStep(step: TraceStep): string {
  return `${step.caption} (p. ${step.page}, ${step.section}) — row "${step.row}", column "${step.column}": "${step.cell}"${
    step.effect ? ` → ${step.effect}` : ''
  }`;
}

/**
 * A SORA table without the row or cell a computation needs: the tables are data checked cell by
 * cell against the source (tests/assess/table-fidelity.test.ts), so this means the data is incomplete.
 */
export class SoraTableError extends SkyCiteError {
  override name = 'SoraTableError';
  override readonly code = 'sora-table';
}
