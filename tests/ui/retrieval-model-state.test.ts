/**
 * The app state's retrieval-model switch (Settings → Retrieval model): progress while it
 * downloads, the choice stored only when the switch worked, restored at the next start,
 * and on failure the previous model kept with the reason shown.
 */
import 'fake-indexeddb/auto';
import { describe, expect, it } from 'vitest';
import { createSettingsStore } from '../../src/storage/settings-store';
import { AppState } from '../../src/ui/app-state.svelte';
import { createAuditStore } from '../../src/storage/audit-store';
import type { DownloadProgress } from '../../src/runtime/types';
import { createFakeRuntime } from './fake-runtime';

let n = 0;
const fresh = () => `skycite-rm-${Date.now()}-${n++}`;

function app(dbName: string) {
  const runtime = createFakeRuntime();
  const state = new AppState(runtime, { settingsStore: createSettingsStore({ dbName }), audit: createAuditStore({ dbName: `${dbName}-audit` }) });
  return { runtime, state };
}

describe('switching the retrieval model from the app state', () => {
  it('reports progress, stores the choice when it worked, and restores it at the next start', async () => {
    const dbName = fresh();
    const { state, runtime } = app(dbName);
    await state.loadSettings();
    await state.initIndex();
    await state.retrieval.refresh();
    expect(state.retrieval.models.map((m) => m.id)).toEqual(['skycite/minilm-skycite', 'test/large-model']);
    const seen: DownloadProgress[] = [];
    const orig = runtime.useRetrievalModel.bind(runtime);
    runtime.useRetrievalModel = (id, onProgress) => orig(id, (pr) => (onProgress?.(pr), seen.push({ ...state.retrieval.switching.progress! })));
    const p = state.retrieval.switchTo('test/large-model');
    expect(state.retrieval.switching.phase).toBe('loading');
    expect(await p).toBe(true);
    // the state showed each file's progress while it downloaded
    expect(seen.map((x) => x.loaded)).toEqual([500_000, 1_000_000, 2_000_000]);
    expect(state.retrieval.switching.phase).toBe('idle');
    expect(state.status!.retrievalModel).toMatchObject({ id: 'test/large-model', state: 'on' });
    expect(state.settings.retrievalModel).toBe('test/large-model');

    // next start: the stored choice is switched to once the index is ready
    const again = app(dbName);
    await again.state.loadSettings();
    await again.state.initIndex();
    await new Promise((r) => setTimeout(r, 0));
    await again.state.retrieval.refresh();
    await expect.poll(() => again.state.status!.retrievalModel.id).toBe('test/large-model');

    // and back to the built-in one
    expect(await again.state.retrieval.switchTo(null)).toBe(true);
    expect(again.state.settings.retrievalModel).toBeNull();
  });

  it('does not offer the model again in the Ask view once it was taken, even after switching back', async () => {
    const { state } = app(fresh());
    await state.loadSettings();
    await state.initIndex();
    expect(state.settings.retrievalOfferDismissed).toBe(false);
    expect(await state.retrieval.switchTo('test/large-model')).toBe(true);
    expect(await state.retrieval.switchTo(null)).toBe(true);
    expect(state.settings).toMatchObject({ retrievalModel: null, retrievalOfferDismissed: true });
  });

  it('keeps the first visit’s choice in step with a switch made in Settings, both ways', async () => {
    const { state } = app(fresh());
    await state.loadSettings();
    await state.initIndex();
    expect(state.settings.retrievalChoice).toBeNull();
    expect(await state.retrieval.switchTo('test/large-model')).toBe(true);
    expect(state.settings).toMatchObject({ retrievalModel: 'test/large-model', retrievalChoice: 'full' });
    expect(await state.retrieval.switchTo(null)).toBe(true);
    expect(state.settings).toMatchObject({ retrievalModel: null, retrievalChoice: 'light' });
  });

  it('keeps the previous model and shows the reason when the switch fails', async () => {
    const { state, runtime } = app(fresh());
    await state.loadSettings();
    await state.initIndex();
    runtime.failNext.useRetrievalModel = Object.assign(new Error('Could not switch retrieval to Large test model: offline. Retrieval keeps using MiniLM.'), {
      name: 'RetrievalModelError',
    });
    expect(await state.retrieval.switchTo('test/large-model')).toBe(false);
    expect(state.retrieval.switching).toMatchObject({
      phase: 'error',
      targetId: 'test/large-model',
      error: expect.stringMatching(/offline\. Retrieval keeps using/),
    });
    expect(state.status!.retrievalModel.id).toBe('skycite/minilm-skycite');
    expect(state.settings.retrievalModel).toBeNull();
  });
});
