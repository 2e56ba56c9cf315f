/**
 * Step #2 — intrinsic GRC from Table 1 (S.4.2), including the small-UA rule printed under the
 * table, the "Not part of SORA" cells and the > 40 m limit of S.4.2.3(e).
 */
import { IGRC_TABLE, type IgrcColumn, type PopulationBand } from './tables/igrc-table.js';
import { collectErrors, parseNonNegative, parsePopulationBand, parsePositive } from './inputs.js';
import { invalid, SoraTableError, notComputable, ok, traceFrom, type AssessResult, type TraceStep } from './types.js';
import { formatMass } from './units.js';

export interface IgrcInput {
  /** Maximum UA characteristic dimension, metres. */
  readonly dimensionM: number;
  /** Maximum speed (maximum possible commanded airspeed), m/s. */
  readonly maxSpeedMs: number;
  /** Highest population density band in the iGRC footprint. */
  readonly population: PopulationBand | string;
  /** Take-off mass in grams, when known (enables the ≤ 250 g rule). */
  readonly takeOffMassG?: number;
}

export interface IgrcValue {
  readonly igrc: number;
  readonly band: PopulationBand;
  /** Index of the Table 1 column used (also used by the final-GRC floor). */
  readonly columnIndex: number;
  readonly column: IgrcColumn;
  /** True when the iGRC came from the ≤ 250 g / ≤ 25 m/s rule rather than the cell. */
  readonly smallUaRule: boolean;
}

const T = IGRC_TABLE;

/** Printed column label, e.g. "3m / 35 m/s". */
export function igrcColumnLabel(column: IgrcColumn): string {
  return `${column.dimensionLabel} / ${column.speedLabel}`;
}

/**
 * Index of the Table 1 column for a UA: the first (left-most) column whose dimension and speed both
 * cover the UA — i.e. the right-most of the two columns each criterion selects on its own, which is
 * how S.4.2.4 "Identification of the iGRC"(a) words it. Boundaries are inclusive (a 3 m UA at 35 m/s
 * is in the 3m / 35 m/s column). Returns null when no column covers the UA.
 */
export function selectIgrcColumn(dimensionM: number, maxSpeedMs: number): number | null {
  const index = T.columns.findIndex((c) => dimensionM <= c.maxDimensionM && maxSpeedMs <= c.maxSpeedMs);
  return index < 0 ? null : index;
}

/** Table 1 row for a population band. */
export function igrcRow(band: PopulationBand) {
  const row = T.rows.find((r) => r.band === band);
  if (!row) throw new SoraTableError(`Table 1 has no row for band ${band}`); // unreachable: rows cover every band
  return row;
}

/** Intrinsic GRC of an operation. */
export function intrinsicGrc(input: IgrcInput): AssessResult<IgrcValue> {
  const dim = parsePositive(input.dimensionM, 'dimension_m', 'metres');
  const speed = parsePositive(input.maxSpeedMs, 'max_speed_ms', 'm/s');
  const band = parsePopulationBand(input.population);
  const mass = input.takeOffMassG === undefined ? null : parseNonNegative(input.takeOffMassG, 'mass_g', 'grams');
  const errors = collectErrors(dim, speed, band, ...(mass ? [mass] : []));
  if (errors.length > 0 || !dim.ok || !speed.ok || !band.ok) return invalid(errors);

  const row = igrcRow(band.value);
  if (dim.value > T.beyondLastColumn.dimensionGreaterThanM) {
    return notComputable(
      'unavailable',
      `Not computable from the corpus: the maximum characteristic dimension (${dim.value} m) is greater than 40 m; ` +
        'S.4.2.3(e) says the iGRC should then be calculated following Appendices A and B to Annex F Edition 2.5, ' +
        'which is not part of the text corpus.',
      [traceFrom(T.source, row.label, 'beyond the "40 m" column', '—', 'UA larger than the last column; S.4.2.3(e) refers to Annex F')],
    );
  }
  const columnIndex = selectIgrcColumn(dim.value, speed.value);
  if (columnIndex === null) {
    return notComputable(
      'unavailable',
      `Not computable from the corpus: the maximum speed (${speed.value} m/s) exceeds the 200 m/s of the last column of ` +
        'Table 1, and the text gives no rule for such UA.',
      [traceFrom(T.source, row.label, 'beyond the "40 m / 200 m/s" column', '—', 'no Table 1 column covers this speed')],
    );
  }
  const column = T.columns[columnIndex] as IgrcColumn;
  const colLabel = igrcColumnLabel(column);
  const cell = row.cells[columnIndex];
  const notes: string[] = [];

  const rule = T.smallUaRule;
  const massValue = mass?.ok ? mass.value : undefined;
  if (massValue !== undefined && massValue <= rule.maxTakeOffMassG && speed.value <= rule.maxSpeedMs) {
    if (band.value !== rule.exceptBand) {
      const trace: TraceStep[] = [
        traceFrom(
          T.source,
          row.label,
          'note under the table: single UA ≤ 250 g take-off mass and ≤ 25 m/s',
          String(rule.igrc),
          `iGRC ${rule.igrc} regardless of population density (take-off mass ${formatMass(massValue)}, ${speed.value} m/s)`,
        ),
      ];
      return ok({ igrc: rule.igrc, band: band.value, columnIndex, column, smallUaRule: true }, trace, [
        `Small-UA rule under Table 1 applied instead of the cell "${String(cell)}" (row "${row.label}", column "${colLabel}").`,
      ]);
    }
    notes.push('The ≤ 250 g rule under Table 1 does not apply over assemblies of people; the table cell is used.');
  }

  if (cell === undefined) throw new SoraTableError('Table 1 row shorter than its header'); // unreachable: fidelity-tested
  if (cell === 'Not part of SORA') {
    return notComputable(
      'outside-sora',
      'Outside the SORA: Table 1 prints "Not part of SORA" (grey cell) for this population density and UA size; ' +
        'S.4.2.4 (c) says such operations are outside the scope of the SORA methodology and the ‘certified’ category should be considered.',
      [traceFrom(T.source, row.label, colLabel, cell, 'grey cell — outside the SORA')],
      notes,
    );
  }
  return ok(
    { igrc: cell, band: band.value, columnIndex, column, smallUaRule: false },
    [traceFrom(T.source, row.label, colLabel, String(cell), `iGRC ${cell}`)],
    notes,
  );
}
