/**
 * The Assess form ↔ `validateOperationInput` adapter: form values (strings from selects and
 * number inputs) become the raw operation descriptor, and validation errors are grouped by
 * form field so each input can show its own message (naming the field and allowed values).
 */
import { allowedLevels } from '../../core/sora/final-grc';
import { GRC_MITIGATIONS_TABLE, MITIGATION_KEYS, type MitigationKey } from '../../core/sora/tables/grc-mitigations-table';
import type { ValidationError } from '../../core/sora/types';
import {
  FIELD_SPECS,
  fieldLabel,
  numberConversions,
  readOperationFields,
  validateOperationInput,
  type InputValidation,
  type OperationField,
} from '../../core/indicators/inputs';
import { describeRequirements, type Requirements } from '../../core/indicators/requirements';

/** What the form holds: every field as a string ('' = not given), mitigations per key. */
export interface AssessFormValues {
  mtom_category: string;
  visual_mode: string;
  ground_environment: string;
  airspace_type: string;
  max_altitude_category: string;
  characteristic_dimension_m: string;
  max_speed_ms: string;
  population_band: string;
  residual_arc: string;
  mitigations: Record<MitigationKey, string>;
}

export function emptyFormValues(): AssessFormValues {
  return {
    mtom_category: '',
    visual_mode: '',
    ground_environment: '',
    airspace_type: '',
    max_altitude_category: '',
    characteristic_dimension_m: '',
    max_speed_ms: '',
    population_band: '',
    residual_arc: '',
    mitigations: { m1a: 'none', m1b: 'none', m1c: 'none', m2: 'none' },
  };
}

/** Label of a mitigation row as printed in SORA Table 5. */
export function mitigationLabel(key: MitigationKey): string {
  return GRC_MITIGATIONS_TABLE.rows.find((r) => r.key === key)?.label ?? key.toUpperCase();
}

/** Levels a mitigation select offers (none plus the Table 5 columns that are not "n/a"). */
export function mitigationOptions(key: MitigationKey): string[] {
  return allowedLevels(key);
}

/** Form values → the raw object `validateOperationInput` takes (blank optional fields left out). */
export function formToRaw(values: AssessFormValues): Record<string, unknown> {
  const raw: Record<string, unknown> = {};
  for (const spec of FIELD_SPECS) {
    if (spec.kind === 'mitigations') continue;
    const v = values[spec.field as Exclude<OperationField, 'mitigations'>];
    if (spec.required || v.trim() !== '') raw[spec.field] = v;
  }
  const claimed: Record<string, string> = {};
  for (const k of MITIGATION_KEYS) {
    const level = values.mitigations[k];
    if (level && level !== 'none') claimed[k] = level;
  }
  if (Object.keys(claimed).length) raw.mitigations = claimed;
  return raw;
}

/** The form field an error belongs to ("mitigations.m1a" → "mitigations.m1a"; unknown → "(form)"). */
export function errorFieldKey(error: ValidationError): string {
  if (error.field.startsWith('mitigations')) return error.field;
  return FIELD_SPECS.some((f) => f.field === error.field) ? error.field : '(form)';
}

/** The message shown under a field: the validator's, which names the field by its label and says what to enter. */
export function describeError(error: ValidationError): string {
  return error.message;
}

export interface FormValidation {
  result: InputValidation;
  /** field key → messages. */
  errors: Record<string, string[]>;
}

/** Validate the form; errors grouped by field. */
export function validateForm(values: AssessFormValues): FormValidation {
  const result = validateOperationInput(formToRaw(values));
  const errors: Record<string, string[]> = {};
  if (!result.ok) {
    for (const e of result.errors) (errors[errorFieldKey(e)] ??= []).push(describeError(e));
  }
  return { result, errors };
}

/** What each result needs for the values as they are now (said before the run, as the user types). */
export function formRequirements(values: AssessFormValues): Requirements {
  return describeRequirements(formToRaw(values));
}

/** Conversions the number fields' units led to ("108 km/h = 30 m/s"), by field. */
export function formConversions(values: AssessFormValues): Partial<Record<OperationField, string>> {
  return numberConversions(formToRaw(values));
}

/** A copy of the form values (a snapshot of what a run used). */
export function copyFormValues(values: AssessFormValues): AssessFormValues {
  return { ...values, mitigations: { ...values.mitigations } };
}

/**
 * The fields (by label) whose values differ between two snapshots of the form, compared as read
 * ("30" and "30 m/s" are the same speed); a field whose value cannot be read now counts as changed.
 */
export function changedFields(before: AssessFormValues, now: AssessFormValues): string[] {
  const a = readOperationFields(formToRaw(before));
  const b = readOperationFields(formToRaw(now));
  const unreadable = new Set(b.errors.map((e) => (e.field.startsWith('mitigations') ? 'mitigations' : e.field)));
  return FIELD_SPECS.filter(
    (spec) => unreadable.has(spec.field) || JSON.stringify(a.values[spec.field] ?? null) !== JSON.stringify(b.values[spec.field] ?? null),
  ).map((spec) => fieldLabel(spec.field));
}
