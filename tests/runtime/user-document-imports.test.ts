/**
 * Imports in the background (issue 27, item 2), with the in-process runtime the worker hosts:
 * a question asked while a document is embedded is answered before the embedding ends; Cancel
 * stores nothing and leaves the index as it was; a document over the limits is refused at once.
 *
 * The embedder here blocks the thread for each text, as the real model's WASM inference does,
 * and questions are issued from a timer, as a message posted to the worker arrives (a macrotask):
 * an import that never gives the event loop a turn delays them until it has finished.
 */
import 'fake-indexeddb/auto';
import { describe, expect, it } from 'vitest';
import type { Embedder } from '../../src/core/embedding/embedder.js';
import { createRuntimeClient } from '../../src/runtime/client.js';
import { createInProcessRuntime, NO_ADAPTER } from '../../src/runtime/in-process.js';
import type { RuntimeReply, RuntimeRequest, SkyCiteRuntime } from '../../src/runtime/types.js';
import { serveRuntime } from '../../src/runtime/worker-serve.js';
import { IMPORT_LIMITS, type UserDocumentInput, type UserDocumentProgress } from '../../src/runtime/user-documents.js';
import { createUserDocsStore, openUserDocsDb } from '../../src/storage/user-docs-store.js';
import { fakeEmbedder } from '../support/fake-embedder.js';
import { servedIndex } from '../support/served-index.js';

/** A bag-of-words embedder that keeps the thread busy `msPerText` per text (like WASM inference), counting the texts. */
function blockingEmbedder(msPerText: number) {
  const inner = fakeEmbedder();
  const counter = { texts: 0 };
  const embedder: Embedder = {
    ...inner,
    async embed(texts) {
      counter.texts += texts.length;
      const until = performance.now() + msPerText * texts.length;
      while (performance.now() < until) {
        // busy: the thread is computing
      }
      return inner.embed(texts);
    },
  };
  return { embedder, counter };
}

/** A manual of many numbered sections: a few hundred texts to embed. */
const MANUAL: UserDocumentInput = {
  title: 'Operations manual: survey flights',
  jurisdiction: 'DE',
  edition: '2025-01',
  fileName: 'manual.txt',
  format: 'text',
  pages: Array.from(
    { length: 60 },
    (_, i) =>
      `Section ${i + 1}: Survey procedure ${i + 1}\n\nBefore survey flight ${i + 1} the remote pilot checks the battery, the propellers and the geofence of area ${i + 1}. ` +
      `The observer keeps the aircraft in sight and reports any crewed aircraft approaching the area. After landing the logbook entry ${i + 1} is completed and signed.`,
  ).join('\n\n'),
};
const HOSPITALS: UserDocumentInput = {
  title: 'Guidance on drone flights near hospitals',
  jurisdiction: 'DE',
  edition: '2024-03',
  fileName: 'hospitals.txt',
  format: 'text',
  pages: 'Helipads\n\nOperators shall obtain the written consent of the hospital before flying within 300 metres of its helipad.',
};
const QUESTION = 'consent of the hospital before flying near its helipad';

let dbs = 0;
const freshDb = () => `skycite-imports-test-${++dbs}-${Math.random().toString(36).slice(2)}`;

async function runtime(dbName: string, embedder: Embedder) {
  const rt = createInProcessRuntime({
    baseUrl: 'http://localhost/',
    probeAdapter: async () => NO_ADAPTER,
    createEmbedder: async () => embedder,
    fetchImpl: await servedIndex(),
    userDocStore: createUserDocsStore({ open: () => openUserDocsDb(dbName) }),
  });
  await rt.init({ denseBackend: 'exact', rerank: false });
  return rt;
}

/** Run `f` in a later macrotask, as the worker runs a message that arrives while it works. */
const asMessage = <T>(f: () => Promise<T>): Promise<T> => new Promise((resolve, reject) => setTimeout(() => f().then(resolve, reject), 0));

describe('imports in the background', () => {
  it('answers a question asked during an add before the add has finished embedding', async () => {
    const { embedder } = blockingEmbedder(2);
    const rt = await runtime(freshDb(), embedder);
    const progress: UserDocumentProgress[] = [];
    let asked: Promise<{ ids: string[]; progressWhenAnswered: UserDocumentProgress | undefined }> | null = null;
    let added = false;
    const adding = rt
      .addUserDocument(MANUAL, (p) => {
        progress.push(p);
        // the user asks once the embedding has begun
        if (!asked && p.stage === 'embedding' && p.done > 0)
          asked = asMessage(async () => {
            const r = await rt.retrieve(QUESTION);
            return { ids: r.chunks.map((c) => c.id), progressWhenAnswered: progress.at(-1) };
          });
      })
      .then((info) => ((added = true), info));
    await expect.poll(() => asked !== null).toBe(true);
    const answer = await asked!;
    expect(added).toBe(false);
    // answered mid-embedding, from the index as it was before the add
    expect(answer.progressWhenAnswered).toMatchObject({ stage: 'embedding' });
    expect(answer.progressWhenAnswered!.done).toBeLessThan(answer.progressWhenAnswered!.total);
    expect(answer.ids.length).toBeGreaterThan(0);
    const info = await adding;
    expect(info.chunkCount).toBeGreaterThan(10);
    expect(progress.filter((p) => p.stage === 'embedding').at(-1)).toMatchObject({ done: progress.filter((p) => p.stage === 'embedding').at(-1)!.total });
  });

  it('cancels an add mid-embedding: it stores nothing and the index, the Library and the device store are as they were', async () => {
    const { embedder } = blockingEmbedder(1);
    const db = freshDb();
    const rt = await runtime(db, embedder);
    const kept = await rt.addUserDocument(HOSPITALS);
    const snapshot = async () => ({
      list: await rt.listUserDocuments(),
      top: (await rt.retrieve('remote pilot checks the battery and the propellers before a survey flight')).chunks.map((c) => c.id),
      keyword: await rt.keywordSearch('survey'),
      outline: (await rt.outline()).map((d) => d.docId),
      stored: (await createUserDocsStore({ open: () => openUserDocsDb(db) }).list()).records.map((r) => r.id),
    });
    const before = await snapshot();
    expect(before.stored).toEqual([kept.id]);

    let cancelled: Promise<boolean> | null = null;
    const adding = rt.addUserDocument(MANUAL, (p) => {
      if (!cancelled && p.stage === 'embedding' && p.done > 0) cancelled = asMessage(() => rt.cancelUserDocumentImport());
    });
    const err = (await adding.catch((e: unknown) => e)) as Error;
    expect(await cancelled!).toBe(true);
    expect(err.name).toBe('UserDocumentImportCancelledError');
    expect(err.message).toMatch(/was cancelled\. Nothing was stored and your library is as it was/);
    expect(await snapshot()).toEqual(before);
    // nothing of it is left behind: the same document can be added afterwards, and nothing is left to cancel
    expect(await rt.cancelUserDocumentImport()).toBe(false);
    expect((await rt.addUserDocument(MANUAL)).title).toBe(MANUAL.title);
  });

  it('refuses a document over the size limit at once, saying the limit and why, before anything is embedded', async () => {
    const { embedder, counter } = blockingEmbedder(1);
    const rt = await runtime(freshDb(), embedder);
    const line = 'The remote pilot keeps the aircraft in visual line of sight at all times.\n';
    // a million characters (≈ 400 pages of prose), over the limit
    const huge = { ...MANUAL, title: 'Huge text', pages: line.repeat(Math.ceil(1_000_000 / line.length)) };
    const before = counter.texts;
    const t = performance.now();
    const err = (await rt.addUserDocument(huge).catch((e: unknown) => e)) as Error;
    expect(performance.now() - t).toBeLessThan(500);
    expect(err.name).toBe('UserDocumentTooLargeError');
    expect(IMPORT_LIMITS.maxTextChars).toBeLessThan(1_000_000);
    expect(err.message).toContain(`at most ${IMPORT_LIMITS.maxTextChars.toLocaleString('en')}`);
    expect(err.message).toMatch(/minutes of indexing/);
    expect(err.message).toMatch(/Split it/);
    expect(counter.texts).toBe(before);
    expect(await rt.listUserDocuments()).toEqual([]);
  });
});

/**
 * The same runtime behind the worker protocol: the client and the worker's own request handler
 * (worker-serve.ts), each message cloned and delivered in a later task, as postMessage does.
 */
function behindWorker(rt: SkyCiteRuntime): SkyCiteRuntime {
  const worker = {
    onmessage: null as ((ev: MessageEvent<RuntimeReply>) => void) | null,
    onerror: null,
    postMessage(req: RuntimeRequest) {
      const copy = structuredClone(req);
      setTimeout(() => void serve(copy), 0);
    },
    terminate() {},
  };
  const serve = serveRuntime(rt, (reply) => {
    const copy = structuredClone(reply);
    setTimeout(() => worker.onmessage!({ data: copy } as MessageEvent<RuntimeReply>), 0);
  });
  return createRuntimeClient(worker as unknown as Worker);
}

describe('imports in the background, behind the worker protocol', () => {
  it('answers a question sent during an add, and a Cancel sent after it stops the add with nothing stored', async () => {
    const { embedder } = blockingEmbedder(2);
    const db = freshDb();
    const client = behindWorker(await runtime(db, embedder));
    const progress: UserDocumentProgress[] = [];
    let asked: Promise<UserDocumentProgress | undefined> | null = null;
    const adding = client.addUserDocument(MANUAL, (p) => {
      progress.push(p);
      if (!asked && p.stage === 'embedding' && p.done > 0) asked = client.retrieve(QUESTION).then(() => progress.at(-1));
    });
    await expect.poll(() => asked !== null).toBe(true);
    const whenAnswered = await asked!;
    expect(whenAnswered).toMatchObject({ stage: 'embedding' });
    expect(whenAnswered!.done).toBeLessThan(whenAnswered!.total);
    expect(await client.cancelUserDocumentImport()).toBe(true);
    const err = (await adding.catch((e: unknown) => e)) as Error;
    expect(err.name).toBe('UserDocumentImportCancelledError');
    expect(err.message).toMatch(/Nothing was stored/);
    expect(await client.listUserDocuments()).toEqual([]);
    expect(await client.keywordSearch('survey')).toEqual([]);
    expect((await createUserDocsStore({ open: () => openUserDocsDb(db) }).list()).records).toEqual([]);
  });
});
