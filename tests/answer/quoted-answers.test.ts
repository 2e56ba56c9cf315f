/**
 * Answers made of quotations: the ranker's best units, never two alike; a gap when none reaches the
 * threshold (no model call); the model's lead trimmed to its sentences, repeats dropped, checked
 * against the quoted units and dropped with a note when they do not support it.
 */
import { describe, expect, it } from 'vitest';
import { attributeResult } from '../../src/core/answer/attribution';
import { answerConfig } from '../../src/core/answer/config';
import { composeEvidenceOnlyAnswer, GAP_NOTICE } from '../../src/core/answer/evidence-only';
import { answerQuestion } from '../../src/core/answer/generation';
import { checkGrounding } from '../../src/core/answer/grounding';
import { groundingTexts, leadClaims, selectQuotes, unitId, type QuotedAnswer } from '../../src/core/answer/quotes';
import type { RankedUnit } from '../../src/core/answer/unit-ranker';
import { segmentUnits } from '../../src/core/text/units';
import { bagOfWordsEmbedder, delta, engineDouble, makeChunk, retrievalOf } from './helpers';

const A = makeChunk('doc/a', 'Buffer', 'The ground risk buffer is at least as wide as the flight height. A one-to-one rule applies to small drones.');
const B = makeChunk('doc/b', 'Buffer (restated)', 'The ground risk buffer is at least as wide as the flight height.');
const C = makeChunk('doc/c', 'Crew', 'The remote crew is trained before flying.');

function ranked(chunks: (typeof A)[], scores: number[]): RankedUnit[] {
  const out: RankedUnit[] = [];
  let k = 0;
  chunks.forEach((c, p) =>
    segmentUnits(c).forEach((unit, position) =>
      out.push({
        chunkId: c.id,
        unit,
        passageRank: p + 1,
        passageShare: 1,
        passageDense: 0.5,
        passageWindow: 0.5,
        cosine: 0.5,
        unitsInPassage: 2,
        position,
        score: scores[k++] ?? 0,
      }),
    ),
  );
  return out.sort((a, b) => b.score - a.score);
}

describe('selecting the quotes', () => {
  it('keeps the best units, drops a unit that repeats a kept one, and stops below the relative floor', () => {
    const q = selectQuotes(ranked([A, B, C], [0.95, 0.2, 0.93, 0.9]), { answerThreshold: 0.5 });
    expect(q.quotes.map((x) => x.chunkId)).toEqual(['doc/a', 'doc/c']);
    expect(q.repeats).toBe(1); // doc/b says what doc/a says
    expect(q.gap).toBe(false);
  });

  it('says the passages do not state the answer when the best unit is below the threshold, and still shows the closest', () => {
    const q = selectQuotes(ranked([C], [0.3]), { answerThreshold: 0.5 });
    expect(q.gap).toBe(true);
    expect(q.quotes).toHaveLength(1);
  });
});

function quotedOf(chunks: (typeof A)[], gap = false): QuotedAnswer {
  return selectQuotes(
    ranked(
      chunks,
      chunks.flatMap(() => [0.9, 0.8]),
    ),
    { answerThreshold: gap ? 0.95 : 0.5 },
  );
}

describe('the lead', () => {
  const CONFIG = answerConfig({ retry: { delayMs: 0 } });

  it('is asked for over the numbered quotations and kept to two sentences, a repeated sentence dropped; shown with the passages’ ids', async () => {
    const quoted = quotedOf([A]);
    const engine = engineDouble({
      streams: [
        [delta('The buffer is as wide as the height [1]. The buffer is as wide as the height [1]. Small drones use one-to-one [2]. Extra [1].', 'stop')],
      ],
    });
    const r = await answerQuestion({ question: 'How wide is the buffer?', retrieval: retrievalOf([A]), engine, config: CONFIG, quotes: quoted });
    expect(engine.requests[0]!.messages[1]!.content).toContain(`[1] ${quoted.quotes[0]!.text}`);
    expect(engine.requests[0]!.max_tokens).toBe(CONFIG.lead.maxTokens);
    expect(engine.requests[0]!.frequency_penalty).toBe(CONFIG.lead.frequencyPenalty);
    expect(r.quoted!.lead).toBe(`The buffer is as wide as the height [${unitId('doc/a', 0)}]. Small drones use one-to-one [${unitId('doc/a', 1)}].`);
    expect(r.quoted!.leadTrimmed).toBe(2);
    expect(r.answer).toBe('The buffer is as wide as the height [doc/a]. Small drones use one-to-one [doc/a].');
  });

  it('drops a sentence that copies a quotation (it says what the quote below says)', async () => {
    const quoted = quotedOf([A]);
    const engine = engineDouble({ streams: [[delta(`[1] ${quoted.quotes[0]!.text} The buffer grows with the flight height [1].`, 'stop')]] });
    const r = await answerQuestion({ question: 'How wide is the buffer?', retrieval: retrievalOf([A]), engine, config: CONFIG, quotes: quoted });
    expect(r.quoted!.lead).toBe(`The buffer grows with the flight height [${unitId('doc/a', 0)}].`);
    expect(r.quoted!.leadTrimmed).toBe(1);
  });

  it('drops a sentence that copies one sentence of a longer quotation, and a sentence the token limit cut', async () => {
    const D = makeChunk('doc/d', 'Records', 'The operator keeps crew records. These records are kept for three years after the crew member leaves.');
    const quoted = quotedOf([D]);
    expect(quoted.quotes[0]!.text).toMatch(/^The operator keeps crew records\. These records/); // one unit: the second sentence points back
    const engine = engineDouble({
      streams: [
        [
          delta(
            'These records are kept for three years after the crew member leaves [1]. Keep the records for three years [1]. They are checked by the',
            'length',
          ),
        ],
      ],
    });
    const r = await answerQuestion({ question: 'How long are records kept?', retrieval: retrievalOf([D]), engine, config: CONFIG, quotes: quoted });
    expect(r.status).toBe('truncated');
    expect(r.quoted!.lead).toBe(`Keep the records for three years [${unitId('doc/d', 0)}].`);
    expect(r.quoted!.leadTrimmed).toBe(2);
  });

  it('is not written when the quotations do not answer (no model call), and is dropped when the model says they do not', async () => {
    const engine = engineDouble();
    const gap = await answerQuestion({ question: 'Insurance?', retrieval: retrievalOf([C]), engine, config: CONFIG, quotes: quotedOf([C], true) });
    expect(engine.requests).toHaveLength(0);
    expect(gap.quoted).toMatchObject({ gap: true, lead: null });
    const declining = engineDouble({ streams: [[delta('The quotations do not answer this.', 'stop')]] });
    const r = await answerQuestion({ question: 'Insurance?', retrieval: retrievalOf([C]), engine: declining, config: CONFIG, quotes: quotedOf([C]) });
    expect(r.quoted).toMatchObject({ lead: null, leadDropped: expect.stringMatching(/do not answer/) });
    expect(r.answer).toBe('');
  });

  it('keeps only the sentences the quoted units support, and says what it dropped', async () => {
    const quoted = quotedOf([A]);
    const lead = `The buffer is at least as wide as the flight height [${unitId('doc/a', 0)}]. Every operator needs insurance of five million euro [${unitId('doc/a', 1)}].`;
    const ids = quoted.quotes.map((x) => unitId(x.chunkId, x.n));
    const report = await checkGrounding({
      answer: leadClaims(lead, ids),
      chunks: groundingTexts(ids, (id) => [A].find((c) => c.id === id)),
      embedder: bagOfWordsEmbedder(),
    });
    const a = attributeResult({ answer: '', status: 'complete', citations: [], structured: null, quoted: { lead, unitIds: ids } }, report);
    expect(a.lead).toEqual({
      text: `The buffer is at least as wide as the flight height [${unitId('doc/a', 0)}].`,
      dropped: '1 of 2 lead sentence(s) not supported by the quotations, not shown',
    });
    expect(a.answer).toBe('The buffer is at least as wide as the flight height [doc/a].');
  });
});

describe('the evidence-only answer of quotations', () => {
  it('is the quotes with their passages, the quoted units highlighted in the passages; a gap says so first', async () => {
    const retrieval = retrievalOf([A, C]);
    const quoted = quotedOf([A]);
    const e = await composeEvidenceOnlyAnswer({ question: 'buffer?', retrieval, chunks: [A, C], quoted });
    expect(e.ranking).toBe('units');
    expect(e.text).toContain(`1. “${quoted.quotes[0]!.text}” [doc/a]`);
    expect(e.passages[0]!.highlights).toEqual(quoted.quotes.map((x) => ({ start: x.start, end: x.end, score: x.score })));
    expect(e.passages[1]!.highlights).toEqual([]);
    const gap = await composeEvidenceOnlyAnswer({ question: 'insurance?', retrieval, chunks: [A, C], quoted: quotedOf([C], true) });
    expect(gap.text).toContain(GAP_NOTICE);
  });
});
