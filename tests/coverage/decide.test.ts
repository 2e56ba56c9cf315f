/** The answerability decision (src/core/coverage/decide.ts) with a hand-made model. */
import { describe, expect, it } from 'vitest';
import {
  DECISION_FEATURES,
  decideAnswerability,
  evidenceSignal,
  nearestInstrument,
  notInDocumentsMessage,
  type DecisionModel,
  type EvidenceSignal,
} from '../../src/core/coverage/decide.js';
import { fixture } from './fixture.js';

const data = fixture();
/** Refuses a named or topic match unless a passage-window matches the question closely. */
const model: DecisionModel = {
  version: 1,
  features: DECISION_FEATURES,
  mean: DECISION_FEATURES.map(() => 0),
  std: DECISION_FEATURES.map(() => 1),
  weights: DECISION_FEATURES.map(
    (f) =>
      ({ named: 3, topic: 3, covered: -3, noEvidence: 0, gateScore: 0, topDense: 0, topWindow: -10, passagesMentionIt: 0, instrumentSim: 4, similarOnly: 0 })[
        f
      ],
  ),
  bias: 2,
  threshold: 0.5,
  provenance: {},
};
const weak: EvidenceSignal = { noEvidence: false, gateScore: 0.2, topDense: 0.3, topWindow: 0.3, topIds: ['x'] };
const strong: EvidenceSignal = { ...weak, topDense: 0.8, topWindow: 0.9 };

describe('decideAnswerability', () => {
  it('says "not in these documents" and names the instrument when the question cites an absent one and the passages match weakly', () => {
    const d = decideAnswerability('What does Article 14 of Regulation (EU) 2019/947 require?', data, weak, model);
    expect(d.verdict).toBe('not-in-documents');
    expect(d.verdict === 'not-in-documents' && d.hit.instrument.id).toBe('art14');
  });

  it('keeps the question answerable when a passage matches it closely', () => {
    expect(decideAnswerability('Do I need to register my drone?', data, strong, model).verdict).toBe('answerable');
  });

  it('never refuses a question that matches no absent instrument, however weak the evidence', () => {
    const d = decideAnswerability('What is the intrinsic ground risk class of a small aircraft?', data, { ...weak, topWindow: 0, topDense: 0 }, model);
    expect(d).toEqual({ verdict: 'answerable', probability: null, hit: null });
  });

  it('the message names where the rule lives before the closest passages', () => {
    const d = decideAnswerability('Does the GDPR apply to my videos?', data, weak, model);
    expect(d.verdict).toBe('not-in-documents');
    if (d.verdict === 'not-in-documents') expect(notInDocumentsMessage(d.hit)).toMatch(/^location gdpr — not included in these documents/);
  });
});

describe('the nearest-instrument candidate', () => {
  const vec = (...xs: number[]) => Float32Array.from(xs);
  it('nearestInstrument picks the instrument with the highest cosine', () => {
    const n = nearestInstrument(vec(1, 0.1), [
      { id: 'gdpr', vector: vec(0, 1) },
      { id: 'open', vector: vec(2, 0) },
    ]);
    expect(n?.id).toBe('open');
    expect(n?.score).toBeCloseTo(1 / Math.sqrt(1.01), 5);
  });
  it('names the nearest absent instrument for a question no cue matches, only when the model was fitted with it', () => {
    const q = 'How low may I fly above a football match?';
    const near = { id: 'open', score: 0.9 };
    const d = decideAnswerability(q, data, weak, { ...model, similarity: true }, near);
    expect(d.verdict === 'not-in-documents' && d.hit.why.kind).toBe('similar');
    expect(decideAnswerability(q, data, weak, model, near)).toMatchObject({ verdict: 'answerable', hit: null });
  });
  it('does not use the nearest instrument when the question names a point the corpus covers', () => {
    expect(
      decideAnswerability('What does Article 11 require for a football match?', data, weak, { ...model, similarity: true }, { id: 'open', score: 0.9 }),
    ).toMatchObject({ verdict: 'answerable', hit: null });
  });
});

describe('evidenceSignal', () => {
  it('reads the gate score, the best chunk and window cosines and the first passages', () => {
    const parts = (dense: number, window: number) => ({ dense, window, summary: 0, fused: 0, keywordHits: 0, rerank: null });
    const s = evidenceSignal({
      noEvidence: false,
      gate: { passed: true, source: 'rerank', score: 1.5, threshold: 0, note: '' },
      evidence: [
        { id: 'p1', row: 0, score: 1, parts: parts(0.5, 0.7) },
        { id: 'p2', row: 1, score: 0.9, parts: parts(0.6, 0.4) },
      ],
      ranked: [],
    });
    expect(s).toEqual({ noEvidence: false, gateScore: 1.5, topDense: 0.6, topWindow: 0.7, topIds: ['p1', 'p2'] });
  });
  it('treats a gate score of −Infinity (nothing scored) as no score, so a model never sees a non-finite feature', () => {
    const s = evidenceSignal({
      noEvidence: true,
      gate: { passed: false, source: 'dense', score: -Infinity, threshold: 0.3, note: '' },
      evidence: [],
      ranked: [],
    });
    expect(s.gateScore).toBeNull();
  });
  it('falls back to the ranked candidates when the gate kept nothing', () => {
    const s = evidenceSignal({ noEvidence: true, evidence: [], ranked: [{ id: 'r1', row: 0, score: 0.1, kept: false }] });
    expect(s).toMatchObject({ noEvidence: true, gateScore: null, topDense: 0, topIds: ['r1'] });
  });
});
