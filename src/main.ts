import { mount } from 'svelte';
import App from './App.svelte';
import { healOnIndexFailure, offlineCopy } from './pwa/offline-copy.svelte';
import { registerServiceWorker } from './pwa/register';
import { reloadOnMissingChunks } from './pwa/reload-notice';
import { requestPersistence } from './pwa/storage';
import { createWorkerRuntime } from './runtime/client';
import { AppState } from './ui/app-state.svelte';
import './styles/app.css';

const app = new AppState(createWorkerRuntime());

mount(App, { target: document.getElementById('app')!, props: { app } });

// a tab whose lazily loaded code a new version replaced reloads itself (with a notice); a damaged
// file of the offline copy is replaced, then the index loads again (src/pwa/offline-copy.svelte.ts)
reloadOnMissingChunks();
healOnIndexFailure(app, { onFailure: () => void app.userDocs.listStored() });

// Development server only: expose the state for manual debugging (not in production builds).
if (import.meta.env.DEV) (window as unknown as { __skycite?: AppState }).__skycite = app;

// The service worker's install downloads the whole offline copy (index, model, ORT wasm: ≈ 36 MB) a
// second time; started with the page, it competed with the first load for the network and both cores
// and delayed "Index verified" by seconds. It is registered once the index has settled (ready or
// failed), or after OFFLINE_COPY_DELAY_MS at the latest.
const OFFLINE_COPY_DELAY_MS = 30_000;
const indexSettled = Promise.race([app.waitForIndex().catch(() => undefined), new Promise<void>((resolve) => setTimeout(resolve, OFFLINE_COPY_DELAY_MS))]);

// The update flow: a new version waiting → banner → applyUpdate() reloads into it.
indexSettled
  .then(() => registerServiceWorker())
  .then((updater) => {
    if (!updater) return;
    app.updater = updater;
    app.offlineCopy = 'saving';
    offlineCopy.follow(updater);
    updater.offlineReady.then(
      () => (app.offlineCopy = 'ready'),
      () => (app.offlineCopy = 'none'),
    );
    updater.onUpdateAvailable(() => {
      app.updateAvailable = true;
    });
  })
  .catch(() => {
    // No service worker (private mode, unsupported): the app works online only.
  });

// Ask the browser to keep the offline copy (index, model) under storage pressure; Settings shows the result.
void requestPersistence().catch(() => undefined);
