/** Quantities as people write them. */

/** A take-off mass: grams below 1 kg ("249 g"), kilograms from there ("20 kg", "1.5 kg"), never "20000 g". */
export function formatMass(grams: number): string {
  if (grams < 1000) return `${Math.round(grams)} g`;
  return `${String(Math.round(grams / 10) / 100)} kg`;
}
