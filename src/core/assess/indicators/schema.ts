/**
 * The single-indicator output contract (SKYSAFE §2.8): exactly one JSON object
 * `{"name": …, "value": …, "explanation": …}` — the requested indicator only, a value from the
 * allowed set, a non-empty explanation, no other key.
 *
 * The schemas are plain JSON Schema data (`output-schema.ts`). They are compiled ahead of time by ajv into
 * `validators.generated.ts` (see `tools/generate-validators.ts`): ajv's runtime compiler needs
 * `new Function`, which the app's Content-Security-Policy (no 'unsafe-eval') forbids in the browser.
 * A test checks that the generated file matches these schemas.
 */
import { allowedModelValues, INDICATOR_CATALOG, type IndicatorName, type IndicatorValue } from './catalog.js';
import type { IndicatorOutput } from './output-schema.js';
import * as generated from './validators.generated.js';

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

/** Removes reasoning blocks and code-fence markers that models wrap around JSON. */
function stripWrappers(raw: string): string {
  return raw
    .replace(/<think>[\s\S]*?<\/think>/gi, ' ')
    .replace(/<\|channel\|>analysis[\s\S]*?<\|end\|>/g, ' ')
    .replace(/```[a-zA-Z]*\s*/g, ' ');
}

/** End index (inclusive) of the balanced `{…}` starting at `start`, honouring JSON strings; -1 if none. */
function balancedEnd(text: string, start: number): number {
  let depth = 0;
  let inString = false;
  for (let i = start; i < text.length; i++) {
    const ch = text[i];
    if (inString) {
      if (ch === '\\') i++;
      else if (ch === '"') inString = false;
      continue;
    }
    if (ch === '"') inString = true;
    else if (ch === '{') depth++;
    else if (ch === '}') {
      depth--;
      if (depth === 0) return i;
    }
  }
  return -1;
}

/**
 * The first JSON object in a model's output (prose, code fences and reasoning blocks around it are
 * ignored). `found: false` when there is no `{`, `parsed: false` when no balanced candidate parses.
 */
export function extractFirstJsonObject(raw: string): { found: false } | { found: true; parsed: false; text: string } | { found: true; parsed: true; value: unknown; text: string } {
  const text = stripWrappers(raw);
  let start = text.indexOf('{');
  if (start < 0) return { found: false };
  let firstCandidate: string | null = null;
  while (start >= 0) {
    const end = balancedEnd(text, start);
    if (end < 0) break;
    const candidate = text.slice(start, end + 1);
    firstCandidate ??= candidate;
    try {
      return { found: true, parsed: true, value: JSON.parse(candidate) as unknown, text: candidate };
    } catch {
      start = text.indexOf('{', start + 1);
    }
  }
  return { found: true, parsed: false, text: firstCandidate ?? text.slice(text.indexOf('{')) };
}

/** Maps "Specific SORA", "Very low", "FULL-SORA" onto allowed values; numbers and exact values untouched. */
function normalizeValue(name: IndicatorName, value: unknown): { value: unknown; changed: boolean } {
  if (typeof value !== 'string') return { value, changed: false };
  const allowed = allowedModelValues(INDICATOR_CATALOG[name]);
  if (allowed.includes(value)) return { value, changed: false };
  const key = value.trim().toLowerCase().replace(/[\s-]+/g, '_');
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
    const detail = issues.map((i) => (i.keyword === 'enum' ? `${i.message} (got ${JSON.stringify(got.value)})` : i.keyword === 'const' ? `${i.message} (got ${JSON.stringify(got.name)})` : i.message));
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
