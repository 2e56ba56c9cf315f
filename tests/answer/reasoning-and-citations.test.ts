import { describe, expect, it } from 'vitest';
import { answerConfig } from '../../src/core/answer/config.js';
import { citedIds, contextChunkIds, filterCitations, numberCitations, parseCitations, stripCitations } from '../../src/core/answer/citations.js';
import { answerQuestion } from '../../src/core/answer/generation.js';
import { splitReasoning, ThinkSplitter } from '../../src/core/answer/reasoning.js';
import { findApprovalWording } from '../../src/core/answer/wording.js';
import { delta, engineDouble, makeChunk, retrievalOf } from './helpers.js';

const A = 'easa-amc-gm-2019-947/amc1-art11/s4.2.3/table-1';
const B = 'skysafe-sora-curated/17';
const retrieval = retrievalOf([makeChunk(A, 'Table 2', 'iGRC table text.'), makeChunk(B, 'Curated 17', 'Curated text.')]);
// the answerQuestion tests here check the free-form path (the double writes prose with markers)
const config = answerConfig({ answerForm: 'free', retry: { delayMs: 0 } });

describe('reasoning trace is separated from the answer', () => {
  it('splits <think> blocks even when the tags are cut across stream deltas', async () => {
    const engine = engineDouble({
      streams: [[delta('<thi'), delta('nk>The user asks about'), delta(' the iGRC.</th'), delta('ink>\n\n## Answer\nSee Table 2 '), delta(`[${A}].`, 'stop')]],
    });
    const streamed = { answer: '', reasoning: '', draft: '' };
    const r = await answerQuestion({ question: 'q', retrieval, engine, config, onToken: (t, ch) => (streamed[ch] += t) });
    expect(r.reasoning).toBe('The user asks about the iGRC.');
    expect(r.answer).toBe(`## Answer\nSee Table 2 [${A}].`);
    expect(streamed.reasoning).toBe('The user asks about the iGRC.');
    expect(streamed.answer.trim()).toBe(r.answer);
    expect(r.answer).not.toContain('think');
  });

  it('takes a reasoning_content delta field as reasoning', async () => {
    const engine = engineDouble({
      streams: [[{ choices: [{ delta: { reasoning_content: 'Check table.' }, finish_reason: null }] }, delta('Answer text.', 'stop')]],
    });
    const r = await answerQuestion({ question: 'q', retrieval, engine, config });
    expect(r).toMatchObject({ reasoning: 'Check table.', answer: 'Answer text.' });
  });

  it('treats text before a closing tag without an opening tag as reasoning (template-opened block)', () => {
    expect(splitReasoning('thinking here</think>\nFinal.')).toEqual({ answer: '\nFinal.', reasoning: 'thinking here' });
    expect(splitReasoning('<think>\n\n</think>\n\nDirect.')).toEqual({ answer: '\n\nDirect.', reasoning: '' });
  });

  it('keeps an unterminated think block as reasoning', () => {
    const s = new ThinkSplitter();
    const a = s.push('<think>still thinking');
    const b = s.flush();
    expect(a.answer + b.answer).toBe('');
    expect(a.reasoning + b.reasoning).toBe('still thinking');
  });
});

describe('citations', () => {
  it('parses [chunk-id] markers, including several ids in one bracket, and ignores [1] or [NO CONTEXT]', () => {
    const text = `Fact one [${A}]. Fact two [${B}; ${A}]. Not a marker [1] or [NO CONTEXT].`;
    expect(parseCitations(text).map((m) => m.ids)).toEqual([[A], [B, A]]);
    expect(citedIds(text)).toEqual([A, B]);
    expect(stripCitations(text)).toBe('Fact one. Fact two. Not a marker [1] or [NO CONTEXT].');
  });

  it('numbers citations in order of first appearance and keeps the mapping', () => {
    const n = numberCitations(`X [${B}]. Y [${A}]. Z [${B}, ${A}].`);
    expect(n.text).toBe('X [1]. Y [2]. Z [1, 2].');
    expect(n.order).toEqual([B, A]);
    expect(n.numberOf).toEqual({ [B]: 1, [A]: 2 });
  });

  it('reads the chunk ids of a context block', () => {
    expect(contextChunkIds(retrieval.context)).toEqual([A, B]);
  });

  it('removes unknown ids, keeps known ones (case-insensitively) and reports what was removed', () => {
    const f = filterCitations(`One [${A.toUpperCase()}]. Two [easa-amc-gm-2019-947/invented/s9]. Three [${B}, skysafe-sora-curated/999].`, [A, B]);
    expect(f.text).toBe(`One [${A}]. Two. Three [${B}].`);
    expect(f.removed.map((r) => r.id)).toEqual(['easa-amc-gm-2019-947/invented/s9', 'skysafe-sora-curated/999']);
    expect(f.kept).toEqual([A, B]);
  });

  it('answerQuestion removes citations of chunks not in the context and reports them', async () => {
    const engine = engineDouble({
      streams: [
        [delta(`The iGRC comes from Table 2 [${A}]. Class C2 needs a certificate [easa-amc-gm-2019-947/gm1-art-99/s1]. `), delta(`Also [${B}].`, 'stop')],
      ],
    });
    const r = await answerQuestion({ question: 'q', retrieval, engine, config });
    expect(r.answer).toBe(`The iGRC comes from Table 2 [${A}]. Class C2 needs a certificate. Also [${B}].`);
    expect(r.removedCitations).toEqual([{ id: 'easa-amc-gm-2019-947/gm1-art-99/s1', at: expect.any(Number) }]);
    expect(r.citations).toEqual([A, B]);
    expect(r.display.text).toBe('The iGRC comes from Table 2 [1]. Class C2 needs a certificate. Also [2].');
  });
});

describe('approval-like wording', () => {
  it('flags statements that the user is authorised or the operation compliant, not quoted requirements', () => {
    expect(findApprovalWording('Your operation is compliant with SORA. You are authorised to fly BVLOS.')).toEqual([
      'Your operation is compliant with SORA',
      'You are authorised to fly BVLOS',
    ]);
    expect(findApprovalWording('The procedures shall be approved by the competent authority [a/b].')).toEqual([]);
  });
});
