/**
 * The one configuration merge: defaults with overrides applied at any depth.
 * Plain objects merge key by key; arrays, primitives and class instances replace;
 * `undefined` leaves the default. The inputs are never modified.
 */
export type DeepPartial<T> = { [K in keyof T]?: T[K] extends readonly unknown[] ? T[K] : T[K] extends object ? DeepPartial<T[K]> : T[K] };

const isPlainObject = (v: unknown): v is Record<string, unknown> =>
  typeof v === 'object' && v !== null && !Array.isArray(v) && Object.getPrototypeOf(v) === Object.prototype;

export function deepMerge<T>(base: T, over: DeepPartial<T> | undefined): T {
  if (!isPlainObject(base) || !isPlainObject(over)) return (over === undefined ? structuredClone(base) : over) as T;
  const out: Record<string, unknown> = {};
  for (const [k, v] of Object.entries(base)) out[k] = structuredClone(v);
  for (const [k, v] of Object.entries(over)) {
    if (v === undefined) continue;
    out[k] = isPlainObject(v) && isPlainObject(out[k]) ? deepMerge(out[k], v) : structuredClone(v);
  }
  return out as T;
}
