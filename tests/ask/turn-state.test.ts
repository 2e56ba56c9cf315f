/**
 * The turn's state is written in one place: reduceTurn folds the turn's events, runTurn's outcome is
 * that fold, and the view's lifecycle events (failure, audit) go through the same reducer.
 */
import { describe, expect, it } from 'vitest';
import { runTurn, type TurnEvent } from '../../src/core/ask/turn';
import { initialTurnState, isFinished, reduceTurn } from '../../src/core/ask/turn-state';
import { attributeResult } from '../../src/core/answer/attribution';
import { answerConfig } from '../../src/core/answer/config';
import { checkGrounding } from '../../src/core/answer/grounding';
import { delta, engineDouble } from '../answer/helpers';
import { CHUNKS, createFakeRuntime } from '../ui/fake-runtime';
import { fakeEmbedder } from '../support/fake-embedder';

const QUESTION = 'How is the intrinsic ground risk class determined from the population density?';
const INDEX = { manifestSha: 'a'.repeat(64) };

describe('reduceTurn', () => {
  it('starts empty, with the question as what is searched', () => {
    const s = initialTurnState('Why?');
    expect(s).toMatchObject({ question: 'Why?', phase: 'routing', retrievalQuery: 'Why?', answer: null, stream: '', audited: false });
    expect(initialTurnState('Why?', 'queued').phase).toBe('queued');
  });

  it('appends streamed text, clears it on a retry, and keeps the answer when it arrives', () => {
    let s = initialTurnState('q');
    s = reduceTurn(s, { type: 'token', delta: 'The ' });
    s = reduceTurn(s, { type: 'token', delta: 'class' });
    expect(s.stream).toBe('The class');
    s = reduceTurn(s, { type: 'retry', notice: 'Busy. Retrying once…' });
    expect(s).toMatchObject({ stream: '', retryNotice: 'Busy. Retrying once…' });
    s = reduceTurn(s, { type: 'draft', text: 'a claim being written' });
    expect(s.draft).toBe('a claim being written');
  });

  it('never changes the state it was given (a new value each time)', () => {
    const s = initialTurnState('q');
    const next = reduceTurn(s, { type: 'phase', phase: 'retrieving' });
    expect(s.phase).toBe('routing');
    expect(next.phase).toBe('retrieving');
  });

  it('takes the lifecycle events only the runner knows: failure, audit stored or not', () => {
    let s = reduceTurn(initialTurnState('q'), { type: 'failed', error: { summary: 'The model could not be loaded.', action: 'Reload.' } });
    expect(s.phase).toBe('error');
    expect(isFinished(s)).toBe(true);
    s = reduceTurn(s, { type: 'audit-error', message: 'quota' });
    expect(s.auditError).toBe('quota');
    s = reduceTurn(s, { type: 'audited' });
    expect(s).toMatchObject({ audited: true, auditError: null });
  });
});

describe("runTurn's outcome is the fold of its own events", () => {
  it('without a model', async () => {
    const events: TurnEvent[] = [];
    const out = await runTurn({ question: QUESTION, index: INDEX }, { retrieval: createFakeRuntime(), model: null }, (e) => events.push(e));
    const folded = events.reduce(reduceTurn, initialTurnState(QUESTION));
    const { record, memory, ...state } = out;
    expect(state).toEqual(folded);
    expect(record).not.toBeNull();
    expect(memory).toBeDefined();
  });

  it('with a model and the structured form: the claim is checked and attributed, the outcome is the fold', async () => {
    const id = CHUNKS[0]!.id;
    const reply = JSON.stringify({
      claims: [{ text: 'The intrinsic ground risk class is read from the population density and the dimension.', sources: [1] }],
      notInPassages: '',
    });
    const engine = engineDouble({ streams: [[delta(reply, 'stop')]] });
    const events: TurnEvent[] = [];
    const out = await runTurn(
      { question: QUESTION, settings: { answerConfig: answerConfig({ answerForm: 'structured' }), assist: false, routerModel: false }, index: INDEX },
      { retrieval: createFakeRuntime(), model: { engine, modelId: 'm' } },
      (e) => events.push(e),
    );
    expect(out.answer?.structured?.claims).toHaveLength(1);
    expect(out.answer?.citations).toEqual([id]);
    expect(out.grounding?.sentences).toHaveLength(1);
    expect(out.answer?.attributionProblem).toBeNull();
    const { record: _r, memory: _m, ...state } = out;
    expect(state).toEqual(events.reduce(reduceTurn, initialTurnState(QUESTION)));
  });
});

describe('the default answer form (quoted)', () => {
  it('quotes first, then the model writes a lead over the quotes; the lead is checked against them; the outcome is the fold', async () => {
    const engine = engineDouble({ streams: [[delta('The class comes from the population density and the drone size [1].', 'stop')]] });
    const events: TurnEvent[] = [];
    const out = await runTurn(
      { question: QUESTION, settings: { assist: false, routerModel: false }, index: INDEX },
      { retrieval: createFakeRuntime(), model: { engine, modelId: 'm' } },
      (e) => events.push(e),
    );
    expect(events.findIndex((e) => e.type === 'evidence')).toBeLessThan(events.findIndex((e) => e.type === 'answer'));
    expect(out.evidence?.quoted?.quotes.length).toBeGreaterThan(0);
    const request = engine.requests[0]!;
    expect(request.messages[1]!.content).toContain(`[1] ${out.evidence!.quoted!.quotes[0]!.text}`);
    expect(out.answer?.quoted?.unitIds[0]).toMatch(/\/unit-\d+$/);
    expect(out.grounding?.sentences).toHaveLength(1); // the lead's one sentence, checked against the quoted units
    // the audit record keeps the quotes, the lead and the claim counts
    expect(out.record?.quotedAnswer).toMatchObject({
      quotes: out.evidence!.quoted!.quotes.map((q) => ({ chunkId: q.chunkId, unit: q.n })),
      gap: false,
      claims: { quoted: out.evidence!.quoted!.quotes.length, repeated: 0 },
    });
    const { record: _r, memory: _m, ...state } = out;
    expect(state).toEqual(events.reduce(reduceTurn, initialTurnState(QUESTION)));
  });

  it('without the ranker’s quotations the model answers in the structured form', async () => {
    const reply = JSON.stringify({
      claims: [{ text: 'The intrinsic ground risk class is read from the population density.', sources: [1] }],
      notInPassages: '',
    });
    const engine = engineDouble({ streams: [[delta(reply, 'stop')]] });
    const out = await runTurn(
      { question: QUESTION, settings: { assist: false, routerModel: false }, index: INDEX },
      { retrieval: createFakeRuntime(CHUNKS, { quotes: false }), model: { engine } },
    );
    expect(out.answer?.structured?.claims).toHaveLength(1);
    expect(out.answer?.quoted).toBeNull();
  });
});

describe('one attribution path', () => {
  it('reports a count mismatch between claims and verdicts instead of doing nothing silently', async () => {
    const claims = [
      { text: 'The intrinsic ground risk class is read from the population density.', sources: [CHUNKS[0]!.id] },
      { text: 'It also depends on the dimension.', sources: [CHUNKS[0]!.id] },
    ];
    const report = await checkGrounding({ answer: claims.slice(0, 1), chunks: CHUNKS, embedder: fakeEmbedder(64) });
    const a = attributeResult({ answer: '- x\n- y', status: 'complete', citations: [CHUNKS[0]!.id], structured: { claims, notInPassages: null } }, report);
    expect(a.problem).toMatch(/1 verdict\(s\) for 2 claim\(s\)/);
    expect(a.claims).toEqual(claims);
  });
});
