/**
 * vite-plugin-pwa options for SkyCite (import in vite.config.ts and pass to VitePWA(...)).
 *
 * generateSW: Workbox precaches everything the app needs to answer offline — the app
 * shell, the static index, the embedding model (q8 ONNX only) and the ONNX Runtime wasm
 * served from public/ort/ — and nothing is cached from other origins at run time.
 * Registration is done by src/pwa/register.ts (workbox-window), hence injectRegister: false.
 */
import type { VitePWAOptions } from 'vite-plugin-pwa';

/** Largest precached file: the ORT jsep wasm is ~28 MB, the q8 MiniLM ONNX ~23 MB. */
export const MAX_PRECACHE_FILE_BYTES = 40 * 1024 * 1024;

export const THEME_COLOR = '#0b1f3a';
export const BACKGROUND_COLOR = '#ffffff';

export interface SkyCitePwaOptions {
  /**
   * ONNX files of the embedding model to precache (under models/<org>/<name>/onnx/).
   * Default: the q8 file the embedder loads; the 90 MB fp32 model.onnx is left out.
   */
  onnxFiles?: string[];
}

/** Glob patterns (relative to the build output) that Workbox precaches. */
export function precacheGlobPatterns(options: SkyCitePwaOptions = {}): string[] {
  const onnx = options.onnxFiles ?? ['model_quantized.onnx'];
  return [
    // App shell: html, scripts (incl. workers), styles, icons. (vite-plugin-pwa adds
    // manifest.webmanifest itself; listing it here too would duplicate the entry.)
    '*.{html,ico,svg,png}',
    'assets/**/*.{js,mjs,css,svg,png,woff2}',
    'icons/*.png',
    // The static regulation index.
    'static-index/*.json',
    'static-index/*.f32',
    'static-index/*.i8',
    // The embedding model: config and tokenizer files, licence, the ONNX weights it loads.
    'models/**/*.{json,txt}',
    'models/**/LICENSE*',
    ...onnx.map((f) => `models/**/onnx/${f}`),
    // ONNX Runtime Web (wasm + its loader), served from this origin.
    'ort/**/*.{mjs,wasm}',
    // voy (the dense index the retrieval worker builds at load), emitted by Vite as an asset.
    'assets/voy_search_bg-*.wasm',
  ];
}

/** The LLM worker's bundle as Vite names it (src/llm/llm.worker.ts → assets/llm.worker-<hash>.js). */
export const LLM_WORKER_GLOB = 'assets/llm.worker-*.js';
export const LLM_WORKER_ASSET = /\/assets\/llm\.worker-[\w-]+\.js$/;

export function skyCitePwaOptions(options: SkyCitePwaOptions = {}): Partial<VitePWAOptions> {
  return {
    strategies: 'generateSW',
    registerType: 'prompt',
    injectRegister: false,
    filename: 'sw.js',
    manifestFilename: 'manifest.webmanifest',
    // The icons are precached by the 'icons/*.png' pattern (once; no duplicate entries).
    includeManifestIcons: false,
    manifest: {
      name: 'SkyCite',
      short_name: 'SkyCite',
      description:
        'Answers on EU drone regulation (Regulation (EU) 2019/947, AMC & GM, SORA, PDRAs) from the authoritative text, with citations. Works offline; nothing leaves the device.',
      lang: 'en',
      dir: 'ltr',
      start_url: '.',
      scope: '.',
      display: 'standalone',
      orientation: 'any',
      theme_color: THEME_COLOR,
      background_color: BACKGROUND_COLOR,
      categories: ['reference', 'productivity', 'utilities'],
      icons: [
        { src: 'icons/icon-192.png', sizes: '192x192', type: 'image/png', purpose: 'any' },
        { src: 'icons/icon-512.png', sizes: '512x512', type: 'image/png', purpose: 'any' },
        { src: 'icons/maskable-192.png', sizes: '192x192', type: 'image/png', purpose: 'maskable' },
        { src: 'icons/maskable-512.png', sizes: '512x512', type: 'image/png', purpose: 'maskable' },
      ],
    },
    workbox: {
      globPatterns: precacheGlobPatterns(options),
      // the LLM worker (web-llm inside, ~6 MB) is not precached: see LLM_WORKER_ASSET
      globIgnores: ['**/node_modules/**/*', 'sw.js', 'workbox-*.js', '**/*.map', LLM_WORKER_GLOB],
      maximumFileSizeToCacheInBytes: MAX_PRECACHE_FILE_BYTES,
      navigateFallback: 'index.html',
      navigateFallbackDenylist: [/^\/static-index\//, /^\/models\//, /^\/ort\//, /^\/icons\//, /\/llm\//],
      cleanupOutdatedCaches: true,
      // 'prompt': the new version waits until the user accepts it (register.ts → applyUpdate()).
      skipWaiting: false,
      clientsClaim: false,
      // Nothing of other origins is cached at run time (model files go to WebLLM's caches,
      // verified, only when the user asks for a model). The one runtime rule: the LLM
      // worker's script, cached the first time it is loaded — i.e. when the user loads a
      // model — so a device that never uses a model never downloads web-llm.
      runtimeCaching: [
        {
          urlPattern: LLM_WORKER_ASSET,
          handler: 'CacheFirst',
          options: { cacheName: 'skycite-llm-worker', expiration: { maxEntries: 4 } },
        },
      ],
      sourcemap: false,
    },
    devOptions: { enabled: false },
  };
}
