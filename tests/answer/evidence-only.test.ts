import { describe, expect, it } from 'vitest';
import { answerConfig } from '../../src/core/answer/config.js';
import { composeEvidenceOnlyAnswer, NO_EVIDENCE_TEXT, NO_MODEL_NOTICE } from '../../src/core/answer/evidence-only.js';
import { numberCitations } from '../../src/core/answer/citations.js';
import { bagOfWordsEmbedder, EMPTY_RETRIEVAL, makeChunk, retrievalOf } from './helpers.js';

const chunks = [
  makeChunk(
    'easa-amc-gm-2019-947/amc1-art11/s4.2.3/table-1',
    'Determination of the intrinsic ground risk class',
    'This step covers the ground risk. The intrinsic ground risk class depends on the UA characteristic dimension and the population density. ' +
      'Controlled ground areas are treated as having no uninvolved persons. The table has five columns.',
    45,
  ),
  makeChunk('skysafe-sora-curated/17', 'Air risk', 'The initial air risk class is determined with a flowchart. Atypical airspace is ARC-a.', null),
  ...Array.from({ length: 5 }, (_, i) => makeChunk(`skysafe-sora-curated/${30 + i}`, `Other ${i}`, `Filler passage number ${i}. Nothing relevant here.`)),
];
const retrieval = retrievalOf(chunks);
const question = 'How does population density affect the intrinsic ground risk class?';

describe('evidence-only mode (no generative model)', () => {
  it('lists up to 5 passages in retrieval order with citation, title, document and pages, and says no model was used', async () => {
    const r = await composeEvidenceOnlyAnswer({ question, retrieval, chunks });
    expect(r.passages).toHaveLength(5);
    expect(r.passages.map((p) => p.id)).toEqual(chunks.slice(0, 5).map((c) => c.id));
    expect(r.passages[0]).toMatchObject({ number: 1, title: chunks[0]!.title, docId: 'easa-amc-gm-2019-947', pages: 'page 45' });
    expect(r.passages[1]!.pages).toBe('no page');
    expect(r.text.split('\n')[0]).toBe(NO_MODEL_NOTICE);
    expect(r.text).toMatch(/No generative model was used/);
    expect(r.text).toContain(`1. [${chunks[0]!.id}] ${chunks[0]!.title} — easa-amc-gm-2019-947, page 45`);
    expect(r.generativeModelUsed).toBe(false);
    expect(r.ranking).toBe('term-overlap');
    // markers are ordinary citations: the display numbering works on them
    expect(numberCitations(r.text).order).toEqual(chunks.slice(0, 5).map((c) => c.id));
  });

  it('highlights the most relevant sentences as character offsets into the chunk text (term overlap)', async () => {
    const r = await composeEvidenceOnlyAnswer({ question, retrieval, chunks });
    const p = r.passages[0]!;
    const marked = p.highlights.map((h) => p.text.slice(h.start, h.end));
    // the two best sentences, shown in text order
    expect(marked).toEqual([
      'This step covers the ground risk.',
      'The intrinsic ground risk class depends on the UA characteristic dimension and the population density.',
    ]);
    expect(p.highlights[1]!.score).toBeGreaterThan(p.highlights[0]!.score);
    expect(p.highlights.every((h, i, a) => i === 0 || a[i - 1]!.start < h.start)).toBe(true);
    expect(r.text).toContain(`   > ${marked[1]}`);
    // a passage sharing no word with the question gets no highlight
    expect(r.passages[2]!.highlights).toEqual([]);
  });

  it('ranks sentences by embedding similarity when an embedder is given', async () => {
    const e = bagOfWordsEmbedder();
    const r = await composeEvidenceOnlyAnswer({
      question,
      retrieval,
      chunks,
      embedder: e,
      config: answerConfig({ evidenceOnly: { highlightsPerPassage: 1 } }),
    });
    expect(r.ranking).toBe('embedding');
    const p = r.passages[0]!;
    expect(p.highlights).toHaveLength(1);
    expect(p.text.slice(p.highlights[0]!.start, p.highlights[0]!.end)).toContain('population density');
    expect(e.calls).toBe(1);
  });

  it('is deterministic', async () => {
    const a = await composeEvidenceOnlyAnswer({ question, retrieval, chunks, embedder: bagOfWordsEmbedder() });
    const b = await composeEvidenceOnlyAnswer({ question, retrieval, chunks, embedder: bagOfWordsEmbedder() });
    expect(a).toEqual(b);
  });

  it('says the corpus holds no evidence when retrieval found none', async () => {
    const r = await composeEvidenceOnlyAnswer({ question, retrieval: EMPTY_RETRIEVAL, chunks });
    expect(r).toMatchObject({ noEvidence: true, passages: [], text: NO_EVIDENCE_TEXT });
    expect(r.text).toMatch(/corpus holds no evidence/);
    expect(r.text).toMatch(/No generative model was used/);
  });
});
