/**
 * Step #8 — containment robustness (Tables 8–13, S.4.8.3, pp. 38–41).
 *
 * The table is chosen by the UA size class (same column rule as Table 1) and, for 3 m UA, by the
 * shelter assumption. The column is the right-most one whose limitations the operation meets for
 * both the average population density of the adjacent ground area and the largest outdoor assembly
 * within 1 km — "the most stringent between" the two (S.4.8.3(d)).
 */
import {
  CONTAINMENT_TABLES,
  SMALL_UA_CONTAINMENT_RULE,
  type ContainmentCell,
  type ContainmentColumn,
  type ContainmentTable,
  type Limit,
} from './tables/containment-tables.js';
import type { Sail } from './tables/sail-table.js';
import { collectErrors, parseNonNegative, parsePositive, parseSail } from './inputs.js';
import { invalid, SoraTableError, notComputable, ok, traceFrom, type AssessResult } from './types.js';

export interface ContainmentInput {
  readonly dimensionM: number;
  readonly maxSpeedMs: number;
  readonly sail: Sail | string;
  /** Average population density of the adjacent ground area, people/km². */
  readonly adjacentAreaDensity: number;
  /** Largest outdoor assembly of people expected within 1 km of the operational volume (0 if none). */
  readonly largestAssemblyWithin1Km: number;
  /** Whether sheltering is applicable in the adjacent ground area (needed for UA of the 1 m and 3 m classes). */
  readonly shelterApplicable?: boolean;
  readonly takeOffMassG?: number;
}

export interface ContainmentValue {
  readonly robustness: Exclude<ContainmentCell, 'Out of scope'>;
  readonly table: string;
  readonly column: ContainmentColumn | null;
}

const within = (value: number, limit: Limit): boolean => limit.max === null || (limit.inclusive ? value <= limit.max : value < limit.max);

/** Label of a containment column as printed: density label / assemblies label. */
export function containmentColumnLabel(c: ContainmentColumn): string {
  return `${c.densityLabel} / ${c.assembliesLabel}`;
}

/** Tables covering a UA (by size class), in table order. */
export function containmentTablesFor(dimensionM: number, maxSpeedMs: number): ContainmentTable[] {
  const first = CONTAINMENT_TABLES.find((t) => dimensionM <= t.sizeClass.maxDimensionM && maxSpeedMs <= t.sizeClass.maxSpeedMs);
  return first ? CONTAINMENT_TABLES.filter((t) => t.sizeClass.maxDimensionM === first.sizeClass.maxDimensionM) : [];
}

/** Required containment robustness. */
export function containmentFor(input: ContainmentInput): AssessResult<ContainmentValue> {
  const dim = parsePositive(input.dimensionM, 'dimension_m', 'metres');
  const speed = parsePositive(input.maxSpeedMs, 'max_speed_ms', 'm/s');
  const sail = parseSail(input.sail);
  const density = parseNonNegative(input.adjacentAreaDensity, 'adjacent_area_density', 'people/km²');
  const assembly = parseNonNegative(input.largestAssemblyWithin1Km, 'largest_assembly_within_1km', 'people');
  const mass = input.takeOffMassG === undefined ? null : parseNonNegative(input.takeOffMassG, 'mass_g', 'grams');
  const errors = collectErrors(dim, speed, sail, density, assembly, ...(mass ? [mass] : []));
  if (errors.length > 0 || !dim.ok || !speed.ok || !sail.ok || !density.ok || !assembly.ok) return invalid(errors);

  if (mass?.ok && mass.value < SMALL_UA_CONTAINMENT_RULE.belowTakeOffMassG) {
    return ok({ robustness: 'Low', table: SMALL_UA_CONTAINMENT_RULE.source.caption, column: null }, [
      traceFrom(SMALL_UA_CONTAINMENT_RULE.source, 'take-off mass < 250 g', 'all', 'Low', 'low containment, no adjacent-area limitations'),
    ]);
  }

  const candidates = containmentTablesFor(dim.value, speed.value);
  if (candidates.length === 0) {
    return notComputable(
      'unavailable',
      `Not computable from the corpus: no containment table (Tables 8–13) covers a UA of ${dim.value} m at ${speed.value} m/s; the largest class is "< 40 m UA (< 200 m/s)".`,
    );
  }
  let table: ContainmentTable | undefined;
  if (candidates.length === 1) {
    table = candidates[0];
    if (table && input.shelterApplicable === false && table.shelterAssumed) {
      return notComputable(
        'unavailable',
        `Not computable from the corpus: for this UA size class the only table (${table.source.caption}) assumes sheltering in the adjacent ground area; the text has no table without that assumption.`,
      );
    }
  } else {
    if (input.shelterApplicable === undefined) {
      return invalid([
        {
          field: 'shelter_applicable',
          got: undefined,
          allowed: ['true', 'false'],
          message: `For this UA size class the text has two tables (${candidates.map((t) => t.source.caption.split(' — ')[0]).join(', ')}); say whether sheltering is applicable in the adjacent ground area.`,
        },
      ]);
    }
    table = candidates.find((t) => t.shelterAssumed === input.shelterApplicable);
  }
  if (!table) throw new SoraTableError('containment table selection failed'); // unreachable

  const row = table.rows.find((r) => r.sails.includes(sail.value));
  if (!row) throw new SoraTableError(`${table.source.caption} has no row for SAIL ${sail.value}`); // unreachable: fidelity-tested
  let colIndex = -1;
  table.columns.forEach((c, i) => {
    if (within(density.value, c.density) && within(assembly.value, c.assemblies)) colIndex = i;
  });
  const column = table.columns[colIndex];
  const cell = row.cells[colIndex];
  if (!column || !cell) throw new SoraTableError('the first column has no limits'); // unreachable
  const notes: string[] = [];
  if (speed.value === table.sizeClass.maxSpeedMs) {
    notes.push(
      `The table title prints "${table.title}" (strict "<"); Table 1 prints the same speed as the column value. A UA at exactly ${speed.value} m/s was placed in this class, as in Table 1.`,
    );
  }
  if (/-&/.test(row.label)) notes.push(`Row label printed "${row.label}": the "-" is a strike-through artefact of the amendment text.`);
  const trace = [traceFrom(table.source, row.label, containmentColumnLabel(column), cell, `containment ${cell}`)];
  if (cell === 'Out of scope') {
    return notComputable(
      'outside-sora',
      `${table.source.caption} prints "Out of scope" for SAIL ${sail.value} with these adjacent-area limitations; lower the population or assembly limits, or change the operation.`,
      trace,
      notes,
    );
  }
  return ok({ robustness: cell, table: table.source.caption, column }, trace, notes);
}
