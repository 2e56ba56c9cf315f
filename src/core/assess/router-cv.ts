/**
 * K-fold cross-validation of the router's open choices ({@link RouterPolicy}): for each fold the
 * policy with the best accuracy on the other folds is picked (ties keep the earlier policy, the
 * default first) and scored on the fold's own cases, so no held-out case ever chose the policy
 * that scores it. Repeated over several fold assignments (seeds) because router sets are small.
 *
 * What it estimates: the accuracy of "choose the policy on labelled routing questions, then route
 * new ones", on questions of the same kind. It does not estimate how the hand-written cues
 * themselves transfer beyond what such questions cover.
 */
import { foldsOf } from '../evaluation/cross-validation.js';
import type { RouterCase } from './eval.js';
import { prefilterRoute, routerPolicies, type RouterPolicy } from './router.js';

export interface RouterCvReport {
  readonly n: number;
  readonly k: number;
  readonly seeds: number;
  /** Accuracy of the default policy on all cases (the dev figure, not held out). */
  readonly devAccuracy: number;
  /** Held-out accuracy per seed: every case scored with the policy chosen without its fold. */
  readonly heldOutBySeed: readonly number[];
  /** Mean of the held-out accuracies. */
  readonly heldOutAccuracy: number;
  /** The policy picked on all cases (what the held-out figure estimates the performance of). */
  readonly pickedOnAll: RouterPolicy;
  /** How often each policy (index into `policies`) was picked across folds and seeds. */
  readonly pickCounts: readonly number[];
  readonly policies: readonly RouterPolicy[];
}

export function crossValidateRouter(cases: readonly RouterCase[], k = 5, seeds = 10, policies: readonly RouterPolicy[] = routerPolicies()): RouterCvReport {
  if (!cases.length) throw new RangeError('no routing cases');
  // correct[p][i]: does policy p route case i right?
  const correct = policies.map((policy) => cases.map((c) => prefilterRoute(c.query, [], policy).decision.path === c.path));
  const accuracy = (p: number, keep: (i: number) => boolean): number => {
    let n = 0;
    let ok = 0;
    correct[p]!.forEach((c, i) => {
      if (!keep(i)) return;
      n++;
      if (c) ok++;
    });
    return n ? ok / n : 0;
  };
  const pick = (keep: (i: number) => boolean): number => {
    let best = 0;
    let bestAcc = -1;
    policies.forEach((_, p) => {
      const a = accuracy(p, keep);
      if (a > bestAcc + 1e-12) {
        bestAcc = a;
        best = p;
      }
    });
    return best;
  };
  const pickCounts = new Array<number>(policies.length).fill(0);
  const heldOutBySeed: number[] = [];
  for (let seed = 1; seed <= seeds; seed++) {
    const folds = foldsOf(cases.map((c) => c.id), k, seed);
    const foldOf = cases.map((c) => folds.get(c.id) ?? 0);
    let ok = 0;
    for (let f = 0; f < k; f++) {
      const p = pick((i) => foldOf[i] !== f);
      pickCounts[p]! += 1;
      correct[p]!.forEach((c, i) => {
        if (foldOf[i] === f && c) ok++;
      });
    }
    heldOutBySeed.push(ok / cases.length);
  }
  return {
    n: cases.length,
    k,
    seeds,
    devAccuracy: accuracy(0, () => true),
    heldOutBySeed,
    heldOutAccuracy: heldOutBySeed.reduce((a, b) => a + b, 0) / heldOutBySeed.length,
    pickedOnAll: policies[pick(() => true)]!,
    pickCounts,
    policies,
  };
}
