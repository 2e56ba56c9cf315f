/**
 * Nothing lost on reload: the Ask conversation (with its evidence and the calculator's memory) and
 * the Assess form are kept in IndexedDB (fake-indexeddb here) and restored by a fresh session, as
 * after a reload; "New conversation" and the form's reset clear them; a damaged or unsavable record
 * is said, never shown half.
 */
import 'fake-indexeddb/auto';
import { describe, expect, it } from 'vitest';
import { createSessionStore, type SessionStore } from '../../src/storage/session-store';
import { AskSession } from '../../src/ui/ask/session.svelte';
import { CONVERSATION_VERSION } from '../../src/core/ask/stored-conversation';
import { AssessModel } from '../../src/ui/assess/assess-model.svelte';
import { CHUNKS } from './fake-runtime';
import { appStandIn } from './stand-ins';

let n = 0;
const freshStore = (): SessionStore => createSessionStore({ dbName: `session-${++n}-${Date.now()}` });
const QUESTION = 'How is the intrinsic ground risk class determined from the population density?';
const CALC = 'What is the iGRC of a 3 m drone at 30 m/s over < 500 people/km2?';

describe('the Ask conversation across a reload', () => {
  it('comes back with each turn as it was shown: question, route, evidence and the calculator memory', async () => {
    const sessionStore = freshStore();
    const before = new AskSession({ ...appStandIn(), sessionStore });
    await before.ask(QUESTION);
    await before.ask(CALC);

    const after = new AskSession({ ...appStandIn(), sessionStore }); // a reload: a new session over the same database
    await after.restore();
    expect(after.turns.map((t) => t.state.question)).toEqual([QUESTION, CALC]);
    expect(after.turns[0]!.state.phase).toBe('done');
    expect(after.turns[0]!.state.evidence?.passages[0]?.id).toBe(CHUNKS[0]!.id);
    expect(after.turns[1]!.state.calc?.items.length).toBeGreaterThan(0);
    // the calculator remembers the last operation: a follow-up after the reload changes one input
    const follow = await after.ask('and for 1 m?');
    expect(follow.state.calc?.items.map((i) => i.target)).toEqual(after.turns[1]!.state.calc?.items.map((i) => i.target));
  });

  it('"New conversation" clears the stored turns too', async () => {
    const sessionStore = freshStore();
    const s = new AskSession({ ...appStandIn(), sessionStore });
    await s.ask(QUESTION);
    s.clear();
    await new Promise((r) => setTimeout(r, 20));
    const after = new AskSession({ ...appStandIn(), sessionStore });
    await after.restore();
    expect(after.turns).toEqual([]);
  });

  it('drops a damaged stored conversation with a notice, and shows none of it', async () => {
    const sessionStore = freshStore();
    await sessionStore.save('conversation', { version: CONVERSATION_VERSION, turns: [{ question: 42 }], memory: { params: null, targets: [] } });
    const s = new AskSession({ ...appStandIn(), sessionStore });
    await s.restore();
    expect(s.turns).toEqual([]);
    expect(s.storageNotice).toMatch(/damaged and was not restored/);
  });

  it('says a conversation kept by an earlier version is not restored, rather than calling it damaged', async () => {
    const sessionStore = freshStore();
    await sessionStore.save('conversation', { turns: [], memory: { params: null, targets: [] } });
    const s = new AskSession({ ...appStandIn(), sessionStore });
    await s.restore();
    expect(s.turns).toEqual([]);
    expect(s.storageNotice).toMatch(/another version of SkyCite/);
  });

  it('refuses a stored turn whose answer lacks a field the view reads (the schema names every one)', async () => {
    const sessionStore = freshStore();
    const s = new AskSession({ ...appStandIn(), sessionStore });
    await s.ask(QUESTION);
    const saved = (await sessionStore.load('conversation', (v): v is { turns: { ask: { chunks: unknown[] } }[] } => true)).value!;
    saved.turns[0]!.ask.chunks = [{ id: 'x' }]; // a chunk without its text
    await sessionStore.save('conversation', saved);
    const after = new AskSession({ ...appStandIn(), sessionStore });
    await after.restore();
    expect(after.turns).toEqual([]);
    expect(after.storageNotice).toMatch(/damaged/);
  });

  it('says when the conversation cannot be kept (storage full), and the answer is still shown', async () => {
    const full: SessionStore = {
      ...freshStore(),
      save: async () => Promise.reject(Object.assign(new Error('The browser’s storage for SkyCite is full.'), { name: 'StorageQuotaError' })),
    };
    const s = new AskSession({ ...appStandIn(), sessionStore: full });
    const t = await s.ask(QUESTION);
    expect(t.state.phase).toBe('done');
    expect(s.storageNotice).toMatch(/not kept for the next visit: .*full/);
  });
});

describe('the Assess form across a reload', () => {
  const app = (sessionStore: SessionStore) => Object.assign(appStandIn(), { sessionStore, announce: () => undefined });

  it('comes back with the values typed before the reload; reset clears it', async () => {
    const sessionStore = freshStore();
    const before = new AssessModel(app(sessionStore));
    await before.restore();
    before.values.characteristic_dimension_m = '3 m';
    before.values.mitigations.m1a = 'low';
    await before.remember(before.values);

    const after = new AssessModel(app(sessionStore));
    await after.restore();
    expect(after.values.characteristic_dimension_m).toBe('3 m');
    expect(after.values.mitigations.m1a).toBe('low');

    after.reset();
    await new Promise((r) => setTimeout(r, 20));
    const again = new AssessModel(app(sessionStore));
    await again.restore();
    expect(again.values.characteristic_dimension_m).toBe('');
  });

  it('does not overwrite the stored form with the empty one before it was restored', async () => {
    const sessionStore = freshStore();
    await sessionStore.save('assessForm', { ...new AssessModel(app(sessionStore)).values, max_speed_ms: '30' });
    const m = new AssessModel(app(sessionStore));
    await m.remember(m.values); // the view's first save runs before restore(): nothing is written
    await m.restore();
    expect(m.values.max_speed_ms).toBe('30');
  });
});
