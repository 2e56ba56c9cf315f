/**
 * How well the support judge (the grounding check's decision: similarity, term overlap, numbers)
 * agrees with hand labels of (claim, passage) pairs from real answers
 * (corpus-build/calibration/claim-labels.jsonl, docs/labelling-guide.md). Reported next to every
 * citation figure of `eval:answers`: the figures are only as good as the judge.
 */
import type { GroundingThresholds } from '../answer/grounding.js';

/** One labelled pair with the judge's measures (the claim recorded by SHA-256 prefix only). */
export interface ClaimLabel {
  pair: string;
  model: string;
  question: string;
  claimSha: string;
  words: number;
  passage: string;
  /** The model cited the passage, it is the judge's best uncited passage, or the claim is a quotation of it (quoted answers). */
  role: 'cited' | 'alternative' | 'quoted';
  /** The answer form the claim came from (absent: labelled before quoted answers, structured or free). */
  form?: 'quoted' | 'structured' | 'free';
  label: 'supported' | 'partly' | 'not';
  similarity: number;
  overlap: number;
  missingNumbers: number;
  note?: string;
  /** 'strict': read by the strict rules of docs/labelling-guide.md (2026-11-28 on); absent: the earlier reading. */
  reading?: 'strict';
}

export interface Agreement {
  pairs: number;
  byLabel: Record<ClaimLabel['label'], number>;
  thresholds: { similarity: number; overlap: number };
  /** "partly" counts as not supported. */
  strict: { precision: number | null; recall: number | null; tp: number; fp: number; fn: number };
  /** "partly" counts as supported. */
  lenient: { precision: number | null; recall: number | null; tp: number; fp: number; fn: number };
}

const ratio = (a: number, b: number): number | null => (b > 0 ? Math.round((a / b) * 1e4) / 1e4 : null);

/** The judge's verdict on a labelled pair at these thresholds. */
export const judgeSays = (
  l: Pick<ClaimLabel, 'similarity' | 'overlap' | 'missingNumbers'>,
  t: Pick<GroundingThresholds, 'similarity' | 'overlap' | 'requireNumbers'>,
): boolean => l.similarity >= t.similarity && l.overlap >= t.overlap && (!t.requireNumbers || l.missingNumbers === 0);

export function judgeAgreement(labels: readonly ClaimLabel[], t: Pick<GroundingThresholds, 'similarity' | 'overlap' | 'requireNumbers'>): Agreement {
  const score = (positive: (l: ClaimLabel) => boolean) => {
    let tp = 0;
    let fp = 0;
    let fn = 0;
    for (const l of labels) {
      const judged = judgeSays(l, t);
      const truth = positive(l);
      if (judged && truth) tp++;
      else if (judged) fp++;
      else if (truth) fn++;
    }
    return { precision: ratio(tp, tp + fp), recall: ratio(tp, tp + fn), tp, fp, fn };
  };
  return {
    pairs: labels.length,
    byLabel: {
      supported: labels.filter((l) => l.label === 'supported').length,
      partly: labels.filter((l) => l.label === 'partly').length,
      not: labels.filter((l) => l.label === 'not').length,
    },
    thresholds: { similarity: t.similarity, overlap: t.overlap },
    strict: score((l) => l.label === 'supported'),
    lenient: score((l) => l.label !== 'not'),
  };
}
