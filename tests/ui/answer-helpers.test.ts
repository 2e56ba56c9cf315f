import { describe, expect, it } from 'vitest';
import { NO_ANSWER_TEXT } from '../../src/core/answer/prompts';
import { buildAuditRecord, noEvidenceDetail, noEvidenceReason } from '../../src/core/ask/audit';
import { claimsCiting, turnSources } from '../../src/ui/ask/sources';
import { citedPassageRanges, segmentsFromRanges, termRanges } from '../../src/ui/highlight';
import { splitSections } from '../../src/ui/sections';
import { CHUNKS, createFakeRuntime } from './fake-runtime';

describe('answer sections', () => {
  it('splits on the four labels in their usual spellings', () => {
    const s = splitSections('Intro line\n## Answer\nYes [1].\n**Facts from the sources:**\n- a\nInterpretation — it follows.\n### Missing information\nNone.');
    expect(s.map((x) => x.label)).toEqual([null, 'Answer', 'Facts from the sources', 'Interpretation', 'Missing information']);
    expect(s[1]!.body).toBe('Yes [1].');
    expect(s[3]!.body).toBe('it follows.');
  });

  it('does not mistake words starting with a label for a label', () => {
    expect(splitSections('Answering this needs Table 1.').map((x) => x.label)).toEqual([null]);
  });
});

describe('highlight helpers', () => {
  it('cuts text into marked segments', () => {
    expect(
      segmentsFromRanges('abcdef', [
        { start: 1, end: 3 },
        { start: 2, end: 4 },
      ]),
    ).toEqual([
      { text: 'a', mark: false },
      { text: 'bcd', mark: true },
      { text: 'ef', mark: false },
    ]);
  });

  it('finds the chunk sentence a claim comes from', () => {
    const text = CHUNKS[0]!.text;
    const [r] = citedPassageRanges(text, ['The maximum speed and the characteristic dimension select the column.']);
    expect(text.slice(r!.start, r!.end)).toBe('The UA characteristic dimension and the maximum speed select the column.');
  });

  it('marks search terms as whole words', () => {
    const t = 'Ground risk buffer; background.';
    expect(termRanges(t, 'ground').map((r) => t.slice(r.start, r.end))).toEqual(['Ground']);
  });
});

describe('turn sources and audit record', () => {
  it('lists evidence passages with their highlight offsets, then uncited chunks', async () => {
    const rt = createFakeRuntime();
    const ask = await rt.retrieve('intrinsic ground risk class population density Table');
    const evidence = await rt.evidenceOnly('intrinsic ground risk class population density', ask);
    const s = turnSources({ ask, evidence });
    expect(s.cited.map((c) => c.number)).toEqual(evidence.passages.map((p) => p.number));
    expect(s.cited[0]!.ranges).toEqual(evidence.passages[0]!.highlights.map(({ start, end }) => ({ start, end })));
    const record = buildAuditRecord({
      question: 'q',
      retrievalQuery: 'q',
      retrieval: ask.retrieval,
      retrievalConfig: ask.config,
      mode: 'evidence-only',
      evidence,
      indexManifestSha: 'abc',
    });
    expect(record).toMatchObject({ mode: 'evidence-only', modelId: null, modelParams: null, grounding: null, indexManifestSha: 'abc', subQueries: [] });
    expect(record.citedSources).toEqual(evidence.passages.map((p) => p.id));
    expect(record.context).toBe(ask.retrieval.context);
  });

  it('numbers generated citations in order of first appearance while streaming', async () => {
    const rt = createFakeRuntime();
    const ask = await rt.retrieve('SAIL final GRC residual ARC intrinsic ground risk class Table');
    const [a, b] = ask.chunks.map((c) => c.id);
    const stream = `The SAIL uses the final GRC [${b}]. The iGRC uses Table 1 [${a}]. Again [${b}].`;
    const s = turnSources({ ask, stream });
    expect(s.cited.map((c) => [c.number, c.chunk.id])).toEqual([
      [1, b],
      [2, a],
    ]);
    expect(claimsCiting(b!, stream, null)).toEqual(['The SAIL uses the final GRC.', 'Again.']);
  });

  it('records the fixed reply when there is no evidence, and explains why', async () => {
    const rt = createFakeRuntime();
    const ask = await rt.retrieve('zebra');
    expect(ask.retrieval.noEvidence).toBe(true);
    const record = buildAuditRecord({
      question: 'zebra',
      retrievalQuery: 'zebra',
      retrieval: ask.retrieval,
      retrievalConfig: ask.config,
      mode: 'evidence-only',
      indexManifestSha: 'x',
    });
    expect(record.answer).toBe(NO_ANSWER_TEXT);
    expect(record.citedSources).toEqual([]);
    // the reason is in words; the retrieval's internal figures go to the technical detail only
    expect(noEvidenceReason(ask.retrieval)).toMatch(/similar enough/);
    expect(noEvidenceReason(ask.retrieval)).not.toMatch(/cosine|\d\.\d/);
    expect(noEvidenceDetail(ask.retrieval)).toMatch(/cosine 0\.100 < 0\.35: no evidence/);
  });

  it('names a country where the EU rules do not apply, but not an EASA member state', () => {
    const base = { trace: [], broadened: true, evidence: [] };
    expect(noEvidenceReason({ ...base, filters: { jurisdictions: ['US'] } })).toMatch(
      /about United States, where the EU drone rules indexed here do not apply/,
    );
    expect(noEvidenceReason({ ...base, filters: { jurisdictions: ['CA', 'JP'] } })).toMatch(/about Canada, Japan, where/);
    expect(noEvidenceReason({ ...base, filters: { jurisdictions: ['NO'] } })).not.toMatch(/do not apply/);
    expect(noEvidenceReason({ ...base, filters: { jurisdictions: ['IT', 'US'] } })).not.toMatch(/do not apply/);
  });
});
