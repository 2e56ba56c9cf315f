/** Step #7 — SAIL from the final GRC and the residual ARC (table captioned "Table 3", p. 38). */
import { SAIL_TABLE, type ResidualArc, type Sail } from './tables/sail-table.js';
import { collectErrors, parseResidualArc } from './inputs.js';
import { invalid, SoraTableError, notComputable, ok, traceFrom, type AssessResult, type ValidationError } from './types.js';

export interface SailInput {
  readonly finalGrc: number;
  readonly residualArc: ResidualArc | string;
}

export interface SailValue {
  readonly sail: Sail;
  readonly finalGrc: number;
  readonly residualArc: ResidualArc;
}

/** SAIL for a final GRC and residual ARC; final GRC > 7 is outside the SORA (row ">7"). */
export function sailFor(input: SailInput): AssessResult<SailValue> {
  const arc = parseResidualArc(input.residualArc);
  const errors: ValidationError[] = collectErrors(arc);
  if (!Number.isInteger(input.finalGrc) || input.finalGrc < 1) {
    errors.push({ field: 'final_grc', got: input.finalGrc, allowed: ['an integer ≥ 1'], message: 'final_grc must be an integer ≥ 1.' });
  }
  if (errors.length > 0 || !arc.ok) return invalid(errors);
  const colLabel = arc.value;
  if (input.finalGrc >= SAIL_TABLE.beyond.minGrc) {
    return notComputable(
      'outside-sora',
      `Outside the SORA: for a final GRC of ${input.finalGrc} ${SAIL_TABLE.source.caption} prints "${SAIL_TABLE.beyond.cell}".`,
      [traceFrom(SAIL_TABLE.source, SAIL_TABLE.beyond.label, colLabel, SAIL_TABLE.beyond.cell, 'no SAIL — ‘certified’ category')],
    );
  }
  const row = SAIL_TABLE.rows.find((r) => input.finalGrc >= r.minGrc && input.finalGrc <= r.maxGrc);
  if (!row) throw new SoraTableError(`SAIL table has no row for final GRC ${input.finalGrc}`); // unreachable: rows cover 1..7
  const sail = row.cells[arc.value];
  return ok(
    { sail, finalGrc: input.finalGrc, residualArc: arc.value },
    [traceFrom(SAIL_TABLE.source, row.label, colLabel, sail, `SAIL ${sail}`)],
    ['The text (S.4.7.3) cites this table as "Table 7"; it is captioned "Table 3".'],
  );
}
