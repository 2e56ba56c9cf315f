/**
 * Citation attribution: a supported claim the model left uncited gets the marker of
 * the chunk the grounding check found supporting it, recorded as attributed; cited,
 * unsupported and non-claim sentences are left as they are.
 */
import { describe, expect, it } from 'vitest';
import { attributeCitations } from '../../src/core/answer/attribution.js';
import { parseCitations } from '../../src/core/answer/citations.js';
import { checkGrounding } from '../../src/core/answer/grounding.js';
import { bagOfWordsEmbedder, makeChunk } from './helpers.js';

const age = makeChunk('doc/age', 'Minimum age', 'The minimum age for remote pilots in the open category is 16 years.');
const reg = makeChunk('doc/reg', 'Registration', 'UAS operators shall register themselves in the member state of their residence.');
const chunks = [age, reg];
const config = { similarity: 0.5, overlap: 0.6, windowSentences: 2, maxWindowsPerChunk: 80, requireNumbers: true, minClaimTokens: 3 };

describe('attributeCitations', () => {
  it('adds the supporting chunk to uncited supported claims only, before the closing full stop', async () => {
    const answer = [
      '## Answer',
      'The minimum age for remote pilots in the open category is 16 years.',
      'UAS operators shall register themselves in the member state of their residence [doc/reg].',
      'Pilots must hold a licence issued by the moon authority.',
    ].join('\n');
    const report = await checkGrounding({ answer, chunks, embedder: bagOfWordsEmbedder(), config });
    const r = attributeCitations(answer, report);
    expect(r.attributed).toEqual([{ id: 'doc/age', sentence: 'The minimum age for remote pilots in the open category is 16 years.' }]);
    expect(r.answer).toContain('is 16 years [doc/age].');
    // the model's own marker is kept once, the unsupported claim gets none
    expect(r.answer).toContain('residence [doc/reg].');
    expect(r.answer).toContain('moon authority.');
    expect(parseCitations(r.answer).flatMap((m) => m.ids)).toEqual(['doc/age', 'doc/reg']);
    // the report now cites the chunk for that sentence and still says the model did not
    const s = r.report.sentences.find((x) => x.text.startsWith('The minimum age'))!;
    expect(s.citations).toEqual(['doc/age']);
    expect(s.fromCitation).toBe(false);
    expect(s.reason).toMatch(/which it does not cite/);
    expect(r.report.totals).toEqual(report.totals);
  });

  it('changes nothing when every claim cites or none is supported', async () => {
    const answer = 'Pilots must hold a licence issued by the moon authority.';
    const report = await checkGrounding({ answer, chunks, embedder: bagOfWordsEmbedder(), config });
    expect(attributeCitations(answer, report)).toEqual({ answer, attributed: [], report });
  });
});
