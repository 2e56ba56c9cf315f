/**
 * The Ask turn as a core use case, run in Node on test doubles (no Svelte): its events, the no-model
 * refusal, the calculator's memory across turns, stop, and that the app's session and the answer
 * evaluation run this one function.
 */
import { describe, expect, it, vi } from 'vitest';
import { EMPTY_CALC_MEMORY, runTurn, weakTableRoute, type TurnEvent } from '../../src/core/ask/turn';
import { showsCalculator } from '../../src/core/ask/turn-state';
import { runCalc } from '../../src/core/sora/message-calc';
import { answerConfig } from '../../src/core/answer/config';
import { answerOne } from '../../corpus-build/node/answer-eval';
import { AskSession } from '../../src/ui/ask/session.svelte';
import { delta, engineDouble } from '../answer/helpers';
import { CHUNKS, createFakeRuntime } from '../ui/fake-runtime';
import { appStandIn, chatStandIn } from '../ui/stand-ins';

// every importer of the turn (the app's session, the evaluation harness, this file) gets this wrapper:
// it counts calls and, when `tamper` is set, changes one step of the turn (the question it searches)
const probe = vi.hoisted(() => ({ calls: 0, tamper: false }));
vi.mock('../../src/core/ask/turn', async (importOriginal) => {
  const mod = await importOriginal<typeof import('../../src/core/ask/turn')>();
  return {
    ...mod,
    runTurn: (input: Parameters<typeof mod.runTurn>[0], ...rest: [Parameters<typeof mod.runTurn>[1], Parameters<typeof mod.runTurn>[2]?]) => {
      probe.calls++;
      return mod.runTurn(probe.tamper ? { ...input, question: `${input.question} battery` } : input, ...rest);
    },
  };
});

const QUESTION = 'How is the intrinsic ground risk class determined from the population density?';
const INDEX = { manifestSha: 'a'.repeat(64) };
// the tests whose double writes prose check the free-form answer path
const FREE = answerConfig({ answerForm: 'free' });

function collect(): { events: TurnEvent[]; emit: (e: TurnEvent) => void; phases: () => string[] } {
  const events: TurnEvent[] = [];
  return { events, emit: (e) => events.push(e), phases: () => events.filter((e) => e.type === 'phase').map((e) => (e as { phase: string }).phase) };
}

describe('the Ask turn (core, Node)', () => {
  it('without a model: routes, retrieves and composes the evidence answer, emitting each step, and returns the audit record', async () => {
    const runtime = createFakeRuntime();
    const { events, emit, phases } = collect();
    const out = await runTurn({ question: QUESTION, index: INDEX }, { retrieval: runtime, model: null }, emit);
    expect(phases()).toEqual(['routing', 'retrieving', 'composing', 'done']);
    expect(events.map((e) => e.type)).toEqual(['phase', 'route', 'phase', 'retrieved', 'phase', 'evidence', 'phase']);
    expect(out.mode).toBe('evidence-only');
    expect(out.evidence?.passages[0]?.id).toBe(CHUNKS[0]!.id);
    expect(out.record).toMatchObject({ kind: 'ask', mode: 'evidence-only', question: QUESTION, indexManifestSha: INDEX.manifestSha, modelId: null });
    expect(runtime.queries).toEqual([QUESTION]);
  });

  it('with no evidence, says why from the gate verdicts and never calls the model', async () => {
    const engine = engineDouble();
    const out = await runTurn(
      { question: 'Which colour is the sky over the sea today?', settings: { assist: false, routerModel: false }, index: INDEX },
      { retrieval: createFakeRuntime(), model: { engine } },
    );
    expect(out.noEvidence?.detail).toBe('gate best dense cosine 0.100 < 0.35: no evidence');
    expect(engine.requests).toHaveLength(0);
    expect(out.answer).toBeNull();
    expect(out.record?.mode).toBe('generative');
  });

  it('with a model: streams tokens, checks the answer against its sources, and names the model in the audit record', async () => {
    const id = CHUNKS[0]!.id;
    const engine = engineDouble({
      streams: [[delta('The intrinsic ground risk class is read from the population density '), delta(`and the dimension [${id}].`, 'stop')]],
    });
    const { events, emit } = collect();
    const out = await runTurn(
      { question: QUESTION, settings: { answerConfig: FREE, assist: false, routerModel: false }, index: INDEX },
      {
        retrieval: createFakeRuntime(),
        model: { engine, modelId: 'test-model' },
        describeModel: (m) => ({ id: m, weightsUrl: 'models/x/', libraryUrl: 'models/x.wasm' }),
      },
      emit,
    );
    expect(events.filter((e) => e.type === 'token').length).toBe(2);
    expect(out.answer?.citations).toEqual([id]);
    expect(out.grounding).not.toBeNull();
    expect(out.record?.models?.generation).toEqual({ id: 'test-model', weightsUrl: 'models/x/', libraryUrl: 'models/x.wasm' });
  });

  it('remembers the calculator inputs: a follow-up that changes one input reuses the others and searches its own words with the previous topic', async () => {
    const first = 'What is the iGRC of a 3 m drone at 30 m/s over < 500 people/km2?';
    const a = await runTurn({ question: first, index: INDEX }, { retrieval: createFakeRuntime(), model: null });
    expect(a.route?.path).toBe('database');
    expect(a.memory).not.toEqual(EMPTY_CALC_MEMORY);
    const b = await runTurn(
      { question: 'and for 1 m?', previous: [{ question: first, path: a.route!.path }], memory: a.memory, index: INDEX },
      { retrieval: createFakeRuntime(), model: null },
    );
    expect(b.prefilter?.cues.followUpOf).toBe('database');
    expect(b.retrievalQuery).toBe('for 1 m? (igrc 3 drone 30 500 people km2)');
    expect(b.calc?.items.map((i) => i.target)).toEqual(a.calc?.items.map((i) => i.target));
    expect(b.memory.params).toMatchObject({ dimensionM: 1 });
  });

  it('stops when aborted before retrieval: phase stopped, nothing retrieved, no audit record', async () => {
    const runtime = createFakeRuntime();
    const controller = new AbortController();
    controller.abort();
    const out = await runTurn({ question: QUESTION, index: INDEX, signal: controller.signal }, { retrieval: runtime, model: null });
    expect(out.phase).toBe('stopped');
    expect(runtime.queries).toEqual([]);
    expect(out.record).toBeNull();
  });
});

describe('not in these documents', () => {
  it('says where the rule lives first, shows the closest passages as such, and never calls the model', async () => {
    const engine = engineDouble();
    const scope = {
      message: 'Regulation (EU) 2019/947, Part A of the Annex (UAS.OPEN) — not included in these documents.',
      instrument: 'UAS.OPEN',
      location: 'Regulation (EU) 2019/947, Part A of the Annex',
    };
    const runtime = createFakeRuntime(CHUNKS, { scope });
    const { events, emit } = collect();
    const out = await runTurn(
      { question: QUESTION, settings: { assist: false, routerModel: false }, index: INDEX },
      { retrieval: runtime, model: { engine } },
      emit,
    );
    expect(runtime.coverageQueries).toEqual([QUESTION]); // the one door, asked once, with what was searched
    expect(out.scope).toEqual(scope);
    expect(events.findIndex((e) => e.type === 'scope')).toBeLessThan(events.findIndex((e) => e.type === 'evidence'));
    expect(out.evidence?.passages.length).toBeGreaterThan(0);
    expect(engine.requests).toHaveLength(0);
    expect(out.answer).toBeNull();
    expect(out.record).toMatchObject({ answer: scope.message, scope });
  });
});

describe('a table route the turn does not impose', () => {
  it('falls back to the text search and offers the calculator when the router is unsure and no input was read', async () => {
    // an undecided message, which the model classifies as a table question with low confidence
    const chat = chatStandIn({ streams: [[delta('No figure is given here.', 'stop')]] }, [
      '{"path": "database", "confidence": 0.43, "reasoning": "a table value"}',
    ]);
    const { events, emit } = collect();
    const out = await runTurn(
      { question: 'ARC?', settings: { assist: false }, index: INDEX },
      { retrieval: createFakeRuntime(), model: { engine: chat.engine } },
      emit,
    );
    expect(out.route?.path).toBe('rules');
    expect(out.calc).toBeNull();
    // plain words for the user; the figure stays in the route's reasoning (Technical details)
    expect(out.calcOffer?.why).toMatch(/does not ask for a SORA value/);
    expect(out.calcOffer?.why).not.toMatch(/%/);
    expect(out.route?.reasoning).toMatch(/low confidence 43 %/);
    expect(events.some((e) => e.type === 'calc')).toBe(false);
  });

  it('shows the calculator only for a question about a SORA value: not for one that only gives a mass (issue 35, item 1)', async () => {
    const crowd = await runTurn(
      { question: 'Can I fly my 249 g drone over a crowd in the open category?', index: INDEX },
      { retrieval: createFakeRuntime(), model: null },
    );
    expect(crowd.calc).toBeNull();
    expect(crowd.calcAsked).toBe(false);
    expect(crowd.route?.path).toBe('rules');
    expect(showsCalculator(crowd)).toBe(false);
    const asked = await runTurn({ question: 'What is the iGRC of a 249 g drone?', index: INDEX }, { retrieval: createFakeRuntime(), model: null });
    expect(asked.calcAsked).toBe(true);
    expect(asked.calc?.items.map((i) => i.target)).toEqual(['igrc']);
    expect(showsCalculator(asked)).toBe(true);
    // computed from the parameters given, without naming the value: shown, except under a "not in these documents" notice
    const computed = await runTurn(
      { question: 'A 1 m drone at 20 m/s over 300 people/km2 with ARC-b', index: INDEX },
      { retrieval: createFakeRuntime(), model: null },
    );
    expect(computed.calc?.items.some((i) => i.status === 'ok')).toBe(true);
    expect(computed.calcAsked).toBe(false);
    expect(showsCalculator(computed)).toBe(true);
    expect(showsCalculator({ ...computed, scope: { message: 'm', instrument: 'i', location: 'l' } })).toBe(false);
    expect(showsCalculator({ ...asked, scope: { message: 'm', instrument: 'i', location: 'l' } })).toBe(true);
  });

  it('is weak only below the decision probability and when every calculator item lacks its inputs', () => {
    const missing = runCalc(['igrc'], {}, [], []);
    const computed = runCalc(['sail'], { grc: 3, residualArc: 'b' }, [], []);
    expect(computed.items[0]!.status).toBe('ok');
    expect(weakTableRoute({ path: 'database', confidence: 0.43 }, missing)).toBe(true);
    expect(weakTableRoute({ path: 'database', confidence: 0.8 }, missing)).toBe(false);
    expect(weakTableRoute({ path: 'both', confidence: 0.43 }, computed)).toBe(false);
    expect(weakTableRoute({ path: 'rules', confidence: 0.1 }, missing)).toBe(false);
  });
});

describe('one question, one path', () => {
  const reply = () => [delta(`The class is read from Table 2 [${CHUNKS[0]!.id}].`, 'stop')];
  async function both() {
    const chat = chatStandIn({ streams: [reply()] });
    const app = appStandIn({ chat });
    const turn = await new AskSession({ ...app, answerConfig: FREE, assist: false, routerModel: false }).ask(QUESTION);
    const engine = engineDouble({ streams: [reply()] });
    const record = await answerOne(
      { id: 'q1', variant: 'direct', question: QUESTION, corpus: 'any', answerable: true },
      { retrieval: createFakeRuntime(), chat: engine, modelId: 'm', contextWindow: 4096, assist: false, config: FREE },
    );
    return { turn, chat, engine, record };
  }

  it("the app's Ask session and eval:answers run the same core turn: the same retrieval, the same messages to the model, the same answer", async () => {
    probe.calls = 0;
    const { turn, chat, engine, record } = await both();
    expect(probe.calls).toBe(2); // one turn each, through the one function
    expect(record.evidenceIds).toEqual(turn.state.ask!.retrieval.evidence.map((e) => e.id));
    expect(record.contextIds).toEqual(turn.state.answer!.contextIds);
    expect(engine.requests.at(-1)!.messages).toEqual(chat.double.requests.at(-1)!.messages);
    expect(record.answer).toBe(turn.state.answer!.answer);
  });

  it('a change to a step of the turn changes what both the app and the evaluation do', async () => {
    const before = await both();
    probe.tamper = true;
    try {
      const after = await both();
      const sent = (r: typeof before) => JSON.stringify(r.engine.requests.at(-1)!.messages);
      expect(sent(after)).not.toBe(sent(before));
      expect(JSON.stringify(after.chat.double.requests.at(-1)!.messages)).toBe(sent(after));
      expect(after.record.question).toBe(QUESTION); // the question asked is the same; the turn searched and answered another
    } finally {
      probe.tamper = false;
    }
  });
});
