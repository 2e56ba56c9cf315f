/**
 * Stored user documents that must not reach the search (issue 27, item 6): NaN or infinite
 * vectors, vectors of the wrong length, missing parts that used to throw while loading, an id
 * that is a built-in document's, passages whose ids another document already holds. Each is
 * quarantined: the other documents load, the Library's list works, the damaged one is named in
 * the user's words, never searched, and "Remove it" (the name read back from the message) deletes it.
 */
import 'fake-indexeddb/auto';
import { describe, expect, it } from 'vitest';
import { createInProcessRuntime, NO_ADAPTER } from '../../src/runtime/in-process.js';
import type { UserDocumentInput } from '../../src/runtime/user-documents.js';
import { createUserDocsStore, openUserDocsDb, USER_DOCS_STORE, type StoredUserDocument } from '../../src/storage/user-docs-store.js';
import { fakeEmbedder } from '../support/fake-embedder.js';
import { servedIndex } from '../support/served-index.js';

const HOSPITALS: UserDocumentInput = {
  title: 'Guidance on drone flights near hospitals',
  jurisdiction: 'DE',
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
const BEEHIVE_Q = 'distance from every beehive during pollination surveys';

let dbs = 0;
const freshDb = () => `skycite-quarantine-${++dbs}-${Math.random().toString(36).slice(2)}`;

async function runtime(dbName: string, embedder = fakeEmbedder) {
  const rt = createInProcessRuntime({
    baseUrl: 'http://localhost/',
    probeAdapter: async () => NO_ADAPTER,
    createEmbedder: async () => embedder(),
    fetchImpl: await servedIndex(),
    userDocStore: createUserDocsStore({ open: () => openUserDocsDb(dbName) }),
  });
  await rt.init({ denseBackend: 'exact', rerank: false });
  return rt;
}

/** Both documents stored by a runtime that is then closed; the raw records, to damage. */
async function stored() {
  const db = freshDb();
  const first = await runtime(db);
  const hospitals = await first.addUserDocument(HOSPITALS);
  const bees = await first.addUserDocument(BEEKEEPING);
  const builtIn = (await first.outline()).find((d) => !d.docId.startsWith('user/'))!.docId;
  first.dispose();
  const raw = await openUserDocsDb(db);
  const rec = (await raw.get(USER_DOCS_STORE, hospitals.id))!;
  raw.close();
  return { db, hospitalsId: hospitals.id, beesId: bees.id, rec, builtIn };
}

async function putRaw(db: string, records: unknown[], remove: string[] = []) {
  const raw = await openUserDocsDb(db);
  for (const id of remove) await raw.delete(USER_DOCS_STORE, id);
  for (const r of records) await raw.put(USER_DOCS_STORE, r as StoredUserDocument);
  raw.close();
}

/** The record under another id, its passages' ids and document renamed with it (`chunkId` maps each old passage id). */
function retag(rec: StoredUserDocument, id: string, chunkId: (old: string) => string = (old) => id + old.slice(rec.id.length)): StoredUserDocument {
  const chunks = rec.chunks.map((c) => ({ ...c, id: chunkId(c.id), docId: id, documentId: id }));
  const ids = (xs: string[]) => xs.map(chunkId);
  return {
    ...rec,
    id,
    chunks,
    document: {
      ...rec.document,
      id,
      sourceId: id,
      chunkIds: ids(rec.document.chunkIds),
      sections: rec.document.sections.map((s) => ({ ...s, chunkIds: ids(s.chunkIds) })),
    },
  };
}

/** What the Library does for "Remove it": the name read back from the message. */
const nameIn = (message: string) => /document “([^”]+)” is damaged/.exec(message)?.[1];

async function expectQuarantined(db: string, goodId: string, problem: RegExp) {
  const rt = await runtime(db);
  const loaded = await rt.loadUserDocuments();
  expect(loaded.documents.map((d) => d.id)).toEqual([goodId]);
  expect(loaded.problems).toHaveLength(1);
  expect(loaded.problems[0]).toMatch(problem);
  expect(loaded.problems[0]).toMatch(/is damaged .* Remove it and add the file again/);
  expect((await rt.listUserDocuments()).map((d) => d.id)).toEqual([goodId]);
  return { rt, message: loaded.problems[0]! };
}

async function removesIt(rt: Awaited<ReturnType<typeof runtime>>, db: string, message: string) {
  const name = nameIn(message);
  expect(name).toBeDefined();
  await rt.removeUserDocument(name!);
  expect((await createUserDocsStore({ open: () => openUserDocsDb(db) }).list()).problems).toEqual([]);
}

describe('stored user documents that are quarantined', () => {
  it('keeps a document with NaN vectors out of the search; the healthy document is still found first', async () => {
    const { db, rec, beesId, hospitalsId } = await stored();
    const retrieval = rec.vectors.retrieval.slice();
    retrieval.fill(Number.NaN);
    await putRaw(db, [{ ...rec, vectors: { ...rec.vectors, retrieval } }]);
    const { rt, message } = await expectQuarantined(db, beesId, /not finite \(NaN or infinity\)/);
    expect(message).toContain(hospitalsId);
    const top = (await rt.retrieve(BEEHIVE_Q, { filters: { jurisdictions: ['FR'] } })).chunks;
    expect(top[0]!.docId).toBe(beesId);
    expect((await rt.retrieve(HELIPAD_Q)).chunks.some((c) => c.docId === hospitalsId)).toBe(false);
    expect(await rt.keywordSearch('helipad')).toEqual([]);
    await removesIt(rt, db, message);
  });

  it('quarantines infinite window vectors and vectors of the wrong length', async () => {
    const { db, rec, beesId } = await stored();
    const windows = { ...rec.vectors.windows, vectors: rec.vectors.windows.vectors.map((v, i) => (i === 3 ? Infinity : v)) };
    await putRaw(db, [{ ...rec, vectors: { ...rec.vectors, windows } }]);
    await expectQuarantined(db, beesId, /not finite/);
    await putRaw(db, [{ ...rec, vectors: { ...rec.vectors, summary: rec.vectors.summary.subarray(1) } }]);
    await expectQuarantined(db, beesId, /summary vectors do not match its passages/);
  });

  it('quarantines a record whose windows are missing instead of failing the whole list', async () => {
    const { db, rec, beesId } = await stored();
    await putRaw(db, [{ ...rec, vectors: { ...rec.vectors, windows: undefined } }]);
    const { rt, message } = await expectQuarantined(db, beesId, /passage windows are missing/);
    await removesIt(rt, db, message);
  });

  it("quarantines a record that uses a built-in document's id: the built-in document is still the one found", async () => {
    const { db, rec, beesId, hospitalsId, builtIn } = await stored();
    await putRaw(db, [retag(rec, builtIn)], [hospitalsId]);
    const { rt, message } = await expectQuarantined(db, beesId, /its id is not one SkyCite gives your documents/);
    const outline = await rt.outline();
    expect(outline.filter((d) => d.docId === builtIn)).toHaveLength(1);
    expect(outline.find((d) => d.docId === builtIn)!.title).not.toBe(HOSPITALS.title);
    expect((await rt.retrieve(HELIPAD_Q)).chunks.every((c) => !/written consent of the hospital/.test(c.text))).toBe(true);
    await removesIt(rt, db, message);
    // the built-in document is untouched by the removal
    expect((await rt.outline()).some((d) => d.docId === builtIn)).toBe(true);
  });

  it('quarantines the second of two documents whose passages have the same ids', async () => {
    const { db, rec, beesId, hospitalsId } = await stored();
    // "user/h" holds passages "user/h/x/…", which are also the passages of "user/h/x"
    const a = retag(rec, 'user/h', (old) => `user/h/x${old.slice(rec.id.length)}`);
    const b = retag(rec, 'user/h/x');
    await putRaw(db, [a, b], [hospitalsId]);
    const rt = await runtime(db);
    const loaded = await rt.loadUserDocuments();
    expect(loaded.documents.map((d) => d.id).sort()).toEqual(['user/h', beesId].sort());
    expect(loaded.problems).toEqual([expect.stringMatching(/“user\/h\/x” is damaged \(its passages have the ids of passages already in the library\)/)]);
    expect((await rt.retrieve(HELIPAD_Q)).chunks[0]!.docId).toBe('user/h');
    await removesIt(rt, db, loaded.problems[0]!);
  });

  it('names a record with a very long id by its beginning, and "Remove it" still deletes it', async () => {
    const { db, rec, beesId, hospitalsId } = await stored();
    const longId = `user/${'a'.repeat(3000)}`;
    await putRaw(db, [retag(rec, longId)], [hospitalsId]);
    const { rt, message } = await expectQuarantined(db, beesId, /its id has 3005 characters/);
    expect(message.length).toBeLessThan(400);
    expect(nameIn(message)).toMatch(/^user\/a{55}… #[0-9a-f]{8}$/);
    await removesIt(rt, db, message);
  });

  it('refuses to add a document when the model returns NaN, and stores nothing', async () => {
    const db = freshDb();
    const nanEmbedder = () => {
      const e = fakeEmbedder();
      return { ...e, embed: async (t: string[]) => (await e.embed(t)).map((v) => v.map(() => Number.NaN)) };
    };
    const rt = await runtime(db, nanEmbedder);
    await expect(rt.addUserDocument(BEEKEEPING)).rejects.toThrow(/returned invalid numbers for “Operations manual: beekeeping surveys”, so it was not added/);
    expect(await rt.listUserDocuments()).toEqual([]);
    expect((await createUserDocsStore({ open: () => openUserDocsDb(db) }).list()).records).toEqual([]);
  });
});
