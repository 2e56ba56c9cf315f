import { describe, expect, it } from 'vitest';
import { numberCitations } from '../../src/core/answer/citations';
import type { GroundingReport, SentenceGrounding } from '../../src/core/answer/grounding';
import { groundingMarks, normalizeForSearch, renumberSentence, unsupportedSentences } from '../../src/ui/grounding-marks';

const A = 'easa-amc-gm-2019-947/amc1-art11/s4.2';
const B = 'easa-amc-gm-2019-947/amc1-art11/s4.7';

function sentence(text: string, supported: boolean | null, kind: SentenceGrounding['kind'] = 'claim'): SentenceGrounding {
  return {
    text,
    section: 'Facts from the sources',
    kind,
    citations: [],
    supported,
    bestChunk: null,
    similarity: 0.3,
    overlap: 0.2,
    missingNumbers: [],
    fromCitation: true,
    alternativeChunk: null,
    reason: supported ? 'supported' : 'similarity 0.30 < 0.65',
  };
}

function report(sentences: SentenceGrounding[]): GroundingReport {
  return {
    verdict: 'Unsupported',
    verdictReason: 'x',
    sentences,
    totals: { sentences: sentences.length, claims: sentences.length, supported: 0, unsupported: 0, uncited: 0, questions: 0, gaps: 0 },
    thresholds: { similarity: 0.65, overlap: 0.7, windowSentences: 2, requireNumbers: true },
    embedderId: 'test',
  };
}

describe('groundingMarks', () => {
  const answer = [
    '## Answer',
    `The iGRC comes from Table 1 [${A}].`,
    '',
    '## Facts from the sources',
    `- The **maximum speed** selects the column [${A}].`,
    `- The SAIL is always IV [${B}].`,
    '',
    '## Missing information',
    'None.',
  ].join('\n');
  const display = numberCitations(answer);

  it('marks only unsupported claims, at their place in the display text', () => {
    const rep = report([
      sentence(`The iGRC comes from Table 1 [${A}].`, true),
      sentence(`The maximum speed selects the column [${A}].`, false),
      sentence(`The SAIL is always IV [${B}].`, false),
      sentence('None.', null, 'minor'),
    ]);
    const { marks, unplaced } = groundingMarks(display.text, display.numberOf, rep);
    expect(unplaced).toEqual([]);
    expect(marks).toHaveLength(2);
    const texts = marks.map((m) => display.text.slice(m.start, m.end));
    // emphasis markers inside the sentence are spanned, citations renumbered
    expect(texts[0]).toBe('The **maximum speed** selects the column [1].');
    expect(texts[1]).toBe('The SAIL is always IV [2].');
    expect(marks[0]!.reason).toContain('similarity');
    expect(marks[0]!.start).toBeLessThan(marks[1]!.start);
  });

  it('reports sentences it cannot find instead of dropping them', () => {
    const rep = report([sentence('A sentence that is not in the answer at all.', false)]);
    const { marks, unplaced } = groundingMarks(display.text, display.numberOf, rep);
    expect(marks).toEqual([]);
    expect(unplaced.map((s) => s.text)).toEqual(['A sentence that is not in the answer at all.']);
  });

  it('maps repeated sentences to successive occurrences', () => {
    const text = 'Same claim [1]. Other. Same claim [1].';
    const rep = report([sentence(`Same claim [${A}].`, false), sentence(`Same claim [${A}].`, false)]);
    const { marks } = groundingMarks(text, { [A]: 1 }, rep);
    expect(marks.map((m) => m.start)).toEqual([0, text.lastIndexOf('Same')]);
  });

  it('handles no report and no unsupported sentence', () => {
    expect(groundingMarks('x', {}, null)).toEqual({ marks: [], unplaced: [] });
    expect(unsupportedSentences(report([sentence('ok', true), sentence('q?', null, 'question')]))).toEqual([]);
  });

  it('renumbers chunk-id markers and drops unknown ids', () => {
    expect(renumberSentence(`X [${A}; ${B}] y [unknown/id].`, { [A]: 1, [B]: 2 })).toBe('X [1, 2] y .');
  });

  it('normalizes emphasis and whitespace with an offset map', () => {
    const n = normalizeForSearch('a  **b**\n c');
    expect(n.text).toBe('a b c');
    expect(n.map[2]).toBe(5);
  });
});
