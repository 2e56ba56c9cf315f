/**
 * Vector similarity, in one place: the inner product of two vectors. Every vector SkyCite compares is
 * L2-normalised (the embedders' output, the index's vectors), so the inner product is their cosine.
 */

/** Inner product of `a` with the `dim` values of `b` from `bOffset` (a row of a packed matrix); by default all of `a` against the start of `b`. */
export function dot(a: Float32Array, b: Float32Array, bOffset = 0, dim = a.length): number {
  let s = 0;
  for (let i = 0; i < dim; i++) s += a[i]! * b[bOffset + i]!;
  return s;
}

/** Cosine of two vectors that need not be normalised (0 when either is zero). */
export function cosine(a: Float32Array, b: Float32Array): number {
  const norms = Math.sqrt(dot(a, a) * dot(b, b));
  return norms ? dot(a, b) / norms : 0;
}
