/**
 * JSON Schemas of the single-indicator output contract, as plain data (no validator code here, so
 * the ahead-of-time generator and the runtime share one definition).
 */
import { allowedModelValues, INDICATOR_CATALOG, INDICATOR_NAMES, type IndicatorName, type IndicatorValue } from './catalog.js';

export interface IndicatorOutput {
  readonly name: IndicatorName;
  readonly value: IndicatorValue;
  readonly explanation: string;
}

/** JSON Schema (draft-07 subset) of one indicator's output. */
export function indicatorOutputSchema(name: IndicatorName) {
  return {
    $id: `skycite/indicator/${name}`,
    type: 'object',
    additionalProperties: false,
    required: ['name', 'value', 'explanation'],
    properties: {
      name: { const: name },
      value: { enum: [...allowedModelValues(INDICATOR_CATALOG[name])] },
      explanation: { type: 'string', pattern: '\\S' },
    },
  } as const;
}

export const INDICATOR_OUTPUT_SCHEMAS = Object.fromEntries(INDICATOR_NAMES.map((n) => [n, indicatorOutputSchema(n)])) as Record<
  IndicatorName,
  ReturnType<typeof indicatorOutputSchema>
>;

/**
 * The schema handed to the model's constrained decoding (WebLLM `response_format`):
 * the same contract without the validator-only keywords (`$id`, `pattern`), which
 * grammar compilers do not all accept. The reply is still validated against
 * `indicatorOutputSchema` (ajv, precompiled).
 */
export function indicatorGenerationSchema(name: IndicatorName) {
  return {
    type: 'object',
    additionalProperties: false,
    required: ['name', 'value', 'explanation'],
    properties: {
      name: { type: 'string', enum: [name] },
      value: { enum: [...allowedModelValues(INDICATOR_CATALOG[name])] },
      explanation: { type: 'string', minLength: 1 },
    },
  } as const;
}
