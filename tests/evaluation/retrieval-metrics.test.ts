import { describe, expect, it } from 'vitest';
import { parseJsonl } from '../../src/core/evaluation/operations-and-routes.js';
import type { Chunk } from '../../src/core/model/chunk.js';
import {
  QuestionFormatError,
  firstHitRank,
  isHit,
  metricsOf,
  summarise,
  toQuestion,
  type QuestionOutcome,
  type RetrievalQuestion,
} from '../../src/core/evaluation/retrieval-metrics.js';

const chunk = (id: string, text: string, docId = 'easa-amc-gm-2019-947', chunkIndex?: number): Chunk =>
  ({ id, docId, text, ...(chunkIndex === undefined ? {} : { extra: { chunkIndex } }) }) as unknown as Chunk;

const easaQ = (quote: string): RetrievalQuestion => ({
  id: 'q',
  variant: 'direct',
  question: '?',
  corpus: 'easa-amc-gm-2019-947',
  answerable: true,
  evidence: [{ quote, page: 3 }],
});

describe('hits', () => {
  it('match a quote after collapsing whitespace runs on both sides', () => {
    const c = chunk('a', 'The ground risk\n  buffer\tshould be at least 1:1.');
    expect(isHit(easaQ('ground risk buffer should'), c)).toBe(true);
    expect(isHit(easaQ('ground  risk\nbuffer'), c)).toBe(true);
    expect(isHit(easaQ('risk buffer must'), c)).toBe(false);
  });

  it('match curated questions by chunk_index, in the curated corpus only', () => {
    const q: RetrievalQuestion = { id: 'c', variant: 'synonym', question: '?', corpus: 'skysafe-sora-curated', answerable: true, gold_chunk_index: [7, 9] };
    expect(isHit(q, chunk('x', 'text', 'skysafe-sora-curated', 9))).toBe(true);
    expect(isHit(q, chunk('y', 'text', 'skysafe-sora-curated', 8))).toBe(false);
    expect(isHit(q, chunk('z', 'text', 'easa-amc-gm-2019-947', 9))).toBe(false);
  });

  it('rank the first hit within the top 10 only', () => {
    const q = easaQ('needle');
    const miss = chunk('m', 'hay');
    expect(firstHitRank(q, [miss, miss, chunk('h', 'a needle')])).toBe(3);
    expect(firstHitRank(q, [...Array(10).fill(miss), chunk('h', 'needle')])).toBe(0);
  });
});

describe('metrics', () => {
  it('computes Hit@k and MRR by hand', () => {
    // ranks 1, 3, 0 (miss), 6
    const m = metricsOf([1, 3, 0, 6]);
    expect(m.n).toBe(4);
    expect(m['hit@1']).toBe(0.25);
    expect(m['hit@3']).toBe(0.5);
    expect(m['hit@5']).toBe(0.5);
    expect(m['hit@10']).toBe(0.75);
    expect(m.mrr).toBeCloseTo((1 + 1 / 3 + 0 + 1 / 6) / 4, 12);
  });

  it('reports every variant, per corpus, overall on answerable questions only, and the no-evidence rate', () => {
    const o = (id: string, variant: string, corpus: string, answerable: boolean, rank: number, noEvidence: boolean): QuestionOutcome => ({
      question: { id, variant, question: '?', corpus, answerable },
      rank,
      noEvidence,
      topIds: [],
    });
    const r = summarise([
      o('a', 'direct', 'easa', true, 1, false),
      o('b', 'synonym', 'easa', true, 2, false),
      o('c', 'direct', 'curated', true, 0, true),
      o('n1', 'direct', 'any', false, 0, true),
      o('n2', 'direct', 'any', false, 0, false),
    ]);
    expect(r.overall.n).toBe(3);
    expect(r.overall.mrr).toBeCloseTo((1 + 0.5 + 0) / 3, 12);
    expect(Object.keys(r.byVariant).sort()).toEqual(['direct', 'reworked', 'synonym']);
    expect(r.byVariant.reworked).toEqual({ n: 0, 'hit@1': 0, 'hit@3': 0, 'hit@5': 0, 'hit@10': 0, mrr: 0 });
    expect(r.byVariant.direct!.n).toBe(2);
    expect(Object.keys(r.byCorpus).sort()).toEqual(['curated', 'easa']);
    expect(r.unanswerable).toEqual({ n: 2, noEvidenceRate: 0.5 });
    expect(r.answerableRefused).toEqual({ n: 3, rate: 1 / 3 });
  });
});

describe('question files', () => {
  it('read CRLF lines, blank lines and a byte-order mark', () => {
    const text =
      '\uFEFF{"id":"a","variant":"direct","question":"q?","corpus":"any","answerable":false}\r\n\r\n{"id":"b","variant":"x","question":"r?","corpus":"any","answerable":false}\r\n';
    const qs = parseJsonl(text, 'f.jsonl').map((r) => toQuestion(r.value, `f.jsonl, line ${r.line}`));
    expect(qs.map((q) => q.id)).toEqual(['a', 'b']);
  });

  it('name the line and field of a bad record', () => {
    expect(() => toQuestion({ id: 'a', variant: 'direct', question: 'q', corpus: 'x', answerable: true }, 'f.jsonl, line 4')).toThrow(QuestionFormatError);
    expect(() => toQuestion({ id: 'a', variant: 'direct', question: 'q', corpus: 'x', answerable: true }, 'f.jsonl, line 4')).toThrow(
      /f\.jsonl, line 4: field "evidence \/ gold_chunk_index"/,
    );
    expect(() => toQuestion({ id: 1, variant: 'direct', question: 'q', corpus: 'x', answerable: false }, 'f.jsonl, line 2')).toThrow(/field "id"/);
    expect(() => toQuestion([], 'f.jsonl, line 1')).toThrow(/must be a JSON object/);
  });
});
