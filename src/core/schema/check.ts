/**
 * Reading a compiled validator's verdict: every JSON shape SkyCite checks has a JSON schema beside
 * the code that reads it, compiled ahead of time by ajv into validators.generated.ts
 * (tools/generate-validators.ts: no `new Function` at run time, so it works under the app's CSP).
 * The caller turns the errors into its own words.
 */

/** One error of a compiled validator (the part of ajv's ErrorObject SkyCite reads). */
export interface SchemaError {
  keyword: string;
  /** JSON Pointer of the value at fault ('' for the whole value). */
  instancePath: string;
  params: Record<string, unknown>;
  message?: string;
}

type Compiled = ((value: unknown) => boolean) & { errors?: SchemaError[] | null };

/** The value's errors against a compiled validator: none when it has the schema's shape. */
export function schemaErrors(validator: (value: unknown) => boolean, value: unknown): SchemaError[] {
  const v = validator as Compiled;
  return v(value) ? [] : [...(v.errors ?? [])];
}

/** Whether the errors concern `field` of the value at `parent` (JSON Pointers, '' the whole value): missing, or wrong in itself or below. */
export function concerns(errors: readonly SchemaError[], parent: string, field: string): boolean {
  return errors.some(
    (e) =>
      e.instancePath === `${parent}/${field}` ||
      e.instancePath.startsWith(`${parent}/${field}/`) ||
      (e.instancePath === parent && e.keyword === 'required' && e.params['missingProperty'] === field),
  );
}
