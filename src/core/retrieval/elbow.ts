/**
 * Elbow filtering (SKYSAFE §2.6.3): with scores sorted descending and drops
 * Δi = s_i − s_{i+1}, keep the prefix up to the first i whose drop exceeds the
 * threshold. Returns how many to keep (all when no drop exceeds it).
 */
export function elbowCut(scores: number[], threshold: number): number {
  for (let i = 0; i + 1 < scores.length; i++) if (scores[i]! - scores[i + 1]! > threshold) return i + 1;
  return scores.length;
}
