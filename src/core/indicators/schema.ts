/**
 * The single-indicator output contract (SKYSAFE §2.8): exactly one JSON object
 * `{"name": …, "value": …, "explanation": …}` — the requested indicator only, a value from the
 * allowed set, a non-empty explanation, no other key.
 *
 * The schemas are plain JSON Schema data (`output-schema.ts`). They are compiled ahead of time by ajv into
 * `core/schema/validators.generated.ts` (see `tools/generate-validators.ts`): ajv's runtime compiler needs
 * `new Function`, which the app's Content-Security-Policy (no 'unsafe-eval') forbids in the browser.
 * A test checks that the generated file matches these schemas.
 */
import { extractFirstJsonObject } from '../llm/json.js';
import { allowedModelValues, INDICATOR_CATALOG, type IndicatorName, type IndicatorValue } from './catalog.js';
import type { IndicatorOutput } from './output-schema.js';
import * as generated from '../schema/validators.generated.js';

export { indicatorOutputSchema, INDICATOR_OUTPUT_SCHEMAS, type IndicatorOutput } from './output-schema.js';

/** An ajv error object, as emitted by the generated validators. */
export interface ValidatorError {
  readonly instancePath: string;
  readonly keyword: string;
  readonly params: Readonly<Record<string, unknown>>;
  readonly message?: string;
}

/** A precompiled ajv validator (standalone code). */
export interface GeneratedValidator {
  (data: unknown): boolean;
  errors?: readonly ValidatorError[] | null;
}

const INDICATOR_VALIDATORS = generated as unknown as Readonly<Record<IndicatorName, GeneratedValidator>>;

export { extractFirstJsonObject };

/** One schema violation, in words. */
export interface SchemaIssue {
  readonly path: string;
  readonly keyword: string;
  readonly message: string;
}

export type ParseFailureReason = 'no-json' | 'malformed-json' | 'schema' | 'value-mismatch';

export type ParseOutcome =
  | { readonly ok: true; readonly output: IndicatorOutput; readonly normalized: boolean }
  | { readonly ok: false; readonly reason: ParseFailureReason; readonly message: string; readonly issues: readonly SchemaIssue[] };

/** Maps "Specific SORA", "Very low", "FULL-SORA" onto allowed values; numbers and exact values untouched. */
function normalizeValue(name: IndicatorName, value: unknown): { value: unknown; changed: boolean } {
  if (typeof value !== 'string') return { value, changed: false };
  const allowed = allowedModelValues(INDICATOR_CATALOG[name]);
  if (allowed.includes(value)) return { value, changed: false };
  const key = value
    .trim()
    .toLowerCase()
    .replace(/[\s-]+/g, '_');
  const labels = INDICATOR_CATALOG[name].valueLabels;
  const match = allowed.find((a) => typeof a === 'string' && (a.toLowerCase() === key || labels[a]?.toLowerCase() === value.trim().toLowerCase()));
  return match === undefined ? { value, changed: false } : { value: match, changed: true };
}

function describeIssue(name: IndicatorName, e: ValidatorError): SchemaIssue {
  const path = e.instancePath || '/';
  const allowed = allowedModelValues(INDICATOR_CATALOG[name]).map(String).join(', ');
  switch (e.keyword) {
    case 'additionalProperties':
      return { path, keyword: e.keyword, message: `unexpected key "${String(e.params.additionalProperty)}" (only name, value, explanation are allowed)` };
    case 'required':
      return { path, keyword: e.keyword, message: `missing key "${String(e.params.missingProperty)}"` };
    case 'const':
      return { path, keyword: e.keyword, message: `name must be "${name}" (only the requested indicator may be returned)` };
    case 'enum':
      return { path, keyword: e.keyword, message: `value is not one of the allowed values: ${allowed}` };
    case 'pattern':
      return { path, keyword: e.keyword, message: 'explanation must not be empty' };
    default:
      return { path, keyword: e.keyword, message: `${path} ${e.message ?? 'is invalid'}` };
  }
}

/**
 * Parses and validates one model output for an indicator. With `expectedValue` (explanation of a
 * calculated value), the value must also equal the computed one.
 */
export function parseIndicatorOutput(raw: string, name: IndicatorName, options: { expectedValue?: IndicatorValue } = {}): ParseOutcome {
  const extracted = extractFirstJsonObject(raw);
  if (!extracted.found) return { ok: false, reason: 'no-json', message: 'the output contains no JSON object', issues: [] };
  if (!extracted.parsed) return { ok: false, reason: 'malformed-json', message: 'the JSON object in the output does not parse', issues: [] };
  let data = extracted.value;
  let normalized = false;
  if (typeof data === 'object' && data !== null && !Array.isArray(data) && 'value' in data) {
    const n = normalizeValue(name, (data as { value: unknown }).value);
    if (n.changed) {
      data = { ...(data as object), value: n.value };
      normalized = true;
    }
  }
  const validate = INDICATOR_VALIDATORS[name];
  if (!validate(data)) {
    const issues = (validate.errors ?? []).map((e) => describeIssue(name, e));
    const got = typeof data === 'object' && data !== null ? (data as Record<string, unknown>) : {};
    const detail = issues.map((i) =>
      i.keyword === 'enum'
        ? `${i.message} (got ${JSON.stringify(got.value)})`
        : i.keyword === 'const'
          ? `${i.message} (got ${JSON.stringify(got.name)})`
          : i.message,
    );
    return { ok: false, reason: 'schema', message: detail.join('; '), issues };
  }
  const output = data as IndicatorOutput;
  if (options.expectedValue !== undefined && output.value !== options.expectedValue) {
    return {
      ok: false,
      reason: 'value-mismatch',
      message: `value ${JSON.stringify(output.value)} differs from the computed value ${JSON.stringify(options.expectedValue)}; the model may only explain it`,
      issues: [{ path: '/value', keyword: 'const', message: `value must be ${JSON.stringify(options.expectedValue)}` }],
    };
  }
  return { ok: true, output: { name: output.name, value: output.value, explanation: output.explanation.trim() }, normalized };
}
