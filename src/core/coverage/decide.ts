/**
 * The answerability decision: "not in these documents" (naming where the rule lives)
 * versus answerable, from the coverage match (coverageMatches) and the retrieval's
 * evidence. A question that names or is about no absent instrument is never refused
 * here (the evidence gate still decides "no evidence" for it). For the others a
 * logistic model (decision-model.json, fitted and cross-validated by
 * `npm run coverage:eval`, on synthetic data only) weighs the match against how well the
 * retrieved passages answer.
 *
 * Pure: the caller passes the retrieval result (or the signal taken from it).
 */
import { cosine } from '../embedding/similarity.js';
import type { RetrievalResult } from '../retrieval/types.js';
import { categoryFits, coverageMatches, type CoverageMatches } from './match.js';
import type { CoverageData, CoverageHit, CoverageInstrument, CoverageSource } from './types.js';

/** What the decision reads from a retrieval result. */
export interface EvidenceSignal {
  /** The gate found nothing to show. */
  noEvidence: boolean;
  /** The gate's score (the reranker's relevance, or the best cosine), null when nothing was retrieved. */
  gateScore: number | null;
  /** Best dense cosine of the passages (whole chunk). */
  topDense: number;
  /** Best passage-window cosine: a sentence-sized span that matches the question. */
  topWindow: number;
  /** Chunk ids of the first passages, best first. */
  topIds: string[];
}

export function evidenceSignal(r: Pick<RetrievalResult, 'noEvidence' | 'gate' | 'evidence' | 'ranked'>, top = 3): EvidenceSignal {
  const parts = r.evidence.map((e) => e.parts);
  const finite = (x: number): number => (Number.isFinite(x) ? x : 0);
  return {
    noEvidence: r.noEvidence,
    // a gate that scored nothing (−Infinity) is "no score", like no gate at all
    gateScore: r.gate && Number.isFinite(r.gate.score) ? r.gate.score : null,
    topDense: parts.reduce((m, p) => Math.max(m, finite(p.dense)), 0),
    topWindow: parts.reduce((m, p) => Math.max(m, finite(p.window)), 0),
    topIds: (r.evidence.length ? r.evidence.map((e) => e.id) : r.ranked.map((c) => c.id)).slice(0, top),
  };
}

export const DECISION_FEATURES = [
  'named',
  'topic',
  'covered',
  'noEvidence',
  'gateScore',
  'topDense',
  'topWindow',
  'passagesMentionIt',
  'instrumentSim',
  'similarOnly',
] as const;
export type DecisionFeature = (typeof DECISION_FEATURES)[number];

export interface DecisionModel {
  version: number;
  features: readonly DecisionFeature[];
  /** Standardisation of each feature (training mean and standard deviation). */
  mean: number[];
  std: number[];
  weights: number[];
  bias: number;
  /** True when the nearest-instrument candidate (embedding of instrumentText) is part of the decision. */
  similarity?: boolean;
  /** P(not in documents) at or above which the decision refuses. */
  threshold: number;
  /** How it was fitted: data files and their SHA-256, CV figures, date. */
  provenance: Record<string, unknown>;
}

export type Answerability =
  { verdict: 'not-in-documents'; hit: CoverageHit; probability: number } | { verdict: 'answerable'; probability: number | null; hit: CoverageHit | null };

/** The absent instrument whose description is closest to the question's embedding, and the cosine. */
export interface NearestInstrument {
  id: string;
  score: number;
}

/** The text embedded for an instrument (document side): its label and description, both written for the coverage data. */
export const instrumentText = (i: Pick<CoverageInstrument, 'label' | 'description'>): string => `${i.label}. ${i.description}`;

/** Nearest absent instrument by cosine; `vectors` from embedding instrumentText of each absent instrument. */
export function nearestInstrument(query: Float32Array, vectors: readonly { id: string; vector: Float32Array }[]): NearestInstrument | null {
  let best: NearestInstrument | null = null;
  for (const { id, vector } of vectors) {
    const score = cosine(vector, query);
    if (!best || score > best.score) best = { id, score };
  }
  return best;
}

/**
 * The candidate instrument: the first named absent instrument, else the best topic match,
 * else (when given) the nearest absent instrument by embedding.
 */
export function candidateOf(m: CoverageMatches, near?: NearestInstrument | null, coverage?: CoverageData): CoverageHit | null {
  const cue = m.named[0] ?? m.topic[0] ?? null;
  if (cue || !near || !coverage) return cue;
  // a question that names a covered point asks about the documents' own content
  if (m.covered.length) return null;
  const instrument = coverage.instruments.find((i) => i.id === near.id && i.status === 'absent');
  // the nearest instrument is named only when the question's category fits it (never UAS.OPEN for a SORA question)
  return instrument && categoryFits(instrument, m.categories) ? { instrument, why: { kind: 'similar', matched: instrument.label } } : null;
}

export function decisionFeatures(
  m: CoverageMatches,
  e: EvidenceSignal,
  near?: NearestInstrument | null,
  coverage?: CoverageData,
): Record<DecisionFeature, number> {
  const hit = candidateOf(m, near, coverage);
  const mentioned = new Set(hit?.instrument.mentions.chunks ?? []);
  return {
    named: m.named.length ? 1 : 0,
    topic: Math.min(m.topic.length, 3) / 3,
    covered: m.covered.length ? 1 : 0,
    noEvidence: e.noEvidence ? 1 : 0,
    gateScore: e.gateScore ?? 0,
    topDense: e.topDense,
    topWindow: e.topWindow,
    passagesMentionIt: e.topIds.some((id) => mentioned.has(id)) ? 1 : 0,
    instrumentSim: near?.score ?? 0,
    similarOnly: hit?.why.kind === 'similar' ? 1 : 0,
  };
}

export function probabilityOf(model: DecisionModel, f: Record<DecisionFeature, number>): number {
  let z = model.bias;
  model.features.forEach((name, i) => {
    z += model.weights[i]! * ((f[name] - model.mean[i]!) / (model.std[i]! || 1));
  });
  return 1 / (1 + Math.exp(-z));
}

/**
 * Decide for one question: `not-in-documents` names the instrument; otherwise answerable (the
 * gate may still say "no evidence"). `near` (nearestInstrument over the query vector) is used
 * only when the model was fitted with similarity candidates (`model.similarity`).
 */
export function decideAnswerability(
  question: string,
  coverage: CoverageData,
  evidence: EvidenceSignal,
  model: DecisionModel,
  near?: NearestInstrument | null,
): Answerability {
  const m = coverageMatches(question, coverage);
  const n = model.similarity ? (near ?? null) : null;
  const hit = candidateOf(m, n, coverage);
  if (!hit) return { verdict: 'answerable', probability: null, hit: null };
  const p = probabilityOf(model, decisionFeatures(m, evidence, n, coverage));
  return p >= model.threshold ? { verdict: 'not-in-documents', hit, probability: p } : { verdict: 'answerable', probability: p, hit };
}

/** "AMC1 Article 11, S.1.3 (p. 8); AMC1 UAS.SPEC.030(2), EASA Form 208 (pp. 175, 176)": a notice's sources, grouped by where they are. */
export function sourcesText(sources: readonly CoverageSource[], max = 3): string {
  const groups = new Map<string, number[]>();
  for (const s of sources) {
    const pages = groups.get(s.where) ?? [];
    if (s.page !== null && !pages.includes(s.page)) pages.push(s.page);
    groups.set(s.where, pages);
  }
  return [...groups]
    .slice(0, max)
    .map(([where, pages]) => (pages.length ? `${where} (${pages.length > 1 ? 'pp.' : 'p.'} ${pages.join(', ')})` : where))
    .join('; ');
}

/**
 * The user-facing line, said before the closest passages: where the rule is likely to live, or,
 * for a subject the documents do not cover, that they do not, what they do about it and where
 * they say so (an instrument is named only when those passages cite it).
 */
export function notInDocumentsMessage(hit: CoverageHit): string {
  // said on its own: whether the closest passages follow is the view's to say (it shows them only when there are some)
  const n = hit.instrument.notice;
  if (n) return `These documents do not cover ${n.subject}: ${n.says} (${sourcesText(n.sources)}).`;
  return `${hit.instrument.location} — not included in these documents.`;
}
