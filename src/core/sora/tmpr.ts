/** Step #6 — TMPR level of robustness from the residual ARC (Table 6, p. 35). */
import { TMPR_TABLE, type TmprLevel } from './tables/tmpr-table.js';
import type { ResidualArc } from './tables/sail-table.js';
import { parseResidualArc } from './inputs.js';
import { invalid, SoraTableError, ok, traceFrom, type AssessResult } from './types.js';

export interface TmprValue {
  readonly tmpr: TmprLevel;
  readonly residualArc: ResidualArc;
}

/** TMPR for a residual ARC. Table 6 applies to BVLOS operations (S.4.6.3). */
export function tmprFor(residualArc: ResidualArc | string): AssessResult<TmprValue> {
  const arc = parseResidualArc(residualArc);
  if (!arc.ok) return invalid([arc.error]);
  const row = TMPR_TABLE.rows.find((r) => r.arc === arc.value);
  if (!row) throw new SoraTableError(`Table 6 has no row for ARC-${arc.value}`); // unreachable
  return ok(
    { tmpr: row.cell, residualArc: arc.value },
    [traceFrom(TMPR_TABLE.source, row.label, TMPR_TABLE.columnHeader, row.cell, `TMPR ${row.cell}`)],
    [
      'Table 6 is used for BVLOS operations; VLOS operations and BVLOS with airspace observers are an acceptable tactical mitigation for all ARC levels (S.4.6.4(a)).',
    ],
  );
}
