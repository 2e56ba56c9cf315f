/**
 * The grounding check's thresholds from labelled (sentence, passage) pairs: build time only
 * (`npm run calibrate:grounding`, `npm run label:claims`). The pairs are measured with the check's
 * own measure (src/core/answer/grounding.ts `measureSupport`); the thresholds it picks go into
 * src/core/answer/config.ts.
 */
import { CorpusBuildError } from '../errors.js';

const round4 = (x: number): number => Math.round(x * 1e4) / 1e4;

export interface LabelledSupport {
  similarity: number;
  overlap: number;
  /** Numbers check outcome (default true); the numbers rule is fixed, not calibrated. */
  numbersOk?: boolean;
  /** The human label: does the chunk support the sentence? */
  supported: boolean;
}

export interface CalibrationResult {
  similarity: number;
  overlap: number;
  examples: number;
  /** Confusion counts at the chosen thresholds ("positive" = predicted supported). */
  tp: number;
  fp: number;
  tn: number;
  fn: number;
  /** FP / (FP + TN): unsupported sentences passed as supported. */
  falseSupportRate: number;
  /** TP / (TP + FN): supported sentences recognised. */
  supportRecall: number;
  balancedAccuracy: number;
  /** True when the false-support target could be met. */
  metTarget: boolean;
}

/** Candidate thresholds: 0, midpoints between consecutive distinct values, and just above the maximum. */
function candidates(values: number[], maxCandidates: number): number[] {
  let v = [...new Set(values.map((x) => round4(x)))].sort((a, b) => a - b);
  if (v.length > maxCandidates) v = Array.from({ length: maxCandidates }, (_, i) => v[Math.round((i * (v.length - 1)) / (maxCandidates - 1))]!);
  const out = [0];
  for (let i = 0; i + 1 < v.length; i++) out.push(round4((v[i]! + v[i + 1]!) / 2));
  if (v.length) out.push(round4(v[v.length - 1]! + 1e-3));
  return [...new Set(out)].sort((a, b) => a - b);
}

/**
 * Pick the similarity and overlap thresholds from labelled examples.
 *
 * Procedure: every pair of candidate thresholds (0, the midpoints between
 * consecutive observed values, and just above the maximum, for each measure)
 * is scored on the examples with the same rule the checker uses (both
 * thresholds met and numbers present). Among pairs whose false-support rate
 * (unsupported sentences passed as supported) is at most
 * `maxFalseSupportRate` (default 0.05 — a wrongly "supported" regulatory
 * claim is the costly error), the pair with the best balanced accuracy wins;
 * ties go to the stricter pair (larger sum of thresholds). If no pair meets the
 * target, the lowest false-support rate wins, then balanced accuracy.
 * Midpoints put the boundary half-way between neighbouring examples rather than
 * on one of them.
 */
export function calibrate(examples: readonly LabelledSupport[], options: { maxFalseSupportRate?: number; maxCandidates?: number } = {}): CalibrationResult {
  const target = options.maxFalseSupportRate ?? 0.05;
  const maxC = options.maxCandidates ?? 200;
  if (!examples.length) throw new CorpusBuildError('calibrate() needs labelled examples.');
  const sims = candidates(
    examples.map((e) => e.similarity),
    maxC,
  );
  const ovs = candidates(
    examples.map((e) => e.overlap),
    maxC,
  );
  const pos = examples.filter((e) => e.supported).length;
  const neg = examples.length - pos;
  let bestR: CalibrationResult | null = null;
  const better = (a: CalibrationResult, b: CalibrationResult): boolean => {
    if (a.metTarget !== b.metTarget) return a.metTarget;
    if (!a.metTarget && a.falseSupportRate !== b.falseSupportRate) return a.falseSupportRate < b.falseSupportRate;
    if (a.balancedAccuracy !== b.balancedAccuracy) return a.balancedAccuracy > b.balancedAccuracy;
    return a.similarity + a.overlap > b.similarity + b.overlap;
  };
  for (const s of sims) {
    for (const o of ovs) {
      let tp = 0;
      let fp = 0;
      for (const e of examples) {
        const pred = e.similarity >= s && e.overlap >= o && e.numbersOk !== false;
        if (pred && e.supported) tp++;
        else if (pred) fp++;
      }
      const fn = pos - tp;
      const tn = neg - fp;
      const falseSupportRate = neg ? fp / neg : 0;
      const supportRecall = pos ? tp / pos : 1;
      const r: CalibrationResult = {
        similarity: s,
        overlap: o,
        examples: examples.length,
        tp,
        fp,
        tn,
        fn,
        falseSupportRate,
        supportRecall,
        balancedAccuracy: (supportRecall + (neg ? tn / neg : 1)) / 2,
        metTarget: falseSupportRate <= target,
      };
      if (!bestR || better(r, bestR)) bestR = r;
    }
  }
  return bestR!;
}
