/**
 * The Library across tabs (issue 36, item 1): a tab that adds or removes a document tells the others
 * on a channel, and they list what is stored (the runtime reads the store again); a document kept
 * beside another of the same title is said to be; a change that arrives while this tab is adding
 * something is followed once it is done. A shared in-memory channel stands in for BroadcastChannel.
 */
import { describe, expect, it, vi } from 'vitest';
import type { UserDocumentInfo, UserDocumentsLoad } from '../../src/runtime/user-documents';
import { UserDocsState } from '../../src/ui/library/user-docs.svelte';
import { createFakeRuntime } from './fake-runtime';

/** Channels of one name: a message posted on one reaches the others (never itself), as BroadcastChannel does. */
function channels() {
  const all: { listeners: ((e: { data: unknown }) => void)[] }[] = [];
  return () => {
    const me = { listeners: [] as ((e: { data: unknown }) => void)[] };
    all.push(me);
    return {
      postMessage: (data: unknown) => {
        for (const other of all) if (other !== me) for (const l of other.listeners) l({ data });
      },
      addEventListener: (_type: string, l: (e: { data: unknown }) => void) => void me.listeners.push(l),
    } as unknown as BroadcastChannel;
  };
}

const doc = (id: string, edition: string): UserDocumentInfo => ({
  id,
  title: 'Operations manual',
  jurisdiction: 'DE',
  edition,
  fileName: 'manual.txt',
  format: 'text',
  addedAt: '2026-01-01T00:00:00.000Z',
  chunkCount: 1,
  pageStart: null,
  pageEnd: null,
  stored: true,
});

/** A tab: its Library state over a runtime whose store holds `stored()` (what all tabs share). */
function tab(stored: () => UserDocumentInfo[], channel: () => BroadcastChannel, added?: UserDocumentInfo) {
  const runtime = createFakeRuntime();
  const sync = vi.fn(async (): Promise<UserDocumentsLoad> => ({ documents: stored(), problems: [] }));
  runtime.syncUserDocuments = sync;
  runtime.loadUserDocuments = async () => ({ documents: stored(), problems: [] });
  if (added) runtime.addUserDocument = async () => added;
  const state = new UserDocsState(runtime, () => 0, channel());
  return { state, sync };
}

const file = (text: string) => ({ name: 'manual.txt', size: text.length, type: 'text/plain', text: async () => text }) as unknown as File;

describe('the Library in two tabs', () => {
  it('a tab lists the documents another tab added, and says when one is kept beside another of the same title', async () => {
    let store: UserDocumentInfo[] = [];
    const channel = channels();
    const a = tab(() => store, channel, doc('user/operations-manual', '2024'));
    const b = tab(() => store, channel, doc('user/operations-manual-2', '2025'));
    await a.state.load();
    await b.state.load();

    // A adds (what it stores is now in the shared store) and tells B
    const addA = a.state.add([{ file: file('Edition 2024'), title: 'Operations manual', jurisdiction: 'DE', edition: '2024' }]);
    store = [doc('user/operations-manual', '2024')];
    await addA;
    await vi.waitFor(() => expect(b.state.documents.map((d) => d.edition)).toEqual(['2024']));

    // B adds one of the same title: kept beside it, and the message says so
    const addB = b.state.add([{ file: file('Edition 2025'), title: 'Operations manual', jurisdiction: 'DE', edition: '2025' }]);
    store = [doc('user/operations-manual', '2024'), doc('user/operations-manual-2', '2025')];
    await addB;
    expect(b.state.done).toMatch(/kept beside your other document of the same title \(edition 2024\)/);
    await vi.waitFor(() => expect(a.state.documents.map((d) => d.edition)).toEqual(['2024', '2025']));

    // a removal reaches the other tab too
    store = [doc('user/operations-manual-2', '2025')];
    await a.state.remove(doc('user/operations-manual', '2024'));
    await vi.waitFor(() => expect(b.state.documents.map((d) => d.edition)).toEqual(['2025']));
  });

  it('follows a change announced while this tab is busy once it is done, not in the middle', async () => {
    let store: UserDocumentInfo[] = [];
    const channel = channels();
    const other = channel();
    const b = tab(() => store, channel);
    await b.state.load();
    let release!: () => void;
    b.state['runtime'].reindexUserDocument = () =>
      new Promise((resolve) => {
        release = () => resolve(doc('user/x', '1'));
      });
    const busy = b.state.reindex(doc('user/x', '1'));
    store = [doc('user/operations-manual', '2024')];
    other.postMessage({ type: 'skycite-user-documents-changed' });
    await new Promise((r) => setTimeout(r, 10));
    expect(b.sync).not.toHaveBeenCalled();
    release();
    await busy;
    await vi.waitFor(() => expect(b.sync).toHaveBeenCalled());
  });
});
