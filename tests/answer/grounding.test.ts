import { describe, expect, it } from 'vitest';
import { answerSentences, checkGrounding, classify, extractNumbers, matchSectionLabel, measureSupport } from '../../src/core/answer/grounding.js';
import { calibrate, type LabelledSupport } from '../../corpus-build/calibration/thresholds.js';
import { answerConfig, DEFAULT_ANSWER_CONFIG } from '../../src/core/answer/config.js';
import { attributeResult } from '../../src/core/answer/attribution';
import { answerQuestion } from '../../src/core/answer/generation.js';
import { bagOfWordsEmbedder, delta, engineDouble, makeChunk, retrievalOf } from './helpers.js';

// Short invented passages in the style of SORA 2.5 / AMC1 Article 11 (not quotations).
const IGRC = makeChunk(
  'easa-amc-gm-2019-947/amc1-art11/s4.2.3/table-1',
  'Determination of the intrinsic ground risk class',
  'The intrinsic ground risk class is determined from the maximum UA characteristic dimension and the maximum population density of the operational area. ' +
    'A UA with a characteristic dimension of up to 1 m and a maximum speed of up to 25 m/s is assessed in the first column of the table. ' +
    'Controlled ground areas are treated as having no uninvolved persons.',
  45,
);
const ARC = makeChunk(
  'easa-amc-gm-2019-947/amc1-art11/s4.4/part-1',
  'Determination of the initial air risk class',
  'The initial air risk class is determined with the air risk class flowchart. ' +
    'Operations in atypical or segregated airspace are assigned ARC-a. ' +
    'Operations above 500 ft AGL in controlled airspace are assigned ARC-d.',
  52,
);
const CHUNKS = [IGRC, ARC];
const cfg = answerConfig({ grounding: { similarity: 0.5, overlap: 0.6 } }).grounding;

describe('answer sentences for the grounding check', () => {
  it('skip headings, empty lines and section labels, strip list markers and attach marker-only sentences', () => {
    const answer = `## Answer\n\nThe iGRC depends on the dimension [${IGRC.id}].\n\n**Facts from the sources**\n- Controlled ground areas have no uninvolved persons. [${IGRC.id}]\n\nInterpretation: It follows that the column is the first one.\n\n### Missing information\nNone.`;
    const s = answerSentences(answer);
    expect(s.map((x) => [x.section, x.text])).toEqual([
      ['Answer', `The iGRC depends on the dimension [${IGRC.id}].`],
      ['Facts from the sources', `Controlled ground areas have no uninvolved persons. [${IGRC.id}]`],
      ['Interpretation', 'It follows that the column is the first one.'],
      ['Missing information', 'None.'],
    ]);
    expect(matchSectionLabel('### Facts from the sources:')).toEqual({ label: 'Facts from the sources', rest: '' });
    expect(matchSectionLabel('Answerable questions')).toBeNull();
  });

  it('normalise numbers: thousands separators, leading zeros, decimals and section numbers', () => {
    expect(extractNumbers('12,000 characters, 1 000 people, OSO #04, 0.50 m, section 4.2.3')).toEqual(['12000', '1000', '4', '0.5', '4.2.3']);
  });
});

describe('checkGrounding with a deterministic fake embedder', () => {
  it('marks a claim restated from its cited chunk as supported', async () => {
    const answer = `## Answer\nThe intrinsic ground risk class is determined from the maximum UA characteristic dimension and the maximum population density [${IGRC.id}].`;
    const r = await checkGrounding({ answer, chunks: CHUNKS, embedder: bagOfWordsEmbedder(), config: cfg });
    expect(r.sentences).toHaveLength(1);
    expect(r.sentences[0]).toMatchObject({ kind: 'claim', supported: true, bestChunk: IGRC.id, fromCitation: true, citations: [IGRC.id] });
    expect(r.sentences[0]!.similarity!).toBeGreaterThanOrEqual(0.5);
    expect(r.sentences[0]!.overlap!).toBeGreaterThanOrEqual(0.6);
    expect(r.verdict).toBe('Grounded');
  });

  it('marks an invented claim as unsupported and the answer as Unsupported', async () => {
    const answer = `The operator must hold a remote pilot licence issued by the national police before each flight [${IGRC.id}].`;
    const r = await checkGrounding({ answer, chunks: CHUNKS, embedder: bagOfWordsEmbedder(), config: cfg });
    expect(r.sentences[0]).toMatchObject({ supported: false, bestChunk: IGRC.id });
    expect(r.sentences[0]!.reason).toMatch(/not supported by the cited chunk/);
    expect(r.verdict).toBe('Unsupported');
    expect(r.totals).toMatchObject({ claims: 1, supported: 0, unsupported: 1 });
  });

  it('rejects a claim whose number is not in the chunk even if the words match', async () => {
    const answer = `A UA with a characteristic dimension of up to 3 m and a maximum speed of up to 25 m/s is assessed in the first column [${IGRC.id}].`;
    const r = await checkGrounding({ answer, chunks: CHUNKS, embedder: bagOfWordsEmbedder(), config: cfg });
    expect(r.sentences[0]).toMatchObject({ supported: false, missingNumbers: ['3'] });
    expect(r.sentences[0]!.reason).toMatch(/numbers not in the chunk: 3/);
  });

  it('checks an uncited claim against every context chunk, and says when the cited chunk is the wrong one', async () => {
    const uncited = 'Operations in atypical or segregated airspace are assigned ARC-a.';
    const r1 = await checkGrounding({ answer: uncited, chunks: CHUNKS, embedder: bagOfWordsEmbedder(), config: cfg });
    expect(r1.sentences[0]).toMatchObject({ supported: true, bestChunk: ARC.id, fromCitation: false });
    expect(r1.totals.uncited).toBe(1);
    const wrong = `${uncited.slice(0, -1)} [${IGRC.id}].`;
    const r2 = await checkGrounding({ answer: wrong, chunks: CHUNKS, embedder: bagOfWordsEmbedder(), config: cfg });
    expect(r2.sentences[0]).toMatchObject({ supported: false, alternativeChunk: ARC.id });
    expect(r2.sentences[0]!.reason).toContain(`[${ARC.id}] would support it`);
  });

  it('does not check clarification questions or missing-information statements, and classifies the answer Incomplete', async () => {
    const answer = [
      '## Answer',
      `The intrinsic ground risk class is determined from the maximum UA characteristic dimension and the maximum population density [${IGRC.id}].`,
      '## Missing information',
      'The UA characteristic dimension of your aircraft is not given.',
      'What is the maximum characteristic dimension of the UA?',
    ].join('\n');
    const r = await checkGrounding({ answer, chunks: CHUNKS, embedder: bagOfWordsEmbedder(), config: cfg });
    expect(r.sentences.map((s) => s.kind)).toEqual(['claim', 'gap', 'question']);
    expect(r.sentences.slice(1).every((s) => s.supported === null)).toBe(true);
    expect(r.verdict).toBe('Incomplete');
    expect(r.totals).toMatchObject({ claims: 1, supported: 1, gaps: 1, questions: 1 });
  });

  it('treats an uncited statement that the context lacks the answer as a gap in any section, but not a claim about what the rules leave out', async () => {
    const answer = [
      '## Answer',
      'The context does not provide an answer for this question.',
      'This cannot be answered based on the given context.',
      'The remote pilot training is not directly covered by the passages.',
      `The regulation does not specify a minimum age for the observer [${IGRC.id}].`,
      'The regulation does not specify a minimum age for the observer.',
    ].join('\n');
    const r = await checkGrounding({ answer, chunks: CHUNKS, embedder: bagOfWordsEmbedder(), config: cfg });
    // the last two are claims about the rules (cited or not), checked as such
    expect(r.sentences.map((s) => s.kind)).toEqual(['gap', 'gap', 'gap', 'claim', 'claim']);
    expect(r.totals.gaps).toBe(3);
  });

  it('a claim citing only chunks that are not in the context is unsupported', async () => {
    const r = await checkGrounding({
      answer: 'Operations in atypical or segregated airspace are assigned ARC-a [easa-amc-gm-2019-947/unknown/s1].',
      chunks: CHUNKS,
      embedder: bagOfWordsEmbedder(),
      config: cfg,
    });
    expect(r.sentences[0]).toMatchObject({ supported: false, alternativeChunk: ARC.id });
    expect(r.sentences[0]!.reason).toMatch(/not in the context/);
  });

  it('returns a JSON-serialisable report with thresholds and embedder id', async () => {
    const r = await checkGrounding({
      answer: 'Controlled ground areas are treated as having no uninvolved persons.',
      chunks: CHUNKS,
      embedder: bagOfWordsEmbedder(),
      config: cfg,
    });
    expect(JSON.parse(JSON.stringify(r))).toEqual(r);
    expect(r.thresholds).toMatchObject({ similarity: 0.5, overlap: 0.6, requireNumbers: true });
    expect(r.embedderId).toBe('test/bag-of-words');
  });

  it('classify follows SKYSAFE Table 4: Unsupported beats Incomplete beats Grounded', () => {
    const t = { sentences: 3, claims: 2, supported: 2, unsupported: 0, uncited: 0, questions: 0, gaps: 0 };
    expect(classify(t).verdict).toBe('Grounded');
    expect(classify(t, true).verdict).toBe('Incomplete');
    expect(classify({ ...t, claims: 0, supported: 0 }).verdict).toBe('Incomplete');
    expect(classify({ ...t, supported: 1, unsupported: 1, gaps: 1 }).verdict).toBe('Unsupported');
  });
});

describe('grounding on realistic regulatory sentences', () => {
  it('separates a faithful paraphrase from a plausible but wrong statement', async () => {
    const e = bagOfWordsEmbedder();
    const answer = [
      '## Facts from the sources',
      `- Operations above 500 ft AGL in controlled airspace are assigned ARC-d [${ARC.id}].`,
      `- Operations above 400 ft AGL in controlled airspace are assigned ARC-d [${ARC.id}].`,
      `- Operations in controlled airspace also require a transponder and an electronic conspicuity device [${ARC.id}].`,
      `- Controlled ground areas are treated as having no uninvolved persons [${IGRC.id}].`,
    ].join('\n');
    const r = await checkGrounding({ answer, chunks: CHUNKS, embedder: e, config: DEFAULT_ANSWER_CONFIG.grounding });
    expect(r.sentences.map((s) => s.supported)).toEqual([true, false, false, true]);
    expect(r.sentences[1]!.missingNumbers).toEqual(['400']);
    expect(r.sentences[2]!.reason).toMatch(/term overlap/);
    expect(r.verdict).toBe('Unsupported');
  });

  it('checks a generated answer on the chunks that were in the context, then attributes it (the one path)', async () => {
    const engine = engineDouble({
      streams: [[delta(`## Answer\nOperations in atypical or segregated airspace are assigned ARC-a [${ARC.id}].\n## Missing information\nNone.`, 'stop')]],
    });
    const r = await answerQuestion({
      question: 'Which ARC applies in segregated airspace?',
      retrieval: retrievalOf([ARC]),
      engine,
      config: answerConfig({ answerForm: 'free', retry: { delayMs: 0 } }), // the free-form path: the double writes prose
    });
    expect(r.grounding).toBeNull(); // answerQuestion only generates
    const report = await checkGrounding({ answer: r.answer, chunks: CHUNKS.filter((c) => r.contextIds.includes(c.id)), embedder: bagOfWordsEmbedder() });
    const a = attributeResult(r, report);
    expect(a.report.verdict).toBe('Grounded');
    expect(a.report.sentences[0]).toMatchObject({ supported: true, bestChunk: ARC.id });
  });
});

describe('calibrate picks thresholds from labelled pairs', () => {
  it('separates labelled examples with zero false support and puts the boundary between them', () => {
    const ex: LabelledSupport[] = [
      { similarity: 0.9, overlap: 0.9, supported: true },
      { similarity: 0.8, overlap: 0.7, supported: true },
      { similarity: 0.7, overlap: 0.8, supported: true },
      { similarity: 0.75, overlap: 0.3, supported: false }, // similar wording, different content words
      { similarity: 0.4, overlap: 0.9, supported: false }, // same words, different meaning
      { similarity: 0.2, overlap: 0.1, supported: false },
      { similarity: 0.95, overlap: 0.95, numbersOk: false, supported: false }, // wrong number: numbers rule handles it
    ];
    const c = calibrate(ex);
    expect(c).toMatchObject({ fp: 0, tp: 3, metTarget: true, balancedAccuracy: 1 });
    expect(c.similarity).toBeGreaterThan(0.4);
    expect(c.similarity).toBeLessThanOrEqual(0.7);
    expect(c.overlap).toBeGreaterThan(0.3);
    expect(c.overlap).toBeLessThanOrEqual(0.7);
  });

  it('measures real pairs with the embedder for calibration data', async () => {
    const e = bagOfWordsEmbedder();
    const pos = await measureSupport('Operations in atypical or segregated airspace are assigned ARC-a.', ARC, e);
    const neg = await measureSupport('The remote pilot must complete an online theoretical knowledge examination.', ARC, e);
    expect(pos.similarity).toBeGreaterThan(neg.similarity);
    expect(pos.overlap).toBeGreaterThan(neg.overlap);
    const c = calibrate([
      { ...pos, supported: true },
      { ...neg, supported: false },
    ]);
    expect(c.fp).toBe(0);
    expect(c.tp).toBe(1);
  });

  it('refuses to calibrate without examples', () => {
    expect(() => calibrate([])).toThrow(/labelled examples/);
  });
});
