/**
 * Input normalisation and validation shared by the calculator functions. Each parser returns the
 * typed value or a {@link ValidationError} naming the field and the values the tables allow.
 */
import { POPULATION_BANDS, type PopulationBand } from './tables/igrc-table.js';
import { RESIDUAL_ARCS, SAIL_LEVELS, type ResidualArc, type Sail } from './tables/sail-table.js';
import type { ValidationError } from './types.js';

export type Parsed<T> = { ok: true; value: T } | { ok: false; error: ValidationError };

const good = <T>(value: T): Parsed<T> => ({ ok: true, value });
const bad = <T>(field: string, got: unknown, allowed: readonly string[], message: string): Parsed<T> => ({
  ok: false,
  error: { field, got, allowed, message },
});

/** Population band: accepts `<50`, `< 50`, `< 5 000`, `controlled`, `Controlled ground area`, … */
export function parsePopulationBand(raw: unknown, field = 'population'): Parsed<PopulationBand> {
  if (typeof raw === 'string') {
    const compact = raw
      .toLowerCase()
      .replace(/[\s,]/g, '')
      .replace(/people\/km2?|\/km2?/g, '');
    if (compact === 'controlled' || compact === 'controlledgroundarea') return good('controlled');
    const found = POPULATION_BANDS.find((b) => b === compact);
    if (found) return good(found);
  }
  return bad(field, raw, POPULATION_BANDS, `${field} must be one of ${POPULATION_BANDS.join(', ')} (people/km²).`);
}

/** Residual ARC: accepts `c`, `C`, `ARC-c`, `arc c`. */
export function parseResidualArc(raw: unknown, field = 'residual_arc'): Parsed<ResidualArc> {
  if (typeof raw === 'string') {
    const m = /^\s*(?:arc\s*[-–]?\s*)?([a-d])\s*$/i.exec(raw);
    if (m?.[1]) return good(m[1].toLowerCase() as ResidualArc);
  }
  return bad(field, raw, RESIDUAL_ARCS, `${field} must be a residual ARC: ${RESIDUAL_ARCS.join(', ')} (or ARC-a … ARC-d).`);
}

/** SAIL: accepts roman numerals I–VI (any case, optional "SAIL " prefix) or the numbers 1–6. */
export function parseSail(raw: unknown, field = 'sail'): Parsed<Sail> {
  if (typeof raw === 'number' && Number.isInteger(raw) && raw >= 1 && raw <= 6) return good(SAIL_LEVELS[raw - 1] as Sail);
  if (typeof raw === 'string') {
    const s = raw
      .trim()
      .replace(/^sail\s*/i, '')
      .toUpperCase();
    const found = SAIL_LEVELS.find((l) => l === s);
    if (found) return good(found);
    if (/^[1-6]$/.test(s)) return good(SAIL_LEVELS[Number(s) - 1] as Sail);
  }
  return bad(field, raw, SAIL_LEVELS, `${field} must be a SAIL: ${SAIL_LEVELS.join(', ')}.`);
}

/** A finite number > 0 (dimensions, speeds). */
export function parsePositive(raw: unknown, field: string, unit: string): Parsed<number> {
  if (typeof raw === 'number' && Number.isFinite(raw) && raw > 0) return good(raw);
  return bad(field, raw, [`a number > 0 (${unit})`], `${field} must be a number greater than 0 (${unit}).`);
}

/** A finite number ≥ 0 (densities, head counts, masses). */
export function parseNonNegative(raw: unknown, field: string, unit: string): Parsed<number> {
  if (typeof raw === 'number' && Number.isFinite(raw) && raw >= 0) return good(raw);
  return bad(field, raw, [`a number ≥ 0 (${unit})`], `${field} must be a number ≥ 0 (${unit}).`);
}

/** Collects the errors of several parse results. */
export function collectErrors(...results: readonly Parsed<unknown>[]): ValidationError[] {
  return results.flatMap((r) => (r.ok ? [] : [r.error]));
}
