/**
 * The Ask session's pipeline of one turn — route → calculator → retrieve → evidence-only or
 * generated answer → grounding → audit — with follow-ups, stop and failures, on stand-ins for
 * the runtime (tests/ui/fake-runtime.ts), the language model (WebLLM engine double) and the
 * real audit store over fake-indexeddb.
 */
import { MINIMAL_LEAD_PROMPT } from '../../src/core/answer/prompts';
import { describe, expect, it, vi } from 'vitest';
import { answerConfig, DEFAULT_ANSWER_CONFIG, SMOKE_ANSWER_CONFIG } from '../../src/core/answer/config';
import { parseCitations, stripCitations } from '../../src/core/answer/citations';
import { NO_ANSWER_TEXT } from '../../src/core/answer/prompts';
import { answerOptionsFromUrl } from '../../src/ui/app-state.svelte';
import { ROUTER_VERDICT_SCHEMA } from '../../src/core/route/router-classifier';
import { prefilterRoute } from '../../src/core/route/router';
import { DEFAULT_RETRIEVAL_CONFIG } from '../../src/core/retrieval/config';
import { CURATED_MODELS, parseModelsManifest } from '../../src/llm/models';
import type { AuditRecord, AuditStore } from '../../src/storage/audit-store';
import { AskSession, type Turn } from '../../src/ui/ask/session.svelte';
import { delta } from '../answer/helpers';
import { FIXTURE_MANIFEST } from '../llm/manifest-fixture';
import { CHUNKS, MANIFEST, createFakeRuntime } from './fake-runtime';
import { appStandIn, chatStandIn, LOADED_MODEL } from './stand-ins';

const IGRC = CHUNKS[0]!.id;
const IGRC_QUESTION = 'How is the intrinsic ground risk class determined from the population density?';
// the generated-answer tests whose double writes prose check the free-form answer path
const FREE = answerConfig({ answerForm: 'free' });

async function records(audit: AuditStore): Promise<AuditRecord[]> {
  return (await audit.list({ limit: 50 })).records.reverse(); // oldest first
}

/** Resolves when the predicate holds (the session runs in the background). */
const until = (pred: () => boolean) => vi.waitFor(() => expect(pred()).toBe(true), { timeout: 5_000, interval: 2 });

describe('Ask session: evidence-only answers', () => {
  it('routes to the text, retrieves, composes the evidence answer and audits the configuration, route, scores and models', async () => {
    const app = appStandIn();
    const session = new AskSession(app);
    const turn = await session.ask(`  ${IGRC_QUESTION} `);
    expect(turn.state.phase).toBe('done');
    expect(turn.state.question).toBe(IGRC_QUESTION);
    expect(turn.state.route?.path).toBe('rules');
    expect(turn.state.calc).toBeNull(); // the calculator is not consulted for a text question
    expect(turn.state.mode).toBe('evidence-only');
    expect(app.runtime.queries).toEqual([IGRC_QUESTION]);
    expect(turn.state.evidence?.passages[0]?.id).toBe(IGRC);

    const [r] = await records(app.audit);
    expect(r).toMatchObject({
      kind: 'ask',
      question: IGRC_QUESTION,
      mode: 'evidence-only',
      modelId: null,
      route: { path: 'rules' },
      calculator: null,
      indexManifestSha: app.manifestSha,
    });
    expect(r!.retrievalConfig).toEqual(turn.state.ask!.config);
    expect(r!.citedSources).toEqual(turn.state.evidence!.passages.map((p) => p.id));
    expect(r!.evidence[0]).toMatchObject({ id: IGRC, parts: turn.state.ask!.retrieval.evidence[0]!.parts, stages: [{ stage: 'shared words', rank: 1 }] });
    expect(r!.models).toEqual({ embedding: { id: MANIFEST.model.id, dtype: MANIFEST.model.dtype, sha256: MANIFEST.model.sha256 }, generation: null });
    expect(turn.state.audited).toBe(true);
  });

  it('audits the retrieval configuration the runtime reports, not the defaults', async () => {
    const runtime = createFakeRuntime();
    const retrieve = runtime.retrieve.bind(runtime);
    runtime.retrieve = (q, o) => retrieve(q, { ...o, config: { dense: { backend: 'voy' }, bm25: { k1: 1.2 } } });
    const app = appStandIn({ runtime });
    await new AskSession(app).ask(IGRC_QUESTION);
    const [r] = await records(app.audit);
    expect(r!.retrievalConfig.dense.backend).toBe('voy');
    expect(r!.retrievalConfig.bm25).toEqual({ ...DEFAULT_RETRIEVAL_CONFIG.bm25, k1: 1.2 });
  });

  it('answers "no evidence" with the fixed reply and the reason, without calling the model', async () => {
    const chat = chatStandIn();
    const app = appStandIn({ chat });
    const turn = await new AskSession(app).ask('What is a good recipe for banana bread?');
    expect(turn.state.phase).toBe('done');
    expect(turn.state.noEvidence).not.toBeNull();
    expect(turn.state.noEvidence?.why).toMatch(/No passage of the indexed documents is similar enough/);
    expect(chat.double.requests).toHaveLength(0);
    const [r] = await records(app.audit);
    expect(r).toMatchObject({ answer: NO_ANSWER_TEXT, citedSources: [], mode: 'generative', modelId: null });
  });

  it('passes the jurisdiction the question names to retrieval as a filter and records it with the route', async () => {
    const app = appStandIn();
    await new AskSession(app).ask('Which rules apply in France to an operational authorisation for the specific category?');
    expect(app.runtime.filters).toEqual([{ jurisdictions: ['FR'] }]);
    const [r] = await records(app.audit);
    expect(r!.route?.jurisdictions).toEqual(['FR']);
  });

  it('keeps the question out of the audit record when the user chose so', async () => {
    const app = appStandIn({ settings: { keepQuestionsOutOfLog: true } });
    await new AskSession(app).ask(IGRC_QUESTION);
    const [r] = await records(app.audit);
    expect(r!.question).toBeNull();
    expect(r!.answer.length).toBeGreaterThan(0);
  });
});

describe('Ask session: calculator and follow-ups', () => {
  it('computes the SAIL from the message, keeps the table cells, and audits inputs and results', async () => {
    const app = appStandIn();
    const session = new AskSession(app);
    const turn = await session.ask('What is the SAIL for a final GRC of 4 and ARC-c?');
    // the calculator runs on both table paths (which one is the router's call, tested in tests/assess)
    expect(turn.state.route?.path).not.toBe('rules');
    const sail = turn.state.calc!.items.find((i) => i.target === 'sail')!;
    expect(sail.status).toBe('ok');
    expect(sail.value).toMatch(/\bIV\b/); // SORA 2.5 Table 7: final GRC 4 with ARC-c → SAIL IV
    expect(sail.trace.length).toBeGreaterThan(0);
    const [r] = await records(app.audit);
    expect(r!.route?.path).toBe(turn.state.route?.path);
    expect(r!.calculator?.inputs).toMatchObject({ grc: 4, residualArc: 'c' });
    expect(r!.calculator?.readings.length).toBeGreaterThan(0);
    const item = r!.calculator!.items.find((i) => i.target === 'sail')!;
    expect(item.value).toBe(sail.value);
    expect(item.cells).toEqual(sail.trace.map((t) => ({ ...t })));
    expect(item.cells[0]).toMatchObject({ docId: expect.any(String), caption: expect.any(String), cell: expect.any(String) });
  });

  it('carries the previous parameters into a short follow-up and retrieves its own words with the previous topic', async () => {
    const app = appStandIn();
    const session = new AskSession(app);
    const first = await session.ask('What is the SAIL for a final GRC of 4 and ARC-c?');
    const follow = await session.ask('and for ARC-b?');
    expect(first.state.route?.path).not.toBe('rules');
    expect(follow.state.route?.path).toBe(first.state.route?.path); // a follow-up keeps the previous path
    expect(follow.state.route?.reasoning).toMatch(/follow-up/);
    expect(follow.state.retrievalQuery).toBe('for ARC-b? (sail final grc 4)');
    expect(follow.state.calc!.params).toMatchObject({ grc: 4, residualArc: 'b' });
    expect(follow.state.calc!.items.find((i) => i.target === 'sail')!.value).toMatch(/\bIII\b/); // GRC 4 with ARC-b → SAIL III
    const [, r] = await records(app.audit);
    expect(r!.subQueries).toEqual([follow.state.retrievalQuery]);
    expect(r!.calculator?.inputs).toMatchObject({ grc: 4, residualArc: 'b' });
  });

  it('refuses to clear while a turn runs, and clears the conversation and the carried parameters after', async () => {
    const app = appStandIn();
    const session = new AskSession(app);
    const running = session.ask('What is the SAIL for a final GRC of 4 and ARC-c?');
    session.clear();
    expect(session.turns).toHaveLength(1);
    await running;
    session.clear();
    expect(session.turns).toHaveLength(0);
    const after = await session.ask('and for ARC-b?'); // no previous turn: not a follow-up any more
    expect(after.state.calc?.params.grc).toBeUndefined();
  });
});

describe('Ask session: generated answers', () => {
  const ANSWER = `The intrinsic ground risk class is determined with Table 1 from the population density [${IGRC}].`;

  it('streams the answer, checks it against the cited passages and audits model, parameters and grounding', async () => {
    const chat = chatStandIn({
      streams: [[delta('The intrinsic ground risk class is determined '), delta(`with Table 1 from the population density [${IGRC}].`), delta('', 'stop')]],
    });
    const app = appStandIn({ chat });
    const turn = await new AskSession({ ...app, answerConfig: FREE }).ask(IGRC_QUESTION);
    expect(turn.state.phase).toBe('done');
    expect(turn.state.mode).toBe('generative');
    expect(turn.state.stream).toBe(ANSWER);
    expect(turn.state.answer?.citations).toEqual([IGRC]);
    expect(turn.state.grounding?.sentences.length).toBeGreaterThan(0);
    expect(chat.double.requests[0]!.messages.some((m) => m.content.includes(IGRC_QUESTION))).toBe(true);
    const [r] = await records(app.audit);
    expect(r).toMatchObject({ mode: 'generative', answer: ANSWER, citedSources: [IGRC], modelId: turn.state.answer!.modelId });
    expect(r!.grounding).toEqual(turn.state.grounding);
    expect(r!.modelParams).toEqual(turn.state.answer!.params);
    expect(r!.models?.generation).toMatchObject({
      id: LOADED_MODEL,
      weightsUrl: expect.stringContaining(`mlc-ai/${LOADED_MODEL}`),
      libraryUrl: expect.stringMatching(/\.wasm$/),
    });
  });

  it('records a self-hosted model with its URLs under the model base URL; a remote model keeps its upstream URL', async () => {
    const chat = chatStandIn({ streams: [[delta(ANSWER, 'stop')]] });
    const [selfHosted] = parseModelsManifest(FIXTURE_MANIFEST);
    const app = Object.assign(appStandIn({ chat, settings: { modelBaseUrl: 'https://models.example.org/skycite' } }), {
      llmModels: [selfHosted!, ...CURATED_MODELS],
    });
    app.llm.loadedId = selfHosted!.id;
    await new AskSession(app).ask(IGRC_QUESTION);
    app.llm.loadedId = LOADED_MODEL;
    await new AskSession(app).ask(IGRC_QUESTION);
    const [own, remote] = await records(app.audit);
    expect(own!.models?.generation).toMatchObject({
      id: selfHosted!.id,
      source: 'self-hosted',
      weightsUrl: 'https://models.example.org/skycite/Tiny-0.5B-Instruct-q4f32_1-SkyCite/resolve/main/',
      libraryUrl: 'https://models.example.org/skycite/libs/Tiny-q4f32_1-webgpu.wasm',
    });
    expect(remote!.models?.generation).toMatchObject({ id: LOADED_MODEL, source: 'remote', weightsUrl: `https://huggingface.co/mlc-ai/${LOADED_MODEL}` });
  });

  it('numbers the passages for the model, and adds the supporting passage to a sentence the model left uncited, saying so', async () => {
    const chat = chatStandIn({
      streams: [
        [delta('The intrinsic ground risk class is determined with Table 1 [1'), delta(']. The population density selects the row.'), delta('', 'stop')],
      ],
    });
    const app = appStandIn({ chat });
    const turn = await new AskSession({ ...app, answerConfig: FREE }).ask(IGRC_QUESTION);
    const sent = chat.double.requests
      .at(-1)!
      .messages.map((m) => m.content)
      .join('\n');
    expect(sent).toContain('[1] Step #2');
    expect(sent).not.toContain(`[${IGRC}]`);
    // the model's [1] is the chunk id again; the uncited second sentence gets the passage the check found
    expect(turn.state.answer!.answer).toBe(
      `The intrinsic ground risk class is determined with Table 1 [${IGRC}]. The population density selects the row [${IGRC}].`,
    );
    expect(turn.state.answer!.attributed).toEqual([{ id: IGRC, sentence: 'The population density selects the row.', modelAlsoCites: true }]);
    expect(turn.state.grounding!.sentences.find((x) => x.text.startsWith('The population'))!.reason).toMatch(/which it does not cite/);
    const [r] = await records(app.audit);
    expect(r!.attributedSources).toEqual([{ id: IGRC, sentence: 'The population density selects the row.' }]);
    expect(r!.citedSources).toEqual([IGRC]);
  });

  it('gives the model the previous answers as conversation in a follow-up', async () => {
    const chat = chatStandIn({ streams: [[delta(ANSWER, 'stop')]] });
    const app = appStandIn({ chat });
    const session = new AskSession({ ...app, answerConfig: FREE });
    await session.ask(IGRC_QUESTION);
    await session.ask('Why does the population density select the row of Table 1?');
    const second = chat.double.requests[1]!.messages.map((m) => m.content).join('\n');
    // the previous answer, without its markers (they point into the previous context; numbered markers would be misread)
    expect(second).toContain(stripCitations(ANSWER));
    expect(parseCitations(ANSWER).length).toBeGreaterThan(0);
  });

  it('asks the model to route a message the pre-filter cannot decide', async () => {
    const chat = chatStandIn({ streams: [[delta(ANSWER, 'stop')]] }, ['{"path": "rules", "confidence": 0.9, "reasoning": "asks about the text"}']);
    const app = appStandIn({ chat });
    const UNDECIDED = 'population?'; // one word: the pre-filter leaves it to the model
    expect(prefilterRoute(UNDECIDED).decided).toBe(false);
    const turn = await new AskSession(app).ask(UNDECIDED);
    // the router call is constrained to the verdict's schema (the other structured call is model-assisted retrieval)
    const routerCalls = chat.structuredCalls.filter((c) => JSON.stringify(c.schema) === JSON.stringify(ROUTER_VERDICT_SCHEMA));
    expect(routerCalls).toHaveLength(1);
    expect(routerCalls[0]!.params).toMatchObject({ temperature: 0, max_tokens: 120 });
    expect(turn.state.route?.reasoning).toBe('classifier: asks about the text');
    const [r] = await records(app.audit);
    expect(r!.route?.reasoning).toBe('classifier: asks about the text');
  });

  it('the smoke profile (?generation=smoke): one short answer request, no router or assistance call', async () => {
    const opts = answerOptionsFromUrl('?generation=smoke');
    expect(opts).toMatchObject({ answerConfig: SMOKE_ANSWER_CONFIG, assist: false, routerModel: false });
    expect(answerOptionsFromUrl('?assist=off')).toMatchObject({ answerConfig: DEFAULT_ANSWER_CONFIG, assist: false, routerModel: true });
    const chat = chatStandIn({ streams: [[delta('Pilots read the density [1].', 'length')]] });
    const app = Object.assign(appStandIn({ chat }), opts);
    const turn = await new AskSession(app).ask('ground risk population');
    // the one model call is the lead over the first quotation, cut: no schema, 20 tokens, the minimal line
    expect(chat.structuredCalls).toHaveLength(0);
    expect(chat.double.requests).toHaveLength(1);
    expect(chat.double.requests[0]!.max_tokens).toBe(SMOKE_ANSWER_CONFIG.lead.maxTokens);
    expect(chat.double.requests[0]!.messages[0]).toEqual({ role: 'system', content: MINIMAL_LEAD_PROMPT });
    expect(turn.state.mode).toBe('generative');
  });

  it('answers evidence-only when evidence-only mode is on, even with a model loaded', async () => {
    const chat = chatStandIn();
    const app = appStandIn({ chat, settings: { evidenceOnly: true } });
    const turn = await new AskSession(app).ask(IGRC_QUESTION);
    expect(turn.state.mode).toBe('evidence-only');
    expect(chat.double.requests).toHaveLength(0);
    expect(chat.structuredCalls).toHaveLength(0);
  });
});

describe('Ask session: stop', () => {
  it('stops a generation: the partial answer is kept, marked stopped and audited', async () => {
    const chat = chatStandIn({ streams: [[delta('The intrinsic ground risk class is ')]], hangAfterChunks: true });
    const app = appStandIn({ chat });
    const session = new AskSession({ ...app, answerConfig: FREE });
    const pending = session.ask(IGRC_QUESTION);
    await until(() => session.turns[0]?.state.stream !== '' && session.turns[0]?.state.stream !== undefined);
    expect(session.busy).toBe(true);
    session.stop();
    const turn = await pending;
    expect(turn.state.phase).toBe('stopped');
    expect(turn.state.answer?.stopped).toBe(true);
    expect(chat.double.interrupts).toBe(1);
    expect(session.busy).toBe(false);
    const [r] = await records(app.audit);
    expect(r!.answer).toBe('The intrinsic ground risk class is');
  });

  it('stops during retrieval: no answer is composed and nothing is audited', async () => {
    const runtime = createFakeRuntime();
    let release!: () => void;
    const gate = new Promise<void>((r) => (release = r));
    const retrieve = runtime.retrieve.bind(runtime);
    runtime.retrieve = async (q, o) => {
      await gate;
      return retrieve(q, o);
    };
    const app = appStandIn({ runtime });
    const session = new AskSession(app);
    const pending = session.ask(IGRC_QUESTION);
    await until(() => session.turns[0]?.state.phase === 'retrieving');
    session.stop();
    release();
    const turn: Turn = await pending;
    expect(turn.state.phase).toBe('stopped');
    expect(turn.state.ask).toBeNull();
    expect(turn.state.evidence).toBeNull();
    expect(await app.audit.count()).toBe(0);
  });
});

describe('Ask session: failures', () => {
  it('shows a retrieval failure with what to do, and audits nothing', async () => {
    const app = appStandIn();
    app.runtime.failNext.retrieve = new Error('The retrieval worker failed: out of memory. Reload the app.');
    const turn = await new AskSession(app).ask(IGRC_QUESTION);
    expect(turn.state.phase).toBe('error');
    expect(turn.state.error).toEqual({
      summary: 'The retrieval worker failed: out of memory. Reload the app.',
      action: 'Try again; if it persists, reload the app.',
    });
    expect(await app.audit.count()).toBe(0);
  });

  it('maps a model failure to a typed error with its remedy', async () => {
    const chat = chatStandIn({ createErrors: [new Error('GPUOutOfMemoryError: out of memory')] });
    const app = appStandIn({ chat });
    const turn = await new AskSession({ ...app, answerConfig: FREE }).ask(IGRC_QUESTION);
    expect(turn.state.phase).toBe('error');
    expect(turn.state.error?.summary).toBe('The GPU ran out of memory or the WebGPU device was lost.');
    expect(turn.state.error?.action).toMatch(/Choose a smaller model/);
  });

  it('keeps the answer when the source check fails, and says why', async () => {
    const chat = chatStandIn({ streams: [[delta(ANSWER_TEXT, 'stop')]] });
    const app = appStandIn({ chat });
    app.runtime.failNext.checkGrounding = new Error('embedding failed');
    const turn = await new AskSession({ ...app, answerConfig: FREE }).ask(IGRC_QUESTION);
    expect(turn.state.phase).toBe('done');
    expect(turn.state.answer?.answer).toBe(ANSWER_TEXT);
    expect(turn.state.grounding).toBeNull();
    expect(turn.state.groundingError).toBe('embedding failed');
    expect(turn.state.audited).toBe(true);
  });

  it('keeps the answer when the audit log cannot be written, and says why', async () => {
    const app = appStandIn();
    const failing = { ...app.audit, add: async () => Promise.reject(new Error('The audit log is full: export and clear it.')) };
    const turn = await new AskSession({ ...app, audit: failing, chatEngine: () => null }).ask(IGRC_QUESTION);
    expect(turn.state.phase).toBe('done');
    expect(turn.state.evidence).not.toBeNull();
    expect(turn.state.audited).toBe(false);
    expect(turn.state.auditError).toBe('The audit log is full: export and clear it.');
  });
});

const ANSWER_TEXT = `The intrinsic ground risk class is determined with Table 1 [${IGRC}].`;

describe('Ask session: questions sent before the index is ready, length limit, language', () => {
  it('shows a question sent while the index loads as queued and runs it when the index is ready', async () => {
    const app = appStandIn();
    const session = new AskSession(app);
    let ready!: () => void;
    const indexReady = new Promise<void>((r) => (ready = r));
    const done = session.ask(IGRC_QUESTION, { until: indexReady });
    await until(() => session.turns.length === 1);
    expect(session.turns[0]!.state.phase).toBe('queued');
    expect(session.busy).toBe(true);
    await new Promise((r) => setTimeout(r, 20));
    expect(app.runtime.queries).toEqual([]); // nothing is sent before the index is ready
    ready();
    const turn = await done;
    expect(turn.state.phase).toBe('done');
    expect(app.runtime.queries).toEqual([IGRC_QUESTION]);
  });

  it('fails a queued question with the reason when the index cannot be loaded, and lets Stop cancel it', async () => {
    const app = appStandIn();
    const session = new AskSession(app);
    const failed = await session.ask(IGRC_QUESTION, {
      until: Promise.reject(new Error('The regulation index could not be loaded (offline). Reload, then ask again.')),
    });
    expect(failed.state.phase).toBe('error');
    expect(failed.state.error?.summary).toMatch(/could not be loaded/);
    const pending = session.ask(IGRC_QUESTION, { until: new Promise<void>(() => undefined) });
    await until(() => session.turns.length === 2);
    session.stop();
    expect((await pending).state.phase).toBe('stopped');
    expect(app.runtime.queries).toEqual([]);
  });

  it('refuses a question over the length limit with a message that says what to do', async () => {
    const session = new AskSession(appStandIn());
    await expect(session.ask('x '.repeat(10_000))).rejects.toThrow(/limited to 1,500 characters; this one has 19,999/);
    expect(session.turns).toHaveLength(0);
  });

  it('marks a question in another language (the documents are English)', async () => {
    const session = new AskSession(appStandIn());
    const de = await session.ask('Welche Anforderungen gelten für den Betrieb über einer Menschenansammlung?');
    expect(de.language).toMatchObject({ code: 'de', name: 'German' });
    const en = await session.ask(IGRC_QUESTION);
    expect(en.language).toBeNull();
  });
});
