/**
 * Deterministic pseudo-random numbers in [0, 1) from a 32-bit seed (mulberry32): for the build's and
 * the tests' reproducible sampling (synthetic compositions, calibration data, test vectors). Not for
 * anything that needs unpredictability.
 */
export function seededRandom(seed: number): () => number {
  let a = seed >>> 0;
  return () => {
    a = (a + 0x6d2b79f5) >>> 0;
    let t = a;
    t = Math.imul(t ^ (t >>> 15), t | 1);
    t ^= t + Math.imul(t ^ (t >>> 7), t | 61);
    return ((t ^ (t >>> 14)) >>> 0) / 4294967296;
  };
}
