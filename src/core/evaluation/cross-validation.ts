/**
 * Group-wise K-fold cross-validation of tunable choices: for each fold, the value
 * of a choice is picked on the other folds' questions and measured on the fold's
 * own, so a held-out estimate never sees the questions it scores. Groups (one
 * information need and its variants) never straddle folds.
 *
 * Works on precomputed outcomes: for every candidate value, the first-hit rank of
 * every question (0 = not in the top 10), so the search itself runs once per value.
 */
import { metricsOf, type Metrics } from './retrieval-metrics.js';

export interface CvQuestion {
  id: string;
  group: string;
  variant: string;
}

/** Deterministic fold of each group: groups sorted, shuffled with a seeded LCG, dealt round-robin. */
export function foldsOf(groups: readonly string[], k: number, seed = 1): Map<string, number> {
  if (!Number.isInteger(k) || k < 2) throw new RangeError(`--cv needs K ≥ 2 folds, got ${k}`);
  const unique = [...new Set(groups)].sort();
  if (unique.length < k) throw new RangeError(`--cv ${k}: only ${unique.length} question groups; use K ≤ ${unique.length}`);
  let s = seed >>> 0 || 1;
  const rand = () => (s = (Math.imul(s, 1664525) + 1013904223) >>> 0) / 2 ** 32;
  for (let i = unique.length - 1; i > 0; i--) {
    const j = Math.floor(rand() * (i + 1));
    [unique[i], unique[j]] = [unique[j]!, unique[i]!];
  }
  return new Map(unique.map((g, i) => [g, i % k]));
}

const mrrOf = (ranks: number[]) => (ranks.length ? ranks.reduce((s, r) => s + (r > 0 ? 1 / r : 0), 0) / ranks.length : 0);

export interface ChoiceEstimate {
  /** Metrics of the default value over all questions (the dev figure). */
  dev: Metrics;
  /** Metrics over all questions, each scored with the value chosen without its fold. */
  heldOut: Metrics;
  heldOutByVariant: Record<string, Metrics>;
  /** The value picked for each fold (index into the candidate list). */
  picked: number[];
}

/**
 * `ranks[v][i]`: rank of question i under candidate value v. Picks, per fold, the
 * value with the best MRR on the other folds (ties keep the lower index, so list
 * the default first).
 */
export function crossValidateChoice(
  questions: readonly CvQuestion[],
  ranks: readonly (readonly number[])[],
  folds: Map<string, number>,
  k: number,
): ChoiceEstimate {
  if (!ranks.length) throw new RangeError('no candidate values');
  for (const r of ranks) if (r.length !== questions.length) throw new RangeError('one rank per question and value');
  const foldOf = questions.map((q) => folds.get(q.group) ?? 0);
  const held = new Array<number>(questions.length).fill(0);
  const picked: number[] = [];
  for (let f = 0; f < k; f++) {
    let best = 0;
    let bestMrr = -1;
    ranks.forEach((r, v) => {
      const m = mrrOf(r.filter((_, i) => foldOf[i] !== f));
      if (m > bestMrr + 1e-12) {
        bestMrr = m;
        best = v;
      }
    });
    picked.push(best);
    questions.forEach((_, i) => {
      if (foldOf[i] === f) held[i] = ranks[best]![i]!;
    });
  }
  const byVariant: Record<string, Metrics> = {};
  for (const v of [...new Set(questions.map((q) => q.variant))].sort()) {
    byVariant[v] = metricsOf(held.filter((_, i) => questions[i]!.variant === v));
  }
  return { dev: metricsOf([...ranks[0]!]), heldOut: metricsOf(held), heldOutByVariant: byVariant, picked };
}
