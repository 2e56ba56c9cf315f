/**
 * Two tabs, one device store (issue 36, item 1): two runtimes over the same IndexedDB
 * (fake-indexeddb) stand for two open tabs. A document's id is unique against what is stored,
 * checked inside the write transaction, never against the tab's memory alone: a second document
 * with the same title is kept beside the first, in one tab or two, one after the other or at
 * once. A tab follows what another stored or removed (sync); a re-index of a document another tab
 * removed does not bring it back.
 */
import 'fake-indexeddb/auto';
import { describe, expect, it } from 'vitest';
import { createInProcessRuntime, NO_ADAPTER } from '../../src/runtime/in-process.js';
import type { UserDocumentInput } from '../../src/runtime/user-documents.js';
import { createUserDocsStore, openUserDocsDb, UserDocumentIdTakenError } from '../../src/storage/user-docs-store.js';
import { fakeEmbedder } from '../support/fake-embedder.js';
import { servedIndex } from '../support/served-index.js';

const manual = (edition: string, where: string): UserDocumentInput => ({
  title: 'Operations manual',
  jurisdiction: 'DE',
  edition,
  fileName: `manual-${edition}.txt`,
  format: 'text',
  pages: `Operations manual\n\nEdition ${edition}: the batteries are stored in the ${where} locker of the hangar.`,
});

let dbs = 0;
const freshDb = () => `skycite-two-tabs-${++dbs}-${Math.random().toString(36).slice(2)}`;

async function tab(dbName: string) {
  const rt = createInProcessRuntime({
    baseUrl: 'http://localhost/',
    probeAdapter: async () => NO_ADAPTER,
    createEmbedder: async () => fakeEmbedder(),
    fetchImpl: await servedIndex(),
    userDocStore: createUserDocsStore({ open: () => openUserDocsDb(dbName) }),
  });
  await rt.init({ denseBackend: 'exact', rerank: false });
  await rt.loadUserDocuments();
  return rt;
}

const stored = async (dbName: string) => {
  const store = createUserDocsStore({ open: () => openUserDocsDb(dbName) });
  try {
    return (await store.list()).records.map((r) => ({ id: r.id, edition: r.meta.edition, chunks: r.chunks.map((c) => c.id) }));
  } finally {
    store.close();
  }
};

describe('two tabs adding documents', () => {
  it('keeps both documents when a tab opened before adds one with the title another tab stored (one after the other)', async () => {
    const db = freshDb();
    const a = await tab(db);
    const b = await tab(db);
    const first = await a.addUserDocument(manual('2024', 'red'));
    const second = await b.addUserDocument(manual('2025', 'blue'));
    expect(first.id).toBe('user/operations-manual');
    expect(second.id).toBe('user/operations-manual-2');
    const records = await stored(db);
    expect(records.map((r) => [r.id, r.edition]).sort()).toEqual([
      ['user/operations-manual', '2024'],
      ['user/operations-manual-2', '2025'],
    ]);
    // the renamed document's passages carry its new id, and it is found under it
    expect(records.find((r) => r.edition === '2025')!.chunks.every((c) => c.startsWith('user/operations-manual-2/'))).toBe(true);
    const hit = (await b.retrieve('where are the batteries stored, the blue locker')).chunks.find((c) => c.docId.startsWith('user/'));
    expect(hit?.docId).toBe('user/operations-manual-2');
    // a reload of either tab lists both
    const c = await tab(db);
    expect((await c.listUserDocuments()).map((d) => d.edition).sort()).toEqual(['2024', '2025']);
  });

  it('keeps both when two tabs add a document with the same title at the same time', async () => {
    const db = freshDb();
    const [a, b] = await Promise.all([tab(db), tab(db)]);
    const infos = await Promise.all([a.addUserDocument(manual('2024', 'red')), b.addUserDocument(manual('2025', 'blue'))]);
    expect(new Set(infos.map((i) => i.id)).size).toBe(2);
    expect((await stored(db)).map((r) => r.edition).sort()).toEqual(['2024', '2025']);
  });

  it('follows the other tab: its additions join this tab’s search and its removals leave it', async () => {
    const db = freshDb();
    const a = await tab(db);
    const b = await tab(db);
    const added = await a.addUserDocument(manual('2024', 'red'));
    expect(await b.listUserDocuments()).toEqual([]);
    const synced = await b.syncUserDocuments();
    expect(synced.documents.map((d) => d.id)).toEqual([added.id]);
    expect((await b.retrieve('batteries stored in the red locker')).chunks.some((c) => c.docId === added.id)).toBe(true);
    // B now knows the id: its own document of the same title gets the next one without renaming
    expect((await b.addUserDocument(manual('2025', 'blue'))).id).toBe('user/operations-manual-2');
    await a.removeUserDocument(added.id);
    const after = await b.syncUserDocuments();
    expect(after.documents.map((d) => d.id)).toEqual(['user/operations-manual-2']);
    expect((await b.retrieve('batteries stored in the red locker')).chunks.some((c) => c.docId === added.id)).toBe(false);
  });

  it('does not bring back a document another tab removed when it is re-indexed here', async () => {
    const db = freshDb();
    const a = await tab(db);
    const b = await tab(db);
    const added = await a.addUserDocument(manual('2024', 'red'));
    await b.syncUserDocuments();
    await a.removeUserDocument(added.id);
    await expect(b.reindexUserDocument(added.id)).rejects.toThrow(/removed in another tab/);
    expect(await stored(db)).toEqual([]);
    expect(await b.listUserDocuments()).toEqual([]);
  });
});

describe('the device store’s add', () => {
  it('refuses a taken id inside the transaction when no other id is given, storing nothing', async () => {
    const db = freshDb();
    const a = await tab(db);
    await a.addUserDocument(manual('2024', 'red'));
    const store = createUserDocsStore({ open: () => openUserDocsDb(db) });
    const [record] = (await store.list()).records;
    await expect(store.add({ ...record!, meta: { ...record!.meta, edition: '2099' } })).rejects.toBeInstanceOf(UserDocumentIdTakenError);
    expect((await store.list()).records.map((r) => r.meta.edition)).toEqual(['2024']);
    store.close();
  });
});
