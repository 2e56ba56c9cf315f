/**
 * The user's own documents in the runtime: added (chunked, embedded with progress,
 * stored, indexed in BM25 and the dense stage), found with their citations and by
 * their country, kept across restarts in IndexedDB (fake-indexeddb), embedded again
 * when stored with another model, re-indexed, exported, removed; and the failure paths:
 * a full disk, a damaged record, an embedding failure.
 */
import 'fake-indexeddb/auto';
import { describe, expect, it } from 'vitest';
import type { Embedder } from '../../src/core/embedding/embedder.js';
import { createInProcessRuntime, NO_ADAPTER } from '../../src/runtime/in-process.js';
import type { UserDocumentInput, UserDocumentProgress } from '../../src/runtime/user-documents.js';
import { createUserDocsStore, openUserDocsDb, USER_DOCS_STORE, type UserDocsDb } from '../../src/storage/user-docs-store.js';
import { fakeEmbedder } from '../support/fake-embedder.js';
import { duplicateOf, parseUserDocumentExport } from '../../src/core/userdocs/export-file.js';
import { servedIndex } from '../support/served-index.js';

const HOSPITALS: UserDocumentInput = {
  title: 'Guidance on drone flights near hospitals',
  jurisdiction: 'de',
  edition: '2024-03',
  fileName: 'hospitals.pdf',
  format: 'pdf',
  pages: [
    'Scope\n\nThis guidance applies to drone operators in Germany.',
    'Helipads\n\nOperators shall obtain the written consent of the hospital before flying within 300 metres of its helipad.',
  ],
};
const BEEKEEPING: UserDocumentInput = {
  title: 'Operations manual: beekeeping surveys',
  jurisdiction: 'FR',
  edition: 'Edition 2',
  fileName: 'manual.md',
  format: 'markdown',
  pages: '# Beehive surveys\n\nThe **remote pilot** keeps a distance of 15 metres from every beehive during pollination surveys.',
};
const HELIPAD_Q = 'consent of the hospital before flying near its helipad';

let dbs = 0;
const freshDb = () => `skycite-userdocs-test-${++dbs}-${Math.random().toString(36).slice(2)}`;

async function runtime(dbName: string, opts: { embedder?: () => Embedder; open?: () => Promise<UserDocsDb> } = {}) {
  const rt = createInProcessRuntime({
    baseUrl: 'http://localhost/',
    probeAdapter: async () => NO_ADAPTER,
    createEmbedder: async () => (opts.embedder ?? (() => fakeEmbedder()))(),
    fetchImpl: await servedIndex(),
    userDocStore: createUserDocsStore({ open: opts.open ?? (() => openUserDocsDb(dbName)) }),
  });
  await rt.init({ denseBackend: 'exact', rerank: false });
  return rt;
}

/** A document added by a runtime that is then closed, and the database it is stored in. */
async function storedBy(doc: UserDocumentInput) {
  const db = freshDb();
  const first = await runtime(db);
  const info = await first.addUserDocument(doc);
  first.dispose();
  return { db, info };
}

const topIds = async (rt: Awaited<ReturnType<typeof runtime>>, q: string, jurisdictions?: string[]) =>
  (await rt.retrieve(q, jurisdictions ? { filters: { jurisdictions } } : {})).chunks.map((c) => c.id);

describe("the user's documents in the runtime", () => {
  it('adds a document: embedded with progress, then retrieved with its document, section and page like a built-in passage', async () => {
    const rt = await runtime(freshDb());
    await rt.loadUserDocuments();
    const progress: UserDocumentProgress[] = [];
    const info = await rt.addUserDocument(HOSPITALS, (p) => progress.push(p));
    expect(info).toMatchObject({
      id: 'user/guidance-on-drone-flights-near-hospitals',
      jurisdiction: 'DE',
      edition: '2024-03',
      pageStart: 1,
      pageEnd: 2,
      stored: true,
    });
    const embedding = progress.filter((p) => p.stage === 'embedding');
    expect(embedding.at(-1)!.done).toBe(embedding.at(-1)!.total);
    expect(embedding.length).toBeGreaterThan(1);
    expect(progress.map((p) => p.stage)).toContain('saving');

    const r = await rt.retrieve(HELIPAD_Q);
    const top = r.chunks[0]!;
    expect(top).toMatchObject({ docId: info.id, documentId: info.id, pageEnd: 2, jurisdiction: 'DE' });
    expect(top.text).toMatch(/written consent of the hospital/);
    expect(r.retrieval.context).toContain(`[${top.id}]`);
    // its own document agent, and its citation in the Library outline and the keyword search
    expect(r.documents!.consulted.map((d) => d.id)).toContain(info.id);
    expect((await rt.outline()).find((d) => d.docId === info.id)).toMatchObject({ title: HOSPITALS.title, edition: '2024-03', verbatim: true });
    expect((await rt.keywordSearch('helipad')).map((h) => h.docId)).toContain(info.id);
    expect(await rt.getChunk(top.id)).toEqual(top);
  });

  it('filters by country: a German question searches the German document, a French one does not see it', async () => {
    const rt = await runtime(freshDb());
    await rt.addUserDocument(HOSPITALS);
    await rt.addUserDocument(BEEKEEPING);
    expect((await topIds(rt, HELIPAD_Q, ['DE']))[0]).toMatch(/^user\/guidance-on-drone-flights-near-hospitals\//);
    const fr = await rt.retrieve(HELIPAD_Q, { filters: { jurisdictions: ['FR'] } });
    expect(fr.chunks.every((c) => c.jurisdiction === 'FR' || (fr.retrieval.broadened && c.jurisdiction === 'EU'))).toBe(true);
    expect(fr.chunks.some((c) => c.docId.startsWith('user/guidance'))).toBe(false);
    // Markdown markup is not indexed as text
    const bee = (await rt.retrieve('distance from every beehive during pollination surveys', { filters: { jurisdictions: ['FR'] } })).chunks[0]!;
    expect(bee.docId).toBe('user/operations-manual-beekeeping-surveys');
    expect(bee.text).not.toMatch(/\*\*|#/);
  });

  it('removes a document from BM25 (discard + vacuum), the dense stage and the device', async () => {
    const db = freshDb();
    const rt = await runtime(db);
    const info = await rt.addUserDocument(HOSPITALS);
    await rt.removeUserDocument(info.id);
    expect((await topIds(rt, HELIPAD_Q)).some((id) => id.startsWith(info.id))).toBe(false);
    expect(await rt.keywordSearch('helipad')).toEqual([]);
    expect(await rt.listUserDocuments()).toEqual([]);
    expect((await createUserDocsStore({ open: () => openUserDocsDb(db) }).list()).records).toEqual([]);
    // the same title can be added again (its passages' ids were discarded from BM25)
    expect((await rt.addUserDocument(HOSPITALS)).id).toBe(info.id);
  });

  it('survives a restart: the stored chunks and vectors are loaded from IndexedDB without embedding again', async () => {
    const { db, info } = await storedBy(HOSPITALS);
    let embedded = 0;
    const counting = () => {
      const e = fakeEmbedder();
      return { ...e, embed: (t: string[]) => ((embedded += t.length), e.embed(t)) };
    };
    const second = await runtime(db, { embedder: counting });
    const progress: UserDocumentProgress[] = [];
    const before = embedded;
    const loaded = await second.loadUserDocuments((p) => progress.push(p));
    expect(loaded).toEqual({ documents: [{ ...info }], problems: [] });
    expect(embedded).toBe(before);
    expect(progress).toEqual([]);
    expect((await topIds(second, HELIPAD_Q))[0]!.startsWith(info.id)).toBe(true);
  });

  it('embeds a stored document again, with progress, when it was stored with another embedding model', async () => {
    const { db, info } = await storedBy(HOSPITALS);
    const raw = await openUserDocsDb(db);
    const rec = (await raw.get(USER_DOCS_STORE, info.id))!;
    await raw.put(USER_DOCS_STORE, { ...rec, vectors: { ...rec.vectors, modelId: 'older/model' } });
    raw.close();
    const second = await runtime(db);
    const progress: UserDocumentProgress[] = [];
    expect((await second.loadUserDocuments((p) => progress.push(p))).problems).toEqual([]);
    expect(progress.some((p) => p.stage === 'embedding' && p.done === p.total && p.title === HOSPITALS.title)).toBe(true);
    expect((await topIds(second, HELIPAD_Q))[0]!.startsWith(info.id)).toBe(true);
    const again = await openUserDocsDb(db);
    expect((await again.get(USER_DOCS_STORE, info.id))!.vectors.modelId).toBe('fake/bag-of-words');
    again.close();
  });

  it('re-indexes a document from its stored text and exports its passages and metadata as JSON (no vectors)', async () => {
    const rt = await runtime(freshDb());
    const info = await rt.addUserDocument(HOSPITALS);
    const progress: UserDocumentProgress[] = [];
    const re = await rt.reindexUserDocument(info.id, (p) => progress.push(p));
    expect(re).toMatchObject({ id: info.id, chunkCount: info.chunkCount });
    expect(progress.some((p) => p.stage === 'embedding')).toBe(true);
    expect((await topIds(rt, HELIPAD_Q))[0]!.startsWith(info.id)).toBe(true);
    const exported = await rt.exportUserDocument(info.id);
    expect(exported).toMatchObject({
      format: 'skycite-user-document',
      version: 2,
      source: { fileName: 'hospitals.pdf', format: 'pdf', pages: HOSPITALS.pages },
      document: { id: info.id, title: HOSPITALS.title, jurisdiction: 'DE', edition: '2024-03', embeddingModel: 'fake/bag-of-words' },
    });
    expect(exported.chunks.map((c) => c.id)).toEqual(exported.summary.chunkIds);
    const json = JSON.stringify(exported);
    expect(json).toContain('written consent of the hospital');
    expect(json).not.toMatch(/"vectors"/);
  });

  it('imports an exported document on another device: same passages, cited and found by its country', async () => {
    const from = await runtime(freshDb());
    const info = await from.addUserDocument(HOSPITALS);
    const file = JSON.stringify(await from.exportUserDocument(info.id));
    from.dispose();
    const parsed = parseUserDocumentExport('hospitals.skycite.json', file);
    if (!parsed.ok) throw new Error(parsed.message);
    const to = await runtime(freshDb());
    expect(duplicateOf(parsed.value, await to.listUserDocuments())).toBeUndefined();
    const imported = await to.addUserDocument(parsed.value);
    expect(imported).toMatchObject({
      id: info.id,
      title: HOSPITALS.title,
      jurisdiction: 'DE',
      edition: '2024-03',
      chunkCount: info.chunkCount,
      pageStart: info.pageStart,
      pageEnd: info.pageEnd,
    });
    expect((await topIds(to, HELIPAD_Q))[0]!.startsWith(info.id)).toBe(true);
    // a second import of the same file is recognised as a duplicate
    expect(duplicateOf(parsed.value, await to.listUserDocuments())?.id).toBe(info.id);
  });

  it('reports a full disk with what to delete, adds nothing and loses nothing already stored', async () => {
    const db = freshDb();
    const state = { full: false };
    const open = async () => {
      const real = await openUserDocsDb(db);
      return new Proxy(real, {
        get(target, prop) {
          if (prop === 'transaction') {
            return (names: never, mode?: IDBTransactionMode) => {
              if (!state.full || mode !== 'readwrite') return target.transaction(names, mode);
              const quota = Promise.reject(new DOMException('The quota has been exceeded.', 'QuotaExceededError'));
              quota.catch(() => undefined);
              return { store: { put: () => quota }, done: quota };
            };
          }
          const v = Reflect.get(target, prop, target);
          return typeof v === 'function' ? v.bind(target) : v;
        },
      }) as UserDocsDb;
    };
    const rt = await runtime(db, { open });
    const kept = await rt.addUserDocument(BEEKEEPING);
    state.full = true;
    const err = (await rt.addUserDocument(HOSPITALS).catch((e: unknown) => e)) as Error;
    expect(err.name).toBe('UserDocumentQuotaError');
    expect(err.message).toMatch(/storage for SkyCite is full/);
    expect(err.message).toMatch(/Nothing already stored was lost/);
    expect(err.message).toMatch(/remove one of your documents/);
    state.full = false;
    expect((await rt.listUserDocuments()).map((d) => d.id)).toEqual([kept.id]);
    expect((await topIds(rt, HELIPAD_Q)).some((id) => id.startsWith('user/guidance'))).toBe(false);
    expect((await createUserDocsStore({ open: () => openUserDocsDb(db) }).list()).records.map((r) => r.id)).toEqual([kept.id]);
  });

  it('leaves nothing half-indexed when embedding fails midway', async () => {
    let calls = 0;
    const flaky = () => {
      const e = fakeEmbedder();
      return { ...e, embed: (t: string[]) => (++calls > 3 && t.length > 1 ? Promise.reject(new Error('embedding backend crashed (injected)')) : e.embed(t)) };
    };
    const db = freshDb();
    const rt = await runtime(db, { embedder: flaky });
    await expect(rt.addUserDocument(HOSPITALS)).rejects.toThrow(/crashed/);
    expect(await rt.listUserDocuments()).toEqual([]);
    expect(await rt.keywordSearch('helipad')).toEqual([]);
    expect((await createUserDocsStore({ open: () => openUserDocsDb(db) }).list()).records).toEqual([]);
  });

  it('loads the other documents when a stored record is damaged, says which one, and can remove it', async () => {
    const { db, info: good } = await storedBy(BEEKEEPING);
    const raw = await openUserDocsDb(db);
    await raw.put(USER_DOCS_STORE, { schemaVersion: 1, id: 'user/broken', meta: { title: 'Broken' }, chunks: [{ id: 'x' }] } as never);
    raw.close();
    const second = await runtime(db);
    const loaded = await second.loadUserDocuments();
    expect(loaded.documents.map((d) => d.id)).toEqual([good.id]);
    expect(loaded.problems).toHaveLength(1);
    expect(loaded.problems[0]).toMatch(/“user\/broken” is damaged .* Remove it and add the file again/);
    await second.removeUserDocument('user/broken');
    expect((await createUserDocsStore({ open: () => openUserDocsDb(db) }).list()).problems).toEqual([]);
  });

  it('refuses invalid values with what to enter', async () => {
    const rt = await runtime(freshDb());
    await expect(rt.addUserDocument({ ...HOSPITALS, jurisdiction: 'Germany' })).rejects.toThrow(/two-letter ISO country code/);
    await expect(rt.addUserDocument({ ...HOSPITALS, pages: ['', ' '] })).rejects.toThrow(/no text/);
    expect(await rt.listUserDocuments()).toEqual([]);
  });
});
