import type { RuntimeOptions } from './types.js';

/** Everything is served from the app's own origin, relative to the page. */
export const DEFAULT_RUNTIME_OPTIONS: RuntimeOptions = {
  indexBaseUrl: 'static-index/',
  modelBaseUrl: 'models/',
  ortBaseUrl: 'ort/',
  appBaseUrl: './',
  device: 'auto',
  rerank: false,
  retrievalModel: null,
  denseBackend: 'voy',
  threads: 'auto',
};
