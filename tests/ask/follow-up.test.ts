/** Follow-ups searched as standalone queries without a model (src/core/ask/follow-up.ts). */
import { describe, expect, it } from 'vitest';
import { standaloneFollowUp } from '../../src/core/ask/follow-up';
import { runTurn } from '../../src/core/ask/turn';
import { searchedAs } from '../../src/core/ask/turn-state';
import { createFakeRuntime } from '../ui/fake-runtime';
import type { StreamingChatRequest } from '../../src/core/llm/engine';
import { delta, engineDouble } from '../answer/helpers';

const FIRST = 'What training does OSO #09 require for the remote crew?';

describe('a follow-up as a standalone query', () => {
  it('searches a message that names no topic with the topic the previous question supplies, not the previous question again', () => {
    const q = standaloneFollowUp('and at night?', FIRST);
    expect(q.query.startsWith('at night?')).toBe(true);
    expect(q.topic).toEqual(['training', 'oso', '09', 'require', 'remote', 'crew']);
    expect(q.query).not.toContain('What training');
  });

  it('searches a message that names its own topic as it is, without the opener', () => {
    expect(standaloneFollowUp('and what about multi-crew coordination?', FIRST)).toEqual({ query: 'multi-crew coordination?', topic: [] });
    expect(standaloneFollowUp('And for the design and production organisation?', FIRST).topic).toEqual([]);
  });

  it('is what the turn searches for a follow-up, and the evidence is matched against it', async () => {
    const runtime = createFakeRuntime();
    const first = await runTurn(
      { question: 'What is the iGRC of a 3 m drone at 30 m/s over < 500 people/km2?', index: { manifestSha: '' } },
      { retrieval: runtime, model: null },
    );
    const f = await runTurn(
      {
        question: 'and for 1 m?',
        previous: [{ question: 'What is the iGRC of a 3 m drone at 30 m/s over < 500 people/km2?', path: first.route!.path }],
        memory: first.memory,
        index: { manifestSha: '' },
      },
      { retrieval: runtime, model: null },
    );
    expect(f.retrievalQuery).toMatch(/^for 1 m\? \(igrc 3 drone 30 500 people km2\)$/);
    expect(runtime.queries.at(-1)).toBe(f.retrievalQuery);
  });
});

describe('the topic across turns (issue 35, item 5)', () => {
  it("carries the first question's topic into a third turn that names none, and takes a new one when a message names it", async () => {
    const runtime = createFakeRuntime();
    const ask = (question: string, previous: Parameters<typeof runTurn>[0]['previous']) =>
      runTurn({ question, previous, index: { manifestSha: '' } }, { retrieval: runtime, model: null });
    const prior = (t: Awaited<ReturnType<typeof ask>>) => ({ question: t.question, path: t.route!.path, topic: t.topic });
    const a = await ask(FIRST, []);
    expect(a.topic).toEqual(['training', 'oso', '09', 'require', 'remote', 'crew']);
    const b = await ask('and at night?', [prior(a)]);
    expect(b.retrievalQuery).toBe('at night? (training oso 09 require remote crew)');
    expect(b.topic).toEqual(a.topic);
    const c = await ask('and for BVLOS?', [prior(a), prior(b)]);
    expect(c.retrievalQuery).toBe('for BVLOS? (training oso 09 require remote crew)');
    expect(c.retrievalQuery).not.toContain('night');
    expect(searchedAs(c)).toBe('for BVLOS? (training oso 09 require remote crew)');
    // a message with its own topic changes it; the next follow-up carries the new one
    const d = await ask('and what about the emergency response plan?', [prior(a), prior(b), prior(c)]);
    expect(d.retrievalQuery).toBe('the emergency response plan?');
    expect(d.topic).toEqual(['emergency', 'response', 'plan']);
    const e = await ask('and who tests it?', [prior(a), prior(b), prior(c), prior(d)]);
    expect(e.retrievalQuery).toMatch(/\(emergency response plan\)$/);
    expect(searchedAs(a)).toBeNull(); // a first question is searched as asked
  });
});

describe('a follow-up with a model loaded', () => {
  it('is rewritten by the model as a standalone question (schema output) before retrieval, with the earlier question given for its topic', async () => {
    const runtime = createFakeRuntime();
    const requests: StreamingChatRequest[] = [];
    const engine = engineDouble({
      streams: [
        [delta(JSON.stringify({ rewritten: 'What training does OSO #09 require for night operations?', hypothetical_answer: '', sub_questions: [] }), 'stop')],
        [delta(JSON.stringify({ claims: [], notInPassages: 'not given' }), 'stop')],
      ],
    });
    const spy = { ...engine, chat: { completions: { create: (r: StreamingChatRequest) => (requests.push(r), engine.chat.completions.create(r)) } } };
    const f = await runTurn(
      { question: 'and at night?', previous: [{ question: FIRST, path: 'rules' }], index: { manifestSha: '' }, settings: { routerModel: false } },
      { retrieval: runtime, model: { engine: spy, contextWindow: 4096, modelId: 'double' } },
    );
    const assist = requests[0]!;
    expect(assist.response_format?.schema).toContain('rewritten');
    expect(assist.messages.at(-1)!.content).toContain(FIRST);
    expect(assist.messages.at(-1)!.content).toContain("The user's message: and at night?");
    expect(f.retrievalQuery).toBe('What training does OSO #09 require for night operations?');
    expect(runtime.queries.at(-1)).toBe(f.retrievalQuery);
  });
});
