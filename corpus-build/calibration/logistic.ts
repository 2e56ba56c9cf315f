/**
 * Logistic regression for the small rankers trained here (the unit ranker, `npm run train:units`, and
 * the first-position experiment, tools/train/first-position-cv.ts): standardised features, L2,
 * full-batch gradient descent, positives weighted to half the loss because they are rare.
 */
export interface LogisticFit {
  mean: number[];
  std: number[];
  weights: number[];
  bias: number;
}

export function fitLogistic(rows: readonly number[][], ys: readonly number[], { l2 = 1e-3, steps = 400, rate = 0.5 } = {}): LogisticFit {
  const d = rows[0]?.length ?? 0;
  const mean = Array.from({ length: d }, (_, k) => rows.reduce((s, r) => s + r[k]!, 0) / rows.length);
  const std = Array.from({ length: d }, (_, k) => Math.sqrt(rows.reduce((s, r) => s + (r[k]! - mean[k]!) ** 2, 0) / rows.length) || 1);
  const z = rows.map((r) => r.map((v, k) => (v - mean[k]!) / std[k]!));
  const pos = ys.filter((v) => v === 1).length;
  const wPos = pos ? (ys.length - pos) / pos : 1;
  const w = new Array<number>(d).fill(0);
  let b = 0;
  for (let step = 0; step < steps; step++) {
    const g = new Array<number>(d).fill(0);
    let gb = 0;
    let norm = 0;
    for (let i = 0; i < z.length; i++) {
      const p = 1 / (1 + Math.exp(-(b + z[i]!.reduce((s, v, k) => s + w[k]! * v, 0))));
      const weight = ys[i] === 1 ? wPos : 1;
      const err = (p - ys[i]!) * weight;
      norm += weight;
      for (let k = 0; k < d; k++) g[k]! += err * z[i]![k]!;
      gb += err;
    }
    for (let k = 0; k < d; k++) w[k]! -= rate * (g[k]! / norm + l2 * w[k]!);
    b -= rate * (gb / norm);
  }
  return { mean, std, weights: w, bias: b };
}

/** The fitted model's log-odds for one row of raw (unstandardised) features. */
export const logOdds = (m: LogisticFit, x: readonly number[]): number => m.bias + x.reduce((s, v, k) => s + (m.weights[k]! * (v - m.mean[k]!)) / m.std[k]!, 0);
