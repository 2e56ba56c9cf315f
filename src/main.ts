import { mount } from 'svelte';
import App from './App.svelte';
import { registerServiceWorker } from './pwa/register';
import { requestPersistence } from './pwa/storage';
import { createWorkerRuntime } from './runtime/client';
import { AppState } from './ui/app-state.svelte';
import './styles/app.css';

const app = new AppState(createWorkerRuntime());

mount(App, { target: document.getElementById('app')!, props: { app } });

// Development server only: expose the state for manual debugging (not in production builds).
if (import.meta.env.DEV) (window as unknown as { __skycite?: AppState }).__skycite = app;

// The update flow: a new version waiting → banner → applyUpdate() reloads into it.
registerServiceWorker()
  .then((updater) => {
    if (!updater) return;
    app.updater = updater;
    app.offlineCopy = 'saving';
    void updater.offlineReady.then(() => {
      app.offlineCopy = 'ready';
    });
    updater.onUpdateAvailable(() => {
      app.updateAvailable = true;
    });
  })
  .catch(() => {
    // No service worker (private mode, unsupported): the app works online only.
  });

// Ask the browser to keep the offline copy (index, model) under storage pressure; Settings shows the result.
void requestPersistence().catch(() => undefined);
