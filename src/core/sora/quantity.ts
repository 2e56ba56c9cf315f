/**
 * Numbers typed with their unit ("30 m/s", "108 km/h", "3,5 m", "25 kg"): the value in the unit
 * the documents use (metres, metres per second, kilograms), or an error that says precisely what
 * could not be read — an unknown unit, or a unit of another quantity ("30 m/s" for a length).
 *
 * The conversion factors are the definitions of the units (1 km/h = 1/3.6 m/s, 1 kt = 1 852 m per
 * hour, 1 mph = 0.447 04 m/s, 1 ft = 0.304 8 m); nothing here is read from the regulation.
 */

export type Dimension = 'length' | 'speed' | 'mass';

interface UnitDef {
  /** Spellings accepted (lower case, no spaces). */
  readonly spellings: readonly string[];
  /** How the unit is written back to the user. */
  readonly symbol: string;
  readonly dimension: Dimension;
  /** Multiply by this to get the dimension's base unit (m, m/s, kg). */
  readonly factor: number;
}

const UNITS: readonly UnitDef[] = [
  { spellings: ['m', 'metre', 'metres', 'meter', 'meters'], symbol: 'm', dimension: 'length', factor: 1 },
  { spellings: ['cm', 'centimetre', 'centimetres', 'centimeter', 'centimeters'], symbol: 'cm', dimension: 'length', factor: 0.01 },
  { spellings: ['mm', 'millimetre', 'millimetres', 'millimeter', 'millimeters'], symbol: 'mm', dimension: 'length', factor: 0.001 },
  { spellings: ['ft', 'foot', 'feet'], symbol: 'ft', dimension: 'length', factor: 0.3048 },
  { spellings: ['m/s', 'mps', 'ms-1', 'm.s-1', 'ms⁻¹', 'm·s⁻¹', 'm/sec'], symbol: 'm/s', dimension: 'speed', factor: 1 },
  { spellings: ['km/h', 'kmh', 'kph', 'km/hr', 'kmh-1', 'km·h⁻¹'], symbol: 'km/h', dimension: 'speed', factor: 1 / 3.6 },
  { spellings: ['kt', 'kts', 'kn', 'knot', 'knots'], symbol: 'kt', dimension: 'speed', factor: 1852 / 3600 },
  { spellings: ['mph'], symbol: 'mph', dimension: 'speed', factor: 0.44704 },
  { spellings: ['kg', 'kgs', 'kilogram', 'kilograms', 'kilogramme', 'kilogrammes'], symbol: 'kg', dimension: 'mass', factor: 1 },
  { spellings: ['g', 'gram', 'grams', 'gramme', 'grammes'], symbol: 'g', dimension: 'mass', factor: 0.001 },
];

/** The base unit of each dimension, and the units accepted for it (for messages). */
export const DIMENSION_UNITS: Readonly<Record<Dimension, { readonly base: string; readonly name: string; readonly accepted: readonly string[] }>> = {
  length: { base: 'm', name: 'a length', accepted: UNITS.filter((u) => u.dimension === 'length').map((u) => u.symbol) },
  speed: { base: 'm/s', name: 'a speed', accepted: UNITS.filter((u) => u.dimension === 'speed').map((u) => u.symbol) },
  mass: { base: 'kg', name: 'a mass', accepted: UNITS.filter((u) => u.dimension === 'mass').map((u) => u.symbol) },
};

export type QuantityReading =
  | {
      readonly ok: true;
      /** In the dimension's base unit (m, m/s, kg). */
      readonly value: number;
      /** The unit as typed (its symbol), or null when the number came without one. */
      readonly unit: string | null;
      /** "108 km/h = 30 m/s" when a conversion happened; null otherwise. */
      readonly conversion: string | null;
    }
  | {
      readonly ok: false;
      readonly reason: 'not-a-number' | 'unknown-unit' | 'wrong-dimension' | 'not-positive';
      /** Why, in words, without the field's name (the caller puts it in front). */
      readonly message: string;
    };

/** A number and an optional unit; decimal comma or point, thin/normal spaces as thousands separators ("1 200 g"). */
const QUANTITY = /^([+-]?(?:\d{1,3}(?:[\s\u00a0\u202f]\d{3})+|\d+)(?:[.,]\d+)?|[+-]?[.,]\d+)\s*(.*)$/u;

/** Rounds away binary noise of a conversion (108 km/h → 30, not 30.000000000000004). */
const tidy = (x: number): number => Number(x.toPrecision(12));

const formatNumber = (x: number): string => String(tidy(x));

/**
 * Reads a quantity of the given dimension. A bare number is taken in the base unit; a unit of the
 * same dimension is converted; anything else is refused with the reason. The value must be > 0.
 */
export function readQuantity(raw: unknown, dimension: Dimension): QuantityReading {
  const dim = DIMENSION_UNITS[dimension];
  if (typeof raw === 'number') {
    if (!Number.isFinite(raw)) return { ok: false, reason: 'not-a-number', message: `"${String(raw)}" is not a number.` };
    if (raw <= 0) return { ok: false, reason: 'not-positive', message: `it must be greater than 0; "${String(raw)}" is not.` };
    return { ok: true, value: raw, unit: null, conversion: null };
  }
  if (typeof raw !== 'string') return { ok: false, reason: 'not-a-number', message: `"${String(raw)}" is not a number.` };
  const m = QUANTITY.exec(raw.trim());
  if (!m) return { ok: false, reason: 'not-a-number', message: `"${raw.trim()}" does not start with a number (for example 2.5 ${dim.base}).` };
  const value = Number((m[1] ?? '').replace(/[\s\u00a0\u202f]/g, '').replace(',', '.'));
  const typedUnit = (m[2] ?? '').trim();
  let unit: UnitDef | null = null;
  if (typedUnit !== '') {
    const key = typedUnit.toLowerCase().replace(/\s+/g, '').replace(/\.$/, '');
    unit = UNITS.find((u) => u.spellings.includes(key)) ?? null;
    if (!unit) {
      return { ok: false, reason: 'unknown-unit', message: `"${typedUnit}" is not a unit SkyCite knows for ${dim.name}; use ${dim.accepted.join(', ')}.` };
    }
    if (unit.dimension !== dimension) {
      return {
        ok: false,
        reason: 'wrong-dimension',
        message: `"${raw.trim()}" is ${DIMENSION_UNITS[unit.dimension].name}, not ${dim.name}; give ${dim.name} in ${dim.accepted.join(', ')}.`,
      };
    }
  }
  if (!(value > 0)) return { ok: false, reason: 'not-positive', message: `it must be greater than 0; "${raw.trim()}" is not.` };
  if (!unit || unit.factor === 1) return { ok: true, value, unit: unit?.symbol ?? null, conversion: null };
  const converted = tidy(value * unit.factor);
  return { ok: true, value: converted, unit: unit.symbol, conversion: `${formatNumber(value)} ${unit.symbol} = ${formatNumber(converted)} ${dim.base}` };
}
