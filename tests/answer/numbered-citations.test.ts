/**
 * Numbered citation markers: the model sees the context passages as [1], [2]… and its
 * numbers become chunk ids again — in the final answer and in the stream, even when
 * a marker arrives split over several tokens — so the filter, the grounding check and
 * the display work on `[chunk-id]` markers as before.
 */
import { describe, expect, it } from 'vitest';
import { answerConfig } from '../../src/core/answer/config.js';
import { NumberMarkerStream, numberContextMarkers, outOfContextId, resolveNumberMarkers } from '../../src/core/answer/citations.js';
import { answerQuestion } from '../../src/core/answer/generation.js';
import { buildChatMessages } from '../../src/core/answer/messages.js';
import { delta, engineDouble, makeChunk, retrievalOf } from './helpers.js';

const a = makeChunk('easa-amc-gm-2019-947/amc1-art11/s2.4/table-1', 'Robustness', 'Medium integrity with low assurance gives low robustness.');
const b = makeChunk('skysafe-sora-curated/7', 'Roles', 'The competent authority assesses the application.');
const retrieval = retrievalOf([a, b]);
// the answerQuestion tests here check the free-form path (the double writes prose with markers)
const FREE = answerConfig({ answerForm: 'free' });

describe('numberContextMarkers', () => {
  it('numbers each passage header in context order and keeps the ids', () => {
    const n = numberContextMarkers(retrieval.context);
    expect(n.ids).toEqual([a.id, b.id]);
    expect(n.context).toMatch(/^\[1\] Robustness — easa-amc-gm-2019-947, page 12\n/);
    expect(n.context).toContain('\n\n[2] Roles — skysafe-sora-curated, page 12\n');
    expect(n.context).not.toContain(a.id + ']');
  });
});

describe('resolveNumberMarkers', () => {
  const ids = [a.id, b.id];
  it('turns [n], lists and "Passage n" forms into chunk ids', () => {
    expect(resolveNumberMarkers('Low [1]. Authority [2].', ids)).toBe(`Low [${a.id}]. Authority [${b.id}].`);
    expect(resolveNumberMarkers('Both [1, 2] and [Passage 2; source 1].', ids)).toBe(`Both [${a.id}, ${b.id}] and [${b.id}, ${a.id}].`);
  });
  it('makes a number outside the context an id the citation filter removes', () => {
    expect(resolveNumberMarkers('See [3].', ids)).toBe(`See [${outOfContextId(3)}].`);
  });
  it('leaves other bracketed text alone', () => {
    expect(resolveNumberMarkers('[NO CONTEXT] and [note: x]', ids)).toBe('[NO CONTEXT] and [note: x]');
  });
});

describe('NumberMarkerStream', () => {
  it('holds a marker split over tokens until it closes, and loses no text', () => {
    const s = new NumberMarkerStream([a.id, b.id]);
    const parts = ['Low rob', 'ustness [', '1', '] and', ' [2', ']', ' end ['];
    const out = parts.map((p) => s.push(p));
    expect(out[1]).toBe('ustness ');
    expect(out[2]).toBe('');
    expect(out[3]).toBe(`[${a.id}] and`);
    expect(out.join('') + s.flush()).toBe(`Low robustness [${a.id}] and [${b.id}] end [`);
  });
  it('lets a long bracketed remark through once it cannot be a marker', () => {
    const s = new NumberMarkerStream([a.id]);
    const long = '[this is a long remark that goes on and on without closing';
    expect(s.push(long)).toBe(long);
  });
});

describe('answerQuestion with numbered markers (the default)', () => {
  it('sends numbered passages, streams and returns chunk-id citations, and drops numbers outside the context', async () => {
    const engine = engineDouble({ streams: [[delta('Low robustness ['), delta('1]. The authority decides [2'), delta('] [9].', 'stop')]] });
    const streamed: string[] = [];
    const r = await answerQuestion({ question: 'robustness?', retrieval, engine, config: FREE, onToken: (d, ch) => ch === 'answer' && streamed.push(d) });
    const sent = engine.requests[0]!.messages.map((m) => m.content).join('\n');
    expect(sent).toContain('[1] Robustness');
    expect(sent).toContain('[2] Roles');
    expect(sent).not.toContain(`[${a.id}]`);
    expect(streamed.join('')).toBe(`Low robustness [${a.id}]. The authority decides [${b.id}] [${outOfContextId(9)}].`);
    expect(r.citations).toEqual([a.id, b.id]);
    expect(r.answer).toBe(`Low robustness [${a.id}]. The authority decides [${b.id}].`);
    expect(r.removedCitations.map((x) => x.id)).toEqual([outOfContextId(9)]);
    expect(r.display.text).toBe('Low robustness [1]. The authority decides [2].');
  });

  it("keeps the SKYSAFE [chunk-id] form with citationMarkers 'id'", async () => {
    const engine = engineDouble({ streams: [[delta(`Low [${a.id}] [1].`, 'stop')]] });
    const r = await answerQuestion({ question: 'q', retrieval, engine, config: answerConfig({ citationMarkers: 'id' }, FREE) });
    expect(engine.requests[0]!.messages.map((m) => m.content).join('\n')).toContain(`[${a.id}] Robustness`);
    expect(r.citations).toEqual([a.id]);
  });

  it('strips old markers from previous answers, which point into an earlier context', () => {
    const m = buildChatMessages({ question: 'and then?', history: [{ question: 'q1', answer: `Low [${a.id}].` }], context: '[1] x — d, page 1\ntext' });
    expect(m.find((x) => x.role === 'assistant' && x.content.startsWith('Low'))!.content).toBe('Low.');
  });
});
