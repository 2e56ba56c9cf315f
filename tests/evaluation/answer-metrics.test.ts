/**
 * The answer-quality measures of `npm run eval:answers` on hand-made outcomes: citation
 * precision, refusal correctness (fixed reply or a declining "Answer" section without
 * citations), flagged sentence rate, answer consistency, tokens/s.
 */
import { describe, expect, it } from 'vitest';
import { NO_ANSWER_TEXT } from '../../src/core/answer/prompts.js';
import { answerSection, isRefusal, summariseAnswers, type AnswerOutcome } from '../../src/core/evaluation/answer-metrics.js';

type Sentence = NonNullable<AnswerOutcome['grounding']>['sentences'][number];
const claim = (supported: boolean, alternative: string | null = null): Sentence =>
  ({ kind: 'claim', supported, alternativeChunk: alternative }) as unknown as Sentence;
const grounding = (sentences: Sentence[]): AnswerOutcome['grounding'] => ({
  sentences,
  totals: { sentences: sentences.length, unsupported: sentences.filter((s) => s.kind === 'claim' && !s.supported).length } as never,
});

const base: AnswerOutcome = {
  answerable: true,
  modelCalled: true,
  answer: '',
  citations: [],
  citationHits: [],
  goldInContext: true,
  grounding: null,
  usage: null,
};

describe('refusals', () => {
  it('the fixed reply, or an Answer section that declines and cites nothing', () => {
    expect(isRefusal(NO_ANSWER_TEXT)).toBe(true);
    expect(isRefusal('Answer: The context does not specify the maximum height.\nMissing information: the height.')).toBe(true);
    expect(isRefusal('Answer: The context does not specify it, but the operator must register [doc/a].')).toBe(false);
    expect(isRefusal('Answer: Pilots need training [doc/a].')).toBe(false);
    expect(isRefusal('')).toBe(false);
    expect(answerSection('Answer: one\nmore\nFacts from the sources: two')).toBe('one\nmore');
  });
});

describe('summariseAnswers', () => {
  it('computes each figure from its counts', () => {
    const outcomes: AnswerOutcome[] = [
      {
        ...base,
        answer: 'Answer: X [a] [b].',
        citations: ['a', 'b'],
        citationHits: [true, false],
        grounding: grounding([claim(true), claim(false, 'c')]),
        usage: { promptTokens: 100, completionTokens: 10, prefillSeconds: 2, decodeSeconds: 1 },
      },
      {
        ...base,
        answer: 'Answer: Y.',
        citations: [],
        citationHits: [],
        goldInContext: false,
        grounding: grounding([claim(false)]),
        usage: { promptTokens: 100, completionTokens: 30, prefillSeconds: 2, decodeSeconds: 3 },
      },
      { ...base, answerable: false, modelCalled: false, answer: NO_ANSWER_TEXT },
      { ...base, answerable: false, answer: 'Answer: The context does not provide this.' },
      { ...base, answerable: false, answer: 'Answer: It is 120 m [a].', citations: ['a'], citationHits: [false] },
    ];
    const s = summariseAnswers(outcomes, 'tiny');
    expect(s.n).toBe(5);
    expect(s.detail.goldCitationShare).toBe(0.5); // 1 of the 2 ids cited on answerable questions is the gold passage
    expect(s.citationPrecision).toBeNull(); // no claim judged against its citations in these outcomes
    expect(s.refusalCorrect).toBe(0.6667); // 2 of 3 unanswerable refused
    expect(s.flaggedSentenceRate).toBe(0.6667); // 2 unsupported of 3 sentences
    expect(s.answerConsistency).toBe(0.6667); // supported, or found in another chunk: 2 of 3 claims
    expect(s.tokensPerSecond).toEqual({ prefill: 50, decode: 10 });
    expect(s.detail).toMatchObject({ answerable: 2, unanswerable: 3, modelCalls: 4, answersWithoutCitation: 1, citationRate: 0.5, falseRefusals: 0 });
  });

  it('citation coverage, recall and precision ALCE’s way, and answer correctness over the answerable questions', () => {
    const outcomes: AnswerOutcome[] = [
      {
        ...base,
        claims: [
          { citations: 2, supported: true, precise: 1 }, // joint support not needed: one citation alone supports it
          { citations: 1, supported: false, precise: 0 },
          { citations: 0, supported: false, precise: 0 }, // uncited: counts against coverage and recall
        ],
        outsideCitations: 1, // a citation of a passage outside the context is imprecise
        correct: true,
      },
      { ...base, claims: [{ citations: 1, supported: true, precise: 1 }], correct: false },
      { ...base, modelCalled: false, refused: true, correct: false },
      { ...base, answerable: false, modelCalled: true, refused: true, claims: [] },
    ];
    const s = summariseAnswers(outcomes, 'tiny');
    expect(s.citationCoverage).toBe(0.75); // 3 of 4 claims cite
    expect(s.citationRecall).toBe(0.5); // 2 of 4 claims supported by their citations
    expect(s.citationPrecision).toBe(0.4); // 2 precise of 4 context citations + 1 outside
    expect(s.answerCorrect).toBe(0.3333); // 1 of 3 answerable questions
    expect(s.refusalCorrect).toBe(1); // the structured refusal counts
    expect(s.detail).toMatchObject({ judgedClaims: 4, claimsCited: 3, claimsSupportedByCitations: 2, citations: 5, preciseCitations: 2 });
  });

  it('null where a figure has no cases', () => {
    const s = summariseAnswers([], 'tiny');
    expect([s.citationPrecision, s.citationRecall, s.citationCoverage, s.answerCorrect, s.refusalCorrect, s.flaggedSentenceRate, s.answerConsistency]).toEqual([
      null,
      null,
      null,
      null,
      null,
      null,
      null,
    ]);
  });
});

describe('the agent-based RAG paper’s context measures (RP, AA, AP)', () => {
  const supportedBy = (id: string): Sentence => ({ kind: 'claim', supported: true, bestChunk: id, alternativeChunk: null }) as unknown as Sentence;
  it('counts relevant passages (gold label), used passages (cited or supporting a claim) and relevant ones used', () => {
    const outcomes: AnswerOutcome[] = [
      // context a (gold), b, c: the answer cites b and the check finds a supporting an uncited claim
      {
        ...base,
        citations: ['b'],
        citationHits: [false],
        grounding: grounding([supportedBy('a')]),
        context: [
          { id: 'a', relevant: true },
          { id: 'b', relevant: false },
          { id: 'c', relevant: false },
        ],
      },
      // context d (gold), e: nothing used
      {
        ...base,
        citations: [],
        citationHits: [],
        grounding: grounding([claim(false)]),
        context: [
          { id: 'd', relevant: true },
          { id: 'e', relevant: false },
        ],
      },
      // unanswerable questions and older records without context do not count
      { ...base, answerable: false, context: [{ id: 'z', relevant: false }] },
      { ...base },
    ];
    const { ragMetrics } = summariseAnswers(outcomes, 'tiny');
    expect(ragMetrics).toEqual({ retrievalPrecision: 0.4, augmentationAccuracy: 0.4, augmentationPrecision: 0.5, contextPassages: 5 });
  });

  it('is null without context passages', () => {
    expect(summariseAnswers([{ ...base }], 'tiny').ragMetrics).toEqual({
      retrievalPrecision: null,
      augmentationAccuracy: null,
      augmentationPrecision: null,
      contextPassages: 0,
    });
  });
});
