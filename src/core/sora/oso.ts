/** Step #9 — OSO robustness per SAIL (Table 14, pp. 44–45). */
import { OSO_TABLE, type OsoRobustness, type OsoRow } from './tables/oso-table.js';
import { SAIL_LEVELS, type Sail } from './tables/sail-table.js';
import { parseSail } from './inputs.js';
import { invalid, ok, traceFrom, type AssessResult, type TraceStep } from './types.js';

export interface OsoRequirement {
  readonly id: string;
  readonly label: string;
  readonly robustness: OsoRobustness;
}

/** Normalises "3", "#3", "OSO 3", "OSO #03" to the printed id "OSO #03". */
export function normaliseOsoId(raw: string | number): string | null {
  const m = /(\d{1,2})\s*$/.exec(String(raw).trim());
  return m?.[1] ? `OSO #${m[1].padStart(2, '0')}` : null;
}

const ROWS: readonly OsoRow[] = OSO_TABLE.rows;

function traceFor(row: OsoRow, sail: Sail, cell: OsoRobustness): TraceStep {
  const printed = row.printed ? ` (printed tokens: ${row.printed.tokens.join(' ')})` : '';
  const breakAt = ROWS.findIndex((r) => r.id === OSO_TABLE.firstRowOnLastPage);
  const page = ROWS.indexOf(row) >= breakAt ? OSO_TABLE.source.lastPage : OSO_TABLE.source.page;
  return traceFrom(OSO_TABLE.source, `${row.id} ${row.label}`, `SAIL ${sail}`, cell, `robustness ${cell}${printed}`, page);
}

/** Robustness of every OSO (or of the listed ones) at a SAIL. */
export function osoRobustness(sailInput: Sail | string | number, osoIds?: readonly (string | number)[]): AssessResult<OsoRequirement[]> {
  const sail = parseSail(sailInput);
  if (!sail.ok) return invalid([sail.error]);
  const col = SAIL_LEVELS.indexOf(sail.value);
  let rows: readonly OsoRow[] = ROWS;
  if (osoIds !== undefined) {
    const wanted = osoIds.map((id) => ({ raw: id, id: normaliseOsoId(id) }));
    const unknown = wanted.filter((w) => !OSO_TABLE.rows.some((r) => r.id === w.id));
    if (unknown.length > 0) {
      return invalid(
        unknown.map((u) => ({
          field: 'oso',
          got: u.raw,
          allowed: OSO_TABLE.rows.map((r) => r.id),
          message: `Table 14 has no ${u.id ?? String(u.raw)}; it lists ${OSO_TABLE.rows.map((r) => r.id).join(', ')}.`,
        })),
      );
    }
    rows = OSO_TABLE.rows.filter((r) => wanted.some((w) => w.id === r.id));
  }
  const value = rows.map((r) => ({ id: r.id, label: r.label, robustness: r.cells[col] as OsoRobustness }));
  const notes = ['Legend (S.4.9.4(c)): NR = not required, L = low, M = medium, H = high robustness.'];
  if (rows.some((r) => r.printed) && (sail.value === 'IV' || sail.value === 'V')) {
    notes.push('Some SAIL IV/V cells are printed glued as "MH" in the text extraction; they are read as "M" (SAIL IV) and "H" (SAIL V).');
  }
  return ok(
    value,
    rows.map((r) => traceFor(r, sail.value, r.cells[col] as OsoRobustness)),
    notes,
  );
}
