/**
 * The unit ranker: which quotable unit of the retrieved passages answers the question. A logistic
 * model over a few features of each (question, unit) pair — the unit's embedding similarity to the
 * question, the question's words found in the unit (weighted by rarity), its passage's rank, its
 * place and kind — trained on the question bank, whose questions mark the answering sentence of
 * their passage (`npm run train:units`, docs/answers.md). The weights and the answer threshold are
 * data (`unit-ranker.json`) with their provenance and cross-validated figures; this file only scores.
 *
 * Pure: the caller supplies the vectors and the document frequencies.
 */
import { tokenize, STOPWORDS } from '../text/tokenize.js';
import { unitQuote, type TextUnit } from '../text/units.js';

/** One candidate: a quotable unit of a retrieved passage, with what the features read. */
export interface UnitCandidate {
  readonly chunkId: string;
  readonly unit: TextUnit;
  /** 1-based rank of its passage among the evidence. */
  readonly passageRank: number;
  /** Its passage's retrieval score divided by the top passage's (1 for the first). */
  readonly passageShare: number;
  /** Its passage's own similarity to the question: the dense cosine of the passage and of its best window (absolute, unlike the ranks). */
  readonly passageDense: number;
  readonly passageWindow: number;
  /** Cosine between the question's and the unit's embeddings (the index's own embedder). */
  readonly cosine: number;
  /** How many quotable units its passage has. */
  readonly unitsInPassage: number;
  /** Its position among them (0-based). */
  readonly position: number;
  /** A unit of the next part of a retrieved split passage (the section continued), not of a retrieved passage. */
  readonly nextPart?: boolean;
}

export interface UnitRankerModel {
  readonly version: 1;
  readonly features: readonly string[];
  /** Standardisation of each feature (training means and standard deviations). */
  readonly mean: readonly number[];
  readonly std: readonly number[];
  readonly weights: readonly number[];
  readonly bias: number;
  /** Below this probability the best unit is taken as not answering (the answer says what the passages do not cover). */
  readonly answerThreshold: number;
  readonly provenance: Record<string, unknown>;
}

export const UNIT_FEATURES = [
  'cosine',
  'cosineRank',
  'overlap',
  'overlapRank',
  'passageRank',
  'passageShare',
  'position',
  'first',
  'words',
  'item',
  'cell',
  'footnote',
  'numbers',
  'passageDense',
  'passageWindow',
  'nextPart',
] as const;

/** A word's comparable form: lower case, the first six letters (a light stem: "inspections" ~ "inspection"). */
const stem = (t: string): string => (t.length > 6 && /^\p{L}+$/u.test(t) ? t.slice(0, 6) : t);
const terms = (text: string): string[] => tokenize(text).filter((t) => !STOPWORDS.has(t) && (t.length > 1 || /\d/.test(t)));

/** Document frequencies of stemmed words over a set of texts (the index's passages). */
export function documentFrequencies(texts: readonly string[]): { df: Map<string, number>; n: number } {
  const df = new Map<string, number>();
  for (const t of texts) for (const w of new Set(terms(t).map(stem))) df.set(w, (df.get(w) ?? 0) + 1);
  return { df, n: texts.length };
}

const idfOf = (freq: { df: Map<string, number>; n: number }, w: string): number => Math.log(1 + freq.n / (1 + (freq.df.get(w) ?? 0)));

/** Rarity-weighted share of the question's words found in the text. */
export function termOverlap(question: string, text: string, freq: { df: Map<string, number>; n: number }): number {
  const q = [...new Set(terms(question).map(stem))];
  if (!q.length) return 0;
  const have = new Set(terms(text).map(stem));
  let num = 0;
  let den = 0;
  for (const w of q) {
    const idf = idfOf(freq, w);
    den += idf;
    if (have.has(w)) num += idf;
  }
  return den ? num / den : 0;
}

const numbersOf = (s: string): string[] => s.match(/\d+(?:[.,]\d+)?/g) ?? [];

/** The feature vector of every candidate (ranks are among the candidates of one question). */
export function unitFeatures(question: string, candidates: readonly UnitCandidate[], freq: { df: Map<string, number>; n: number }): number[][] {
  const overlaps = candidates.map((c) => termOverlap(question, unitQuote(c.unit), freq));
  const rankOf = (values: number[]) => {
    const order = values.map((v, i) => [v, i] as const).sort((a, b) => b[0] - a[0]);
    const rank = new Array<number>(values.length);
    order.forEach(([, i], r) => (rank[i] = r + 1));
    return rank;
  };
  const cosRank = rankOf(candidates.map((c) => c.cosine));
  const ovRank = rankOf(overlaps);
  const qNumbers = numbersOf(question);
  return candidates.map((c, i) => {
    const words = c.unit.text.split(/\s+/).length;
    const unitNumbers = new Set(numbersOf(unitQuote(c.unit)));
    return [
      c.cosine,
      1 / cosRank[i]!,
      overlaps[i]!,
      1 / ovRank[i]!,
      1 / c.passageRank,
      c.passageShare,
      c.unitsInPassage > 1 ? c.position / (c.unitsInPassage - 1) : 0,
      c.position === 0 ? 1 : 0,
      Math.log(1 + words),
      c.unit.kind === 'item' ? 1 : 0,
      c.unit.kind === 'cell' ? 1 : 0,
      c.unit.kind === 'footnote' ? 1 : 0,
      qNumbers.length ? qNumbers.filter((n) => unitNumbers.has(n)).length / qNumbers.length : 0,
      c.passageDense,
      c.passageWindow,
      c.nextPart ? 1 : 0,
    ];
  });
}

const sigmoid = (z: number): number => 1 / (1 + Math.exp(-z));

/**
 * Probability that each feature vector (in UNIT_FEATURES order) is an answering unit. The model names the
 * features it was trained on: a feature it does not know is ignored, one it knows but this code no longer
 * computes counts as its training mean.
 */
export function scoreFeatures(x: readonly number[][], model: Pick<UnitRankerModel, 'features' | 'mean' | 'std' | 'weights' | 'bias'>): number[] {
  const at = model.features.map((name) => (UNIT_FEATURES as readonly string[]).indexOf(name));
  return x.map((f) =>
    sigmoid(
      model.bias +
        at.reduce((s, k, j) => {
          const v = k < 0 ? model.mean[j]! : f[k]!;
          return s + model.weights[j]! * ((v - model.mean[j]!) / (model.std[j]! || 1));
        }, 0),
    ),
  );
}

export interface RankedUnit extends UnitCandidate {
  /** The model's probability that this unit answers the question. */
  readonly score: number;
}

/** The candidates, best first (ties keep passage and reading order). */
export function rankUnits(
  question: string,
  candidates: readonly UnitCandidate[],
  freq: { df: Map<string, number>; n: number },
  model: UnitRankerModel,
): RankedUnit[] {
  const scores = scoreFeatures(unitFeatures(question, candidates, freq), model);
  return candidates.map((c, i) => ({ ...c, score: scores[i]! })).sort((a, b) => b.score - a.score || a.passageRank - b.passageRank || a.position - b.position);
}
