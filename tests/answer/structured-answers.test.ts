/**
 * Structured answers (src/core/answer/structured.ts and the structured branch of generation.ts):
 * the schema both runtimes enforce, claims read as they complete while the JSON streams, sources
 * outside the context dropped and reported, the refusal, a cut-off reply, and verification claim
 * by claim with re-attribution.
 */
import Ajv from 'ajv';
import { describe, expect, it } from 'vitest';
import { answerConfig } from '../../src/core/answer/config.js';
import { answerQuestion } from '../../src/core/answer/generation.js';
import { attributeResult } from '../../src/core/answer/attribution.js';
import { checkGrounding } from '../../src/core/answer/grounding.js';
import { answerSchema, ClaimStream, draftClaim, renderClaims, resolveClaims } from '../../src/core/answer/structured.js';
import { judgeClaims } from '../../src/core/evaluation/answer-metrics.js';
import { bagOfWordsEmbedder, delta, engineDouble, makeChunk, retrievalOf } from './helpers.js';

// Short invented passages in the style of SORA 2.5 (not quotations).
const IGRC = makeChunk(
  'easa-amc-gm-2019-947/amc1-art11/s4.2.3/table-1',
  'Determination of the intrinsic ground risk class',
  'The intrinsic ground risk class is determined from the maximum UA characteristic dimension and the maximum population density of the operational area. ' +
    'Controlled ground areas are treated as having no uninvolved persons.',
  45,
);
const ARC = makeChunk(
  'easa-amc-gm-2019-947/amc1-art11/s4.4/part-1',
  'Determination of the initial air risk class',
  'The initial air risk class is determined with the air risk class flowchart. Operations in atypical or segregated airspace are assigned ARC-a.',
  52,
);
const HEIGHT = makeChunk(
  'easa-amc-gm-2019-947/amc1-art11/s4.5/part-2',
  'Maximum height',
  'The maximum height of the operational volume is 150 m above ground.',
  53,
);
const CHUNKS = [IGRC, ARC, HEIGHT];
const GROUNDING = answerConfig({ grounding: { similarity: 0.5, overlap: 0.6 } }).grounding;
const CONFIG = answerConfig({ answerForm: 'structured', grounding: { similarity: 0.5, overlap: 0.6 } });

/** A reply streamed in small pieces, as a model's tokens arrive. */
function pieces(json: string, size = 5): ReturnType<typeof delta>[] {
  const out = [];
  for (let i = 0; i < json.length; i += size) out.push(delta(json.slice(i, i + size)));
  out.push(delta('', 'stop'));
  return out;
}

describe('the answer schema', () => {
  const ajv = new Ajv();
  const validate = ajv.compile(answerSchema(3, CONFIG.structured));

  it('accepts claims citing 1–3 of the passage numbers given, and the refusal (no claims, what is missing) when the limits allow it', () => {
    expect(validate({ claims: [{ text: 'The iGRC depends on the dimension.', sources: [1] }], notInPassages: '' })).toBe(true);
    expect(validate({ claims: [{ text: 'Two passages say so.', sources: [1, 3] }], notInPassages: 'the speed' })).toBe(true);
    const mayDecline = ajv.compile(answerSchema(3, { ...CONFIG.structured, minClaims: 0 }));
    expect(mayDecline({ claims: [], notInPassages: 'The passages do not give the maximum mass.' })).toBe(true);
    // the default requires a claim (the 0.5B model declined every answerable question when it could: docs/answers.md)
    expect(validate({ claims: [], notInPassages: 'The passages do not give the maximum mass.' })).toBe(false);
  });

  it('refuses a claim without sources, a source number outside the context, more than 3 sources, or a claim over the length limit', () => {
    expect(validate({ claims: [{ text: 'Uncited.', sources: [] }], notInPassages: '' })).toBe(false);
    expect(validate({ claims: [{ text: 'Cites passage 4 of 3.', sources: [4] }], notInPassages: '' })).toBe(false);
    expect(validate({ claims: [{ text: 'Too many.', sources: [1, 2, 3, 1] }], notInPassages: '' })).toBe(false);
    expect(validate({ claims: [{ text: 'x'.repeat(CONFIG.structured.maxClaimChars + 1), sources: [1] }], notInPassages: '' })).toBe(false);
    expect(validate({ claims: [] })).toBe(false);
  });
});

describe('claims while the JSON streams', () => {
  it('a claim is passed on once its object is complete, never half-written', () => {
    const s = new ClaimStream();
    const json = '{"claims": [{"text": "A b c.", "sources": [1]}, {"text": "D e f.", "sources": [2, 3]}], "notInPassages": "x"}';
    const seen: string[][] = [];
    for (const ch of json) seen.push(s.push(ch).map((c) => c.text));
    const firstAt = seen.findIndex((x) => x.length > 0);
    // the first claim appears only after its closing brace
    expect(json.slice(0, firstAt + 1).endsWith('}')).toBe(true);
    expect(seen.flat()).toEqual(['A b c.', 'D e f.']);
    expect(s.complete).toBe(true);
    expect(s.notInPassages).toBe('x');
  });

  it('a reply cut off mid-claim keeps the complete claims and says why the rest is missing', () => {
    const s = new ClaimStream();
    s.push('{"claims": [{"text": "Kept.", "sources": [1]}, {"text": "Cut off mid-wa');
    expect(s.claims.map((c) => c.text)).toEqual(['Kept.']);
    expect(s.complete).toBe(false);
    expect(s.problem).toMatch(/ended before its JSON object was complete/);
  });

  it('invalid JSON is reported, claims before it kept', () => {
    const s = new ClaimStream();
    s.push('{"claims": [{"text": "Kept.", "sources": [1]}, oops');
    expect(s.claims).toHaveLength(1);
    expect(s.problem).toMatch(/not valid JSON/);
  });

  it('source numbers become chunk ids; a number outside the context is dropped and reported', () => {
    const r = resolveClaims(
      [
        { text: 'One.', sources: [1, 1, 2] },
        { text: 'Two.', sources: [9] },
      ],
      [IGRC.id, ARC.id],
    );
    expect(r.claims).toEqual([
      { text: 'One.', sources: [IGRC.id, ARC.id] },
      { text: 'Two.', sources: [] },
    ]);
    expect(r.removed.map((x) => x.id)).toEqual(['context/9']);
    expect(renderClaims(r.claims, 'the mass')).toBe(`- One. [${IGRC.id}, ${ARC.id}]\n- Two.\n\nMissing information: the mass`);
  });
});

describe('answerQuestion with structured answers', () => {
  const reply = JSON.stringify({
    claims: [
      { text: 'The intrinsic ground risk class is determined from the maximum UA characteristic dimension and the population density.', sources: [1] },
      { text: 'Operations in atypical or segregated airspace are assigned ARC-a.', sources: [2, 7] },
    ],
    notInPassages: '',
  });

  it('asks for the schema, streams each claim as a line with its markers, and returns the claims with chunk ids', async () => {
    const engine = engineDouble({ streams: [pieces(reply)] });
    const streamed: string[] = [];
    const r = await answerQuestion({
      question: 'How is the iGRC found?',
      retrieval: retrievalOf(CHUNKS),
      engine,
      config: CONFIG,
      onToken: (d, ch) => ch === 'answer' && streamed.push(d),
    });
    const req = engine.requests[0]!;
    expect(req.response_format?.type).toBe('json_object');
    const schema = JSON.parse(req.response_format!.schema!);
    expect(schema.properties.claims.items.properties.sources.items.enum).toEqual([1, 2, 3]);
    // the model sees numbered passages, not chunk ids
    expect(req.messages.at(-1)!.content).toContain('[1] Determination of the intrinsic ground risk class');
    expect(streamed.join('')).toBe(`${r.structured!.claims.map((c) => `- ${c.text} [${c.sources.join(', ')}]`).join('\n')}\n`);
    expect(r.structured!.claims.map((c) => c.sources)).toEqual([[IGRC.id], [ARC.id]]);
    expect(r.removedCitations.map((x) => x.id)).toEqual(['context/7']);
    expect(r.citations).toEqual([IGRC.id, ARC.id]);
    expect(r.structured!.refused).toBe(false);
    expect(r.structured!.raw).toBe(reply);
  });

  it('an empty claim list is the refusal: the answer says what is missing, nothing is cited', async () => {
    const engine = engineDouble({ streams: [pieces(JSON.stringify({ claims: [], notInPassages: 'The passages do not give the maximum take-off mass.' }))] });
    const r = await answerQuestion({ question: 'Maximum mass?', retrieval: retrievalOf(CHUNKS), engine, config: CONFIG });
    expect(r.structured!.refused).toBe(true);
    expect(r.answer).toBe('Missing information: The passages do not give the maximum take-off mass.');
    expect(r.citations).toEqual([]);
  });

  it('makes no model call when there is no evidence', async () => {
    const engine = engineDouble({ streams: [pieces(reply)] });
    const r = await answerQuestion({ question: 'q', retrieval: retrievalOf([]), engine, config: CONFIG });
    expect(engine.requests).toHaveLength(0);
    expect(r.status).toBe('no-context');
  });

  it('a reply cut by the token limit keeps the complete claims, checked, and reports the rest', async () => {
    const cut = reply.slice(0, reply.indexOf('Operations') + 20);
    const engine = engineDouble({ streams: [[...pieces(cut).slice(0, -1), delta('', 'length')]] });
    const r = await answerQuestion({
      question: 'How is the iGRC found?',
      retrieval: retrievalOf(CHUNKS),
      engine,
      config: CONFIG,
    });
    expect(r.status).toBe('truncated');
    expect(r.structured!.claims).toHaveLength(1);
    expect(r.structured!.problem).toMatch(/ended before/);
    const report = await checkGrounding({
      answer: r.structured!.claims,
      chunks: CHUNKS.filter((c) => r.contextIds.includes(c.id)),
      embedder: bagOfWordsEmbedder(),
      config: GROUNDING,
      incomplete: true,
    });
    const checked = attributeResult(r, report);
    expect(checked.report.sentences).toHaveLength(1);
    expect(checked.report.sentences[0]!.supported).toBe(true);
  });
});

describe('verification claim by claim', () => {
  it('an injected unsupported claim is flagged and kept, never dropped', async () => {
    const claims = [
      { text: 'The initial air risk class is determined with the air risk class flowchart.', sources: [ARC.id] },
      { text: 'Every operator must hold an insurance of 5 million euro for each drone.', sources: [ARC.id] },
    ];
    const report = await checkGrounding({ answer: claims, chunks: CHUNKS, embedder: bagOfWordsEmbedder(), config: GROUNDING });
    expect(report.sentences.map((s) => s.supported)).toEqual([true, false]);
    expect(report.verdict).toBe('Unsupported');
    expect(judgeClaims(report)).toEqual([
      { citations: 1, supported: true, precise: 1 },
      { citations: 1, supported: false, precise: 0 },
    ]);
  });

  it('a claim its source does not support but another passage does is re-attributed and marked as such', async () => {
    const engine = engineDouble({
      streams: [
        pieces(JSON.stringify({ claims: [{ text: 'Operations in atypical or segregated airspace are assigned ARC-a.', sources: [1] }], notInPassages: '' })),
      ],
    });
    const r = await answerQuestion({ question: 'ARC?', retrieval: retrievalOf(CHUNKS), engine, config: CONFIG });
    const report = await checkGrounding({ answer: r.structured!.claims, chunks: CHUNKS, embedder: bagOfWordsEmbedder(), config: GROUNDING });
    expect(report.sentences[0]).toMatchObject({ supported: false, alternativeChunk: ARC.id });
    const fixed = attributeResult(r, report);
    expect(fixed.claims![0]!.sources).toEqual([ARC.id]);
    expect(r.structured!.modelClaims[0]!.sources).toEqual([IGRC.id]); // what the model wrote is kept for the audit
    expect(fixed.attributed).toEqual([expect.objectContaining({ id: ARC.id, replaced: [IGRC.id] })]);
    expect(fixed.report.sentences[0]!.reason).toMatch(/^re-attributed/);
    expect(fixed.report.verdict).not.toBe('Unsupported');
    expect(fixed.answer).toContain(`[${ARC.id}]`);
  });

  it('two passages that support a claim only together: both citations are needed (ALCE precision), and the claim is supported', async () => {
    const claim = {
      text: 'Operations in atypical airspace are assigned ARC-a and the operational volume is limited to 150 m above ground.',
      sources: [ARC.id, HEIGHT.id],
    };
    const report = await checkGrounding({
      answer: [claim],
      chunks: CHUNKS,
      embedder: bagOfWordsEmbedder(),
      config: answerConfig({ grounding: { similarity: 0.3, overlap: 0.8 } }).grounding,
    });
    const s = report.sentences[0]!;
    expect(s.supported).toBe(true);
    expect(s.citationSupport).toEqual([
      { id: ARC.id, alone: false, needed: true },
      { id: HEIGHT.id, alone: false, needed: true },
    ]);
  });
});

describe('the claim being written', () => {
  it('is read from the partial JSON for a progress line, and is empty once the claim completes', () => {
    expect(draftClaim('{"claims": [{"text": "The operator sh', 0)).toBe('The operator sh');
    expect(draftClaim('{"claims": [{"text": "Done.", "sources": [1]}', 1)).toBe('');
    expect(draftClaim('{"claims": [{"text": "Done.", "sources": [1]}, {"text": "Next', 1)).toBe('Next');
    expect(draftClaim('{"cla', 0)).toBe('');
  });

  it('arrives on the draft channel while the answer channel carries only complete claims', async () => {
    const json = JSON.stringify({ claims: [{ text: 'Operations in atypical or segregated airspace are assigned ARC-a.', sources: [2] }], notInPassages: '' });
    const engine = engineDouble({ streams: [pieces(json, 4)] });
    const drafts: string[] = [];
    const answer: string[] = [];
    await answerQuestion({
      question: 'ARC?',
      retrieval: retrievalOf(CHUNKS),
      engine,
      config: CONFIG,
      onToken: (t, ch) => (ch === 'draft' ? drafts.push(t) : answer.push(t)),
    });
    expect(drafts.some((d) => d.startsWith('Operations in') && d.length < 40)).toBe(true);
    expect(drafts.at(-1)).toBe('');
    expect(answer).toEqual([`- Operations in atypical or segregated airspace are assigned ARC-a. [${ARC.id}]\n`]);
  });
});

describe('limits the browser grammar does not enforce', () => {
  it('claims beyond maxClaims are not kept, and the answer says so (xgrammar in web-llm 0.2.79 ignores maxItems)', async () => {
    const many = { claims: Array.from({ length: 4 }, (_, i) => ({ text: `Claim number ${i + 1} about ARC-a.`, sources: [2] })), notInPassages: '' };
    const engine = engineDouble({ streams: [pieces(JSON.stringify(many), 40)] });
    const shown: string[] = [];
    const r = await answerQuestion({
      question: 'ARC?',
      retrieval: retrievalOf(CHUNKS),
      engine,
      config: answerConfig({ structured: { maxClaims: 2 } }),
      onToken: (t, ch) => ch === 'answer' && shown.push(t),
    });
    expect(shown.join('').trim().split('\n')).toHaveLength(2);
    expect(r.structured!.claims.map((c) => c.text)).toEqual(['Claim number 1 about ARC-a.', 'Claim number 2 about ARC-a.']);
    expect(r.structured!.problem).toBe('the model wrote 4 claims; the first 2 are kept (the limit)');
  });
});

describe('citations shown are the ones that support', () => {
  it('a supported claim keeps the passage that states it; the others it cited are taken off and listed (the model’s citations stay in modelClaims)', async () => {
    const engine = engineDouble({
      streams: [
        pieces(
          JSON.stringify({ claims: [{ text: 'Operations in atypical or segregated airspace are assigned ARC-a.', sources: [1, 2, 3] }], notInPassages: '' }),
        ),
      ],
    });
    const r = await answerQuestion({ question: 'ARC?', retrieval: retrievalOf(CHUNKS), engine, config: CONFIG });
    const report = await checkGrounding({ answer: r.structured!.claims, chunks: CHUNKS, embedder: bagOfWordsEmbedder(), config: GROUNDING });
    expect(report.sentences[0]!.supported).toBe(true);
    expect(judgeClaims(report)).toEqual([{ citations: 3, supported: true, precise: 1 }]);
    const shown = attributeResult(r, report);
    expect(shown.claims![0]!.sources).toEqual([ARC.id]);
    expect(shown.pruned).toEqual([{ sentence: expect.stringContaining('ARC-a'), ids: [IGRC.id, HEIGHT.id] }]);
    expect(r.structured!.modelClaims[0]!.sources).toEqual([IGRC.id, ARC.id, HEIGHT.id]);
    expect(shown.citations).toEqual([ARC.id]);
  });
});
