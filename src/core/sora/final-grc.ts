/**
 * Step #3 — final GRC: Table 5 credits applied in numerical sequence M1(A), M1(B), M1(C), M2
 * (S.4.3.3(a), S.4.3.4(c)), then bounded below by the controlled-ground-area value of the same
 * Table 1 column (S.4.3.4(f) for the M1 mitigations; Annex B Table B.1 principle #8 for the GRC as
 * a whole, so also after M2).
 */
import {
  CONTROLLED_AREA_FLOOR_PRINCIPLE,
  GRC_MITIGATIONS_TABLE,
  M1_FLOOR_RULE,
  M1A_MEDIUM_M1B_EXCLUSION,
  MITIGATION_KEYS,
  ROBUSTNESS_COLUMNS,
  type MitigationKey,
  type MitigationLevel,
  type MitigationRow,
  type RobustnessColumn,
} from './tables/grc-mitigations-table.js';
import { IGRC_TABLE, type PopulationBand } from './tables/igrc-table.js';
import { igrcColumnLabel, igrcRow } from './igrc.js';
import { invalid, SoraTableError, ok, traceFrom, type AssessResult, type TraceStep, type ValidationError } from './types.js';

/** Claimed mitigation levels; a missing key means `none`. */
export type MitigationClaims = Partial<Record<MitigationKey, MitigationLevel | string>>;

export interface FinalGrcInput {
  readonly igrc: number;
  /** Table 1 column of the UA (from {@link intrinsicGrc}); selects the floor. */
  readonly columnIndex: number;
  readonly mitigations: MitigationClaims | undefined;
  /** Population band of the footprint, when known (only used for advisory notes). */
  readonly population?: PopulationBand;
}

export interface AppliedCredit {
  readonly mitigation: MitigationKey;
  readonly level: RobustnessColumn;
  readonly credit: number;
}

export interface FinalGrcValue {
  readonly finalGrc: number;
  readonly igrc: number;
  readonly floor: number;
  readonly credits: readonly AppliedCredit[];
  readonly floorApplied: boolean;
  /** False when the final GRC is greater than 7 (outside the SORA, ‘certified’ category). */
  readonly withinSora: boolean;
}

const T5 = GRC_MITIGATIONS_TABLE;

/** Levels allowed for a mitigation: `none` plus every Table 5 column whose cell is not "n/a". */
export function allowedLevels(key: MitigationKey): MitigationLevel[] {
  const row = mitigationRow(key);
  return ['none', ...ROBUSTNESS_COLUMNS.filter((c) => row.cells[c].credit !== null)];
}

function mitigationRow(key: MitigationKey): MitigationRow {
  const row = T5.rows.find((r) => r.key === key);
  if (!row) throw new SoraTableError(`Table 5 has no row ${key}`); // unreachable
  return row;
}

/** Validates the claims against Table 5; "n/a" cells and unknown keys are errors. */
export function validateMitigations(claims: unknown): { levels: Record<MitigationKey, MitigationLevel> } | { errors: ValidationError[] } {
  const levels: Record<MitigationKey, MitigationLevel> = { m1a: 'none', m1b: 'none', m1c: 'none', m2: 'none' };
  if (claims === undefined || claims === null) return { levels };
  if (typeof claims !== 'object' || Array.isArray(claims)) {
    return { errors: [{ field: 'mitigations', got: claims, allowed: ['an object with keys m1a, m1b, m1c, m2'], message: 'mitigations must be an object.' }] };
  }
  const errors: ValidationError[] = [];
  for (const [rawKey, rawLevel] of Object.entries(claims as Record<string, unknown>)) {
    const key = MITIGATION_KEYS.find((k) => k === rawKey.toLowerCase());
    if (!key) {
      errors.push({ field: `mitigations.${rawKey}`, got: rawKey, allowed: MITIGATION_KEYS, message: `Unknown mitigation "${rawKey}".` });
      continue;
    }
    const allowed = allowedLevels(key);
    const level = typeof rawLevel === 'string' ? rawLevel.trim().toLowerCase() : rawLevel;
    const match = allowed.find((a) => a === level);
    if (!match) {
      const row = mitigationRow(key);
      const naCol = ROBUSTNESS_COLUMNS.find((c) => c === level && row.cells[c].credit === null);
      errors.push({
        field: `mitigations.${key}`,
        got: rawLevel,
        allowed,
        message: naCol
          ? `${row.label} at ${T5.columnLabels[naCol]} robustness is "n/a" in ${T5.source.caption} (p. ${T5.source.page}); allowed: ${allowed.join(', ')}.`
          : `mitigations.${key} must be one of ${allowed.join(', ')}.`,
        ...(naCol ? { notApplicable: true as const } : {}),
      });
      continue;
    }
    levels[key] = match;
  }
  return errors.length > 0 ? { errors } : { levels };
}

/** Final GRC from an iGRC and claimed mitigations. */
export function finalGrc(input: FinalGrcInput): AssessResult<FinalGrcValue> {
  const errors: ValidationError[] = [];
  if (!Number.isInteger(input.igrc) || input.igrc < 1) {
    errors.push({ field: 'igrc', got: input.igrc, allowed: ['an integer ≥ 1'], message: 'igrc must be an integer ≥ 1.' });
  }
  const column = IGRC_TABLE.columns[input.columnIndex];
  if (!column) {
    errors.push({
      field: 'columnIndex',
      got: input.columnIndex,
      allowed: IGRC_TABLE.columns.map((_, i) => String(i)),
      message: 'columnIndex must designate a Table 1 column.',
    });
  }
  const validated = validateMitigations(input.mitigations);
  if ('errors' in validated) errors.push(...validated.errors);
  if (errors.length > 0 || !column || 'errors' in validated) return invalid(errors);

  const controlledRow = igrcRow('controlled');
  const floor = controlledRow.cells[input.columnIndex];
  if (typeof floor !== 'number') throw new SoraTableError('controlled-ground-area row must be numeric'); // fidelity-tested
  const colLabel = igrcColumnLabel(column);

  const trace: TraceStep[] = [];
  const notes: string[] = [];
  const credits: AppliedCredit[] = [];
  let grc = input.igrc;
  let floorApplied = false;

  const clamp = (why: 'M1' | 'all') => {
    if (grc >= floor) return;
    const before = grc;
    grc = floor;
    floorApplied = true;
    const floorEffect = `GRC ${before} raised to ${floor}, the controlled-ground-area value of column "${colLabel}"`;
    if (why === 'M1') {
      trace.push(traceFrom(M1_FLOOR_RULE.source, 'all M1 mitigations applied', colLabel, String(floor), floorEffect));
    }
    trace.push(traceFrom(IGRC_TABLE.source, controlledRow.label, colLabel, String(floor), 'floor value'));
    trace.push(traceFrom(CONTROLLED_AREA_FLOOR_PRINCIPLE.source, CONTROLLED_AREA_FLOOR_PRINCIPLE.row, 'Principle description', '#8', floorEffect));
  };

  const apply = (row: MitigationRow) => {
    const level = validated.levels[row.key];
    if (level === 'none') return;
    const cell = row.cells[level];
    if (cell.credit === null) return; // excluded by validation
    grc += cell.credit;
    credits.push({ mitigation: row.key, level, credit: cell.credit });
    trace.push(traceFrom(T5.source, row.label, T5.columnLabels[level], cell.printed, `credit ${cell.credit} → GRC ${grc}`));
    if (cell.footnote !== undefined) {
      notes.push(
        `The ${T5.columnLabels[level]} cell of ${row.label.split(' ')[0]} is printed "${cell.printed}": ${cell.credit} with footnote ${cell.footnote} (the competent authority may allow a reduction higher than 2 where corrected population density maps are used).`,
      );
    }
  };
  // M1(A), M1(B), M1(C) in numerical sequence, then the M1 floor of S.4.3.4(f).
  for (const row of T5.rows) if (row.key !== 'm2') apply(row);
  if (credits.length > 0) clamp('M1');
  // M2, then principle #8 of Annex B for the GRC as a whole.
  for (const row of T5.rows) if (row.key === 'm2') apply(row);
  clamp('all');

  if (validated.levels.m1a === 'medium' && validated.levels.m1b !== 'none') {
    notes.push(
      `Annex B, B.2 (p. ${M1A_MEDIUM_M1B_EXCLUSION.source.page}) states that M1(A) medium robustness cannot be combined with any M1(B) mitigation (double-counting of time-based restrictions); the combination was computed as requested but would not be accepted as claimed.`,
    );
  }
  if (validated.levels.m1a !== 'none' && input.population === '>50000') {
    notes.push('Annex B, Table B.2 (p. 85): the M1(A) sheltering mitigation cannot be claimed when flying over outdoor assemblies of people.');
  }
  const withinSora = grc <= 7;
  if (!withinSora) {
    notes.push(
      `Final GRC ${grc} is greater than 7: S.4.3.4 ("What if the final GRC is greater than 7?", p. 30) — the operation poses a greater risk than the SORA is designed to support; consider the ‘certified’ category.`,
    );
  }
  return ok({ finalGrc: grc, igrc: input.igrc, floor, credits, floorApplied, withinSora }, trace, notes);
}
