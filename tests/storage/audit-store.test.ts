import 'fake-indexeddb/auto';
import { afterEach, describe, expect, it, vi } from 'vitest';
import type { GenerationParams } from '../../src/core/llm/engine.js';
import type { GroundingReport } from '../../src/core/answer/grounding.js';
import { DEFAULT_RETRIEVAL_CONFIG } from '../../src/core/retrieval/config.js';
import {
  AUDIT_EXPORT_FORMAT,
  AUDIT_EXPORT_SCHEMA_VERSION,
  createAuditStore,
  parseAuditExport,
  type AuditRecordInput,
  type AuditStore,
} from '../../src/storage/audit-store.js';
import { openUserDb, type UserDb } from '../../src/storage/db.js';
import { StorageQuotaError, StorageUnavailableError } from '../../src/storage/errors.js';
import { createSettingsStore } from '../../src/storage/settings-store.js';

const PARAMS: GenerationParams = {
  temperature: 0.2,
  top_p: 0.9,
  max_tokens: 1024,
  presence_penalty: 0,
  frequency_penalty: 0,
  enable_thinking: null,
};

const GROUNDING: GroundingReport = {
  verdict: 'Grounded',
  verdictReason: 'every claim is supported by a cited chunk',
  sentences: [],
  totals: { sentences: 1, claims: 1, supported: 1, unsupported: 0, uncited: 0, questions: 0, gaps: 0 },
  thresholds: { similarity: 0.5, overlap: 0.3, windowSentences: 2, requireNumbers: true },
  embedderId: 'fake/bag-of-words',
};

let n = 0;
const freshName = () => `skycite-audit-test-${++n}-${Math.random().toString(36).slice(2)}`;

function input(over: Partial<AuditRecordInput> = {}): AuditRecordInput {
  return {
    question: 'What is the SAIL for an operation over a sparsely populated area?',
    subQueries: ['SAIL sparsely populated', 'ground risk class'],
    retrievalConfig: DEFAULT_RETRIEVAL_CONFIG,
    trace: [{ stage: 'dense', ms: 3, candidates: [{ id: 'c1', score: 0.8 }] }],
    evidence: [
      { id: 'c1', score: 0.81 },
      { id: 'c2', score: 0.62 },
    ],
    context: '[c1] Text of chunk one.\n[c2] Text of chunk two.',
    modelId: 'Qwen2.5-1.5B-Instruct-q4f16_1-MLC',
    modelParams: PARAMS,
    answer: 'The SAIL is determined from the final GRC and the residual ARC [c1].',
    citedSources: ['c1'],
    grounding: GROUNDING,
    reasoning: null,
    mode: 'generative',
    indexManifestSha: 'e5f75e71',
    ...over,
  };
}

/** A clock that advances one second per call, so records have distinct, ordered times. */
function clock(start = Date.parse('2026-01-01T00:00:00Z')) {
  let t = start;
  return () => new Date((t += 1000));
}

const stores: AuditStore[] = [];
function store(opts: Parameters<typeof createAuditStore>[0] = {}): AuditStore {
  const s = createAuditStore({ dbName: freshName(), now: clock(), ...opts });
  stores.push(s);
  return s;
}

afterEach(() => {
  for (const s of stores.splice(0)) s.close();
  vi.unstubAllGlobals();
});

describe('audit store: CRUD', () => {
  it('adds, gets, counts, deletes and clears', async () => {
    const s = store();
    const a = await s.add(input());
    expect(a.id).toMatch(/.+/);
    expect(a.time).toBe('2026-01-01T00:00:01.000Z');
    expect(await s.get(a.id)).toEqual(a);
    const b = await s.add(input({ answer: 'second' }));
    expect(await s.count()).toBe(2);
    expect(await s.delete(a.id)).toBe(true);
    expect(await s.delete(a.id)).toBe(false);
    expect(await s.get(a.id)).toBeUndefined();
    expect((await s.get(b.id))?.answer).toBe('second');
    await s.clear();
    expect(await s.count()).toBe(0);
    expect((await s.list()).records).toEqual([]);
  });

  it('keeps every field of the record, incl. evidence-only records without a model', async () => {
    const s = store();
    const rec = await s.add(input({ mode: 'evidence-only', modelId: null, modelParams: null, grounding: null, reasoning: null }));
    const got = await s.get(rec.id);
    expect(got).toEqual(rec);
    expect(got?.retrievalConfig).toEqual(DEFAULT_RETRIEVAL_CONFIG);
    expect((await s.get((await s.add(input())).id))?.grounding).toEqual(GROUNDING);
    expect(got?.evidence).toEqual([
      { id: 'c1', score: 0.81 },
      { id: 'c2', score: 0.62 },
    ]);
  });

  it('refuses a duplicate id without touching the stored record', async () => {
    const s = store();
    const a = await s.add(input({ id: 'fixed' }));
    await expect(s.add(input({ id: 'fixed', answer: 'other' }))).rejects.toThrow();
    expect(await s.get('fixed')).toEqual(a);
  });
});

describe('audit store: list and search', () => {
  it('lists newest first, paged', async () => {
    const s = store();
    for (let i = 0; i < 7; i++) await s.add(input({ answer: `answer ${i}` }));
    const p1 = await s.list({ offset: 0, limit: 3 });
    expect(p1.records.map((r) => r.answer)).toEqual(['answer 6', 'answer 5', 'answer 4']);
    expect(p1).toMatchObject({ total: 7, offset: 0, limit: 3, hasMore: true });
    const p3 = await s.list({ offset: 6, limit: 3 });
    expect(p3.records.map((r) => r.answer)).toEqual(['answer 0']);
    expect(p3.hasMore).toBe(false);
    expect((await s.list({ offset: 20 })).records).toEqual([]);
  });

  it('orders records with the same time by id', async () => {
    const s = store({ now: () => new Date('2026-02-02T10:00:00Z') });
    await s.add(input({ id: 'a' }));
    await s.add(input({ id: 'b' }));
    expect((await s.list()).records.map((r) => r.id)).toEqual(['b', 'a']);
  });

  it('searches question and answer, case-insensitively, paged', async () => {
    const s = store();
    await s.add(input({ question: 'Drone over CROWDS?', answer: 'Not in open category.' }));
    await s.add(input({ question: 'Night flight?', answer: 'Requires a green light; see crowds rule.' }));
    await s.add(input({ question: 'Payload drop?', answer: 'Depends.' }));
    const hits = await s.search('crowds');
    expect(hits.total).toBe(2);
    expect(hits.records.map((r) => r.question)).toEqual(['Night flight?', 'Drone over CROWDS?']);
    const page = await s.search('CROWDS', { offset: 1, limit: 1 });
    expect(page.records.map((r) => r.question)).toEqual(['Drone over CROWDS?']);
    expect(page.hasMore).toBe(false);
    expect((await s.search('nothing like this')).total).toBe(0);
    expect((await s.search('  ')).total).toBe(3);
  });
});

describe('audit store: keepQuestionsOutOfLog', () => {
  it('stores null instead of the question, and no sub-queries, when asked per call', async () => {
    const s = store();
    const rec = await s.add(input(), { keepQuestionOutOfLog: true });
    expect(rec.question).toBeNull();
    expect(rec.subQueries).toEqual([]);
    expect((await s.get(rec.id))?.question).toBeNull();
    expect(rec.answer).toMatch(/SAIL/);
  });

  it('follows the provider option', async () => {
    let keep = true;
    const s = store({ keepQuestionsOutOfLog: () => keep });
    expect((await s.add(input())).question).toBeNull();
    keep = false;
    expect((await s.add(input())).question).toMatch(/SAIL/);
  });

  it('by default follows the setting in the settings store of the same database', async () => {
    const dbName = freshName();
    const settings = createSettingsStore({ dbName });
    const s = createAuditStore({ dbName, now: clock() });
    stores.push(s);
    expect((await s.add(input())).question).toMatch(/SAIL/);
    await settings.update({ keepQuestionsOutOfLog: true });
    const rec = await s.add(input());
    expect(rec.question).toBeNull();
    settings.close();
  });

  it('keeps the question out when the setting cannot be read (privacy first)', async () => {
    const s = store({
      keepQuestionsOutOfLog: () => {
        throw new Error('settings broken');
      },
    });
    expect((await s.add(input())).question).toBeNull();
  });

  it('search skips withheld questions but still finds the answer', async () => {
    const s = store();
    await s.add(input({ question: 'secret wording', answer: 'public answer' }), { keepQuestionOutOfLog: true });
    expect((await s.search('secret')).total).toBe(0);
    expect((await s.search('PUBLIC')).total).toBe(1);
  });
});

describe('audit store: export', () => {
  it('exports all records with the schema version and round-trips through import', async () => {
    const s = store();
    const a = await s.add(input({ answer: 'first' }));
    const b = await s.add(input({ answer: 'second' }), { keepQuestionOutOfLog: true });
    const text = await s.exportJson();
    const data = parseAuditExport(text);
    expect(data.format).toBe(AUDIT_EXPORT_FORMAT);
    expect(data.schemaVersion).toBe(AUDIT_EXPORT_SCHEMA_VERSION);
    expect(data.recordCount).toBe(2);
    expect(data.records).toEqual([b, a]);

    const blob = await s.exportBlob();
    expect(blob.type).toBe('application/json');
    expect(parseAuditExport(await blob.text()).records).toEqual(data.records);

    const other = store();
    expect(await other.importJson(text)).toEqual({ added: 2, skipped: 0 });
    expect(await other.importJson(text)).toEqual({ added: 0, skipped: 2 });
    expect((await other.list()).records).toEqual([b, a]);
  });

  it('rejects exports that are not ours or are malformed', () => {
    expect(() => parseAuditExport('not json')).toThrow(/not JSON/);
    expect(() => parseAuditExport('{"format":"x"}')).toThrow(/not a SkyCite audit log/);
    expect(() => parseAuditExport(JSON.stringify({ format: AUDIT_EXPORT_FORMAT, schemaVersion: 99, records: [] }))).toThrow(/schema version 99/);
    const bad = { format: AUDIT_EXPORT_FORMAT, schemaVersion: 1, records: [{ id: 'x', mode: 'chatty' }] };
    expect(() => parseAuditExport(JSON.stringify(bad))).toThrow(/Record 1 .*malformed/);
  });
});

/**
 * Wrap a real database so writes to the audit store fail like a full disk does. In a
 * browser the request rejects with AbortError and the transaction with QuotaExceededError;
 * `style: 'request'` makes the request itself reject with QuotaExceededError.
 */
function quotaFailing(db: UserDb, state: { fail: boolean; style: 'request' | 'transaction' }): UserDb {
  const quota = () => new DOMException('The quota has been exceeded.', 'QuotaExceededError');
  return new Proxy(db, {
    get(target, prop) {
      if (prop === 'transaction') {
        return (names: never, mode?: IDBTransactionMode) => {
          const tx = target.transaction(names, mode);
          if (!state.fail || mode !== 'readwrite') return tx;
          const store = new Proxy(tx.store, {
            get(s, p) {
              if (p === 'add' || p === 'put') {
                return () => {
                  if (state.style === 'request') return Promise.reject(quota());
                  tx.abort();
                  return Promise.reject(new DOMException('aborted', 'AbortError'));
                };
              }
              const v = Reflect.get(s, p, s);
              return typeof v === 'function' ? v.bind(s) : v;
            },
          });
          const done =
            state.style === 'transaction'
              ? tx.done.then(
                  () => undefined,
                  () => Promise.reject(quota()),
                )
              : tx.done;
          return new Proxy(tx, {
            get(t, p) {
              if (p === 'store') return store;
              if (p === 'done') return done;
              const v = Reflect.get(t, p, t);
              return typeof v === 'function' ? v.bind(t) : v;
            },
          });
        };
      }
      if (prop === 'put' || prop === 'add') {
        return (...args: unknown[]) => (state.fail ? Promise.reject(quota()) : (Reflect.get(target, prop, target) as (...a: unknown[]) => unknown)(...args));
      }
      const v = Reflect.get(target, prop, target);
      return typeof v === 'function' ? v.bind(target) : v;
    },
  });
}

describe('audit store: errors', () => {
  for (const style of ['request', 'transaction'] as const) {
    it(`maps QuotaExceededError (${style}) to StorageQuotaError and loses nothing stored`, async () => {
      const name = freshName();
      const state = { fail: false, style };
      const s = store({ open: async () => quotaFailing(await openUserDb(name), state) });
      const kept = await s.add(input({ answer: 'kept' }));
      state.fail = true;
      const err = await s.add(input({ answer: 'lost' })).catch((e: unknown) => e);
      expect(err).toBeInstanceOf(StorageQuotaError);
      expect((err as Error).message).toMatch(/Export the audit log/);
      expect((err as Error).message).toMatch(/Nothing already stored was lost/);
      state.fail = false;
      expect((await s.list()).records).toEqual([kept]);
    });
  }

  it('reports IndexedDB missing (private mode) with an actionable message', async () => {
    vi.stubGlobal('indexedDB', undefined);
    const s = store();
    const err = await s.list().catch((e: unknown) => e);
    expect(err).toBeInstanceOf(StorageUnavailableError);
    expect((err as Error).message).toMatch(/private or incognito/);
    await expect(s.add(input())).rejects.toBeInstanceOf(StorageUnavailableError);
  });

  it('reports IndexedDB refusing to open (SecurityError) as unavailable', async () => {
    vi.stubGlobal('indexedDB', {
      open() {
        throw new DOMException('The operation is insecure.', 'SecurityError');
      },
    });
    const s = store();
    await expect(s.count()).rejects.toBeInstanceOf(StorageUnavailableError);
  });
});

describe('requirements drafts in the audit log', () => {
  const draft = {
    query: 'loss of the command and control link',
    mode: 'evidence-only' as const,
    createdAt: '2026-11-23T10:00:00.000Z',
    documents: [{ id: 'doc-a', title: 'Document A', edition: 'Ed. 1', reason: 'best summary match', kept: true }],
    requirements: [
      {
        id: 'R1',
        statement: 'The operator shall monitor the link.',
        modal: 'shall' as const,
        group: 'Document A',
        rationale: 'passage 1 of Document A, "shall"',
        source: { chunkId: 'doc-a/c1', document: 'Document A', edition: 'Ed. 1', section: 'S.1', pages: 'page 3' },
        verbatim: true as const,
        sourceVerbatim: true,
      },
    ],
    noEvidence: false,
  };

  it('stores a draft with its candidates and sources, and empties its description with the question when so chosen', async () => {
    const { buildRequirementsAuditRecord } = await import('../../src/ui/requirements/audit.js');
    const store = createAuditStore({ dbName: freshName() });
    const rec = buildRequirementsAuditRecord({ draft, indexManifestSha: 'abc' });
    const kept = await store.add(rec, { keepQuestionOutOfLog: false });
    expect(kept.kind).toBe('requirements');
    expect(kept.question).toBe('loss of the command and control link');
    expect(kept.citedSources).toEqual(['doc-a/c1']);
    expect(kept.answer).toContain('The operator shall monitor the link.');
    expect(kept.requirements?.draft.requirements).toHaveLength(1);
    const hidden = await store.add(rec, { keepQuestionOutOfLog: true });
    expect(hidden.question).toBeNull();
    expect(JSON.stringify(hidden)).not.toContain('loss of the command and control link');
    expect(hidden.requirements?.draft.query).toBe('');
    expect(hidden.requirements?.draft.requirements[0]?.statement).toBe('The operator shall monitor the link.');
    // with the model's draft: a generative record whose answer is the model's list, the description kept out alike
    const modelDraft = {
      description: 'loss of the command and control link',
      raw: '- The operator shall monitor the link [doc-a/c1].',
      aborted: false,
      passageIds: ['doc-a/c1'],
      requirements: [
        { id: 'M1', statement: 'The operator shall monitor the link.', citations: ['doc-a/c1'], attributed: [], supported: true, reason: 'supported' },
      ],
    };
    const withModel = buildRequirementsAuditRecord({
      draft,
      indexManifestSha: 'abc',
      modelDraft: { draft: modelDraft, modelId: 'Qwen2.5-Coder-0.5B-Instruct-q4f32_1-MLC' },
    });
    const gen = await store.add(withModel, { keepQuestionOutOfLog: false });
    expect([gen.mode, gen.modelId, gen.citedSources]).toEqual(['generative', 'Qwen2.5-Coder-0.5B-Instruct-q4f32_1-MLC', ['doc-a/c1']]);
    expect(gen.answer).toContain('M1: The operator shall monitor the link. [doc-a/c1] — supported by its passages');
    // a statement the model cited nothing for: the passage the source check added is among the record's sources
    const attributedOnly = { ...modelDraft, requirements: [{ ...modelDraft.requirements[0]!, citations: [], attributed: ['doc-a/c2'] }] };
    expect(buildRequirementsAuditRecord({ draft, indexManifestSha: 'abc', modelDraft: { draft: attributedOnly, modelId: 'm' } }).citedSources).toEqual([
      'doc-a/c2',
    ]);
    const genHidden = await store.add(withModel, { keepQuestionOutOfLog: true });
    expect(JSON.stringify(genHidden)).not.toContain('loss of the command and control link');
    // an export with a draft imports again
    const parsed = parseAuditExport(await store.exportJson());
    expect(parsed.records.map((r) => r.kind).sort()).toEqual(['requirements', 'requirements', 'requirements', 'requirements']);
  });
});
