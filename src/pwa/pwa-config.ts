/**
 * vite-plugin-pwa options for SkyCite (import in vite.config.ts and pass to VitePWA(...)).
 *
 * generateSW: Workbox precaches everything the app needs to answer offline — the app
 * shell, the static index, the embedding model (q8 ONNX only) and the ONNX Runtime wasm
 * served from public/ort/ — and nothing is cached from other origins at run time.
 * WebLLM's two bundles (≈ 12 MB, 4.3 MB gzipped) are left out of the precache: they are loaded only
 * when the user chooses a model, and are then kept in the "webllm/js" cache (same origin only, next to
 * WebLLM's own model caches), so a model once loaded still starts offline.
 * Registration is done by src/pwa/register.ts (workbox-window), hence injectRegister: false.
 */
import type { VitePWAOptions } from 'vite-plugin-pwa';
import { VECTOR_SET_CACHE } from '../runtime/vector-set-cache.js';

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
  /**
   * Model folders under models/ to precache (e.g. the embedder the static index
   * names and the reranker). Default: every folder. Other folders are still served
   * but only downloaded when the app asks for them.
   */
  modelFolders?: string[];
  /**
   * Reads and writes files of the build output (vite.config.ts: dist/). Given, every precache
   * entry gets its SHA-256 as Subresource Integrity (integrityTransform), and the list is written
   * to INTEGRITY_FILE for the page's repair (src/pwa/repair.ts).
   */
  integrityIO?: IntegrityIO;
  /**
   * Every model file the build serves (under models/, relative to the build output), precached or
   * not: their SHA-256 go into INTEGRITY_FILE's `models` list, so the files a library caches itself
   * (transformers.js' cache: the reranker, a downloaded retrieval model) are verified before use too.
   */
  modelFiles?: () => string[];
  /**
   * Classic scripts the service worker imports before Workbox (relative to sw.js): the
   * cross-origin isolation headers for static hosts (src/pwa/isolation-sw.ts).
   */
  importScripts?: string[];
}

/** The list of every precached file and its SHA-256, written next to sw.js and precached with it. */
export const INTEGRITY_FILE = 'precache-integrity.json';

export interface PrecacheIntegrityEntry {
  /** Relative to the app's base, as in the service worker's precache manifest. */
  url: string;
  /** Workbox's revision (null for files whose name carries a hash): part of the precache's cache key. */
  revision: string | null;
  /** Subresource Integrity, `sha256-<base64>`. */
  integrity: string;
}

/** A file the build serves, with its SHA-256 (Subresource Integrity, `sha256-<base64>`). */
export interface IntegrityFile {
  /** Relative to the app's base. */
  url: string;
  integrity: string;
}

export interface PrecacheIntegrityList {
  version: 1;
  entries: PrecacheIntegrityEntry[];
  /**
   * Every model file the build serves (models/…), precached or not: what the runtime checks the copies
   * in every cache against before use (src/runtime/model-integrity.ts). Absent in lists of older builds.
   */
  models?: IntegrityFile[];
}

const SRI = { type: 'string', pattern: '^sha256-' } as const;

/** INTEGRITY_FILE's shape (compiled by tools/generate-validators.ts; repair.ts parseIntegrityList reads it). */
export const INTEGRITY_LIST_SCHEMA = {
  $id: 'skycite/precache-integrity-list',
  type: 'object',
  required: ['version', 'entries'],
  properties: {
    version: { const: 1 },
    entries: {
      type: 'array',
      items: {
        type: 'object',
        required: ['url', 'revision', 'integrity'],
        properties: { url: { type: 'string' }, revision: { type: ['string', 'null'] }, integrity: SRI },
      },
    },
    models: { type: 'array', items: { type: 'object', required: ['url', 'integrity'], properties: { url: { type: 'string' }, integrity: SRI } } },
  },
} as const;

export interface IntegrityIO {
  read(url: string): Promise<Uint8Array> | Uint8Array;
  write(url: string, bytes: Uint8Array): Promise<void> | void;
}

/** `sha256-<base64>` of some bytes (Web Crypto: Node 20 and browsers alike). */
export async function sriSha256(bytes: Uint8Array): Promise<string> {
  const digest = new Uint8Array(await globalThis.crypto.subtle.digest('SHA-256', bytes as Uint8Array<ArrayBuffer>));
  let bin = '';
  for (const b of digest) bin += String.fromCharCode(b);
  return `sha256-${btoa(bin)}`;
}

type TransformEntry = { url: string; revision: string | null; integrity?: string; size: number };

/**
 * A Workbox manifest transform: each precache entry gets the SHA-256 of its file as `integrity`.
 * The service worker's install then refuses a damaged download, and when the page evicts a
 * damaged cached copy (src/pwa/repair.ts) the next request fetches it with that integrity and
 * Workbox puts the verified copy back into the precache: the offline copy repairs itself. The
 * same list goes to INTEGRITY_FILE (added to the precache too) so the page can check what Cache
 * Storage holds.
 */
export function integrityTransform(io: IntegrityIO, modelFiles: () => string[] = () => []) {
  return async (entries: TransformEntry[]): Promise<{ manifest: TransformEntry[]; warnings: string[] }> => {
    const manifest: TransformEntry[] = [];
    for (const e of entries) manifest.push({ ...e, integrity: await sriSha256(await io.read(e.url)) });
    const known = new Map(manifest.map((e) => [e.url, e.integrity!] as const));
    const models: IntegrityFile[] = [];
    for (const url of [...new Set(modelFiles())].sort()) models.push({ url, integrity: known.get(url) ?? (await sriSha256(await io.read(url))) });
    const list: PrecacheIntegrityList = {
      version: 1,
      entries: manifest.map((e) => ({ url: e.url, revision: e.revision, integrity: e.integrity! })),
      ...(models.length ? { models } : {}),
    };
    const bytes = new TextEncoder().encode(`${JSON.stringify(list)}\n`);
    await io.write(INTEGRITY_FILE, bytes);
    const integrity = await sriSha256(bytes);
    const revision = [...atob(integrity.slice('sha256-'.length))]
      .map((c) => c.charCodeAt(0).toString(16).padStart(2, '0'))
      .join('')
      .slice(0, 32);
    manifest.push({ url: INTEGRITY_FILE, revision, integrity, size: bytes.byteLength });
    return { manifest, warnings: [] };
  };
}

/**
 * WebLLM's lazily imported bundle and the worker hosting its engine, as vite.config.ts names them
 * (assets/webllm-<hash>.js, assets/webllm-worker-<hash>.js): not precached.
 */
export const WEBLLM_JS_GLOB = 'assets/webllm-*.js';
/** Same-origin requests for those bundles, cached on first use (hashed names: cache first). */
export const WEBLLM_JS_URL = /\/assets\/webllm-[^/?#]+\.js$/;
/** Cache of the WebLLM bundles; the "webllm/" prefix makes Settings' storage clearing treat it as model data. */
export const WEBLLM_JS_CACHE = 'webllm/js';

/**
 * Same-origin requests for a vector set of an optional retrieval model (static-index/vectors/…) and
 * for their list (static-index/vector-sets.json): network first, never precached — the list may be
 * extended after a build, and a precached copy (checked against its build-time SHA-256) would then
 * fail the service worker's install. Offline starts read the copy this route and the runtime's
 * vector-set cache keep from the last online visit.
 */
export const VECTOR_SET_URL = /\/static-index\/(?:vectors\/[^?#]+|vector-sets\.json)$/;
/** Its cache, shared with the runtime's own caching of the same files (src/runtime/vector-set-cache.ts). */
export { VECTOR_SET_CACHE };

/** The vector-set list (VECTOR_SET_URL), kept out of the precache. */
export const VECTOR_SETS_GLOB = 'static-index/vector-sets.json';

/** Glob patterns (relative to the build output) that Workbox precaches. */
export function precacheGlobPatterns(options: SkyCitePwaOptions = {}): string[] {
  const onnx = options.onnxFiles ?? ['model_quantized.onnx'];
  const folders = options.modelFolders ?? ['**'];
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
    ...folders.flatMap((d) => [`models/${d}/**/*.{json,txt}`, `models/${d}/**/LICENSE*`, ...onnx.map((f) => `models/${d}/onnx/${f}`)]),
    // ONNX Runtime Web (wasm + its loader), served from this origin.
    'ort/**/*.{mjs,wasm}',
    // voy (the dense index the retrieval worker builds at load), emitted by Vite as an asset.
    'assets/voy_search_bg-*.wasm',
  ];
}

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
      ...(options.importScripts?.length ? { importScripts: options.importScripts } : {}),
      globIgnores: ['**/node_modules/**/*', 'sw.js', 'workbox-*.js', '**/*.map', WEBLLM_JS_GLOB, VECTOR_SETS_GLOB],
      maximumFileSizeToCacheInBytes: MAX_PRECACHE_FILE_BYTES,
      ...(options.integrityIO ? { manifestTransforms: [integrityTransform(options.integrityIO, options.modelFiles)] } : {}),
      navigateFallback: 'index.html',
      navigateFallbackDenylist: [/^\/static-index\//, /^\/models\//, /^\/ort\//, /^\/icons\//, /\/llm\//],
      cleanupOutdatedCaches: true,
      // 'prompt': the new version waits until the user accepts it (register.ts → applyUpdate()).
      skipWaiting: false,
      clientsClaim: false,
      // Runtime caching of two things only, on this origin: the vector set of a retrieval model the
      // user downloads (its model files are cached by transformers.js itself, 'transformers-cache'),
      // and WebLLM's bundles when a model is first loaded (a RegExp route matches other origins only
      // from the URL's start, which this one never does). Nothing from other origins: model downloads
      // are cached by WebLLM itself (IndexedDB), only when the user asks for a model.
      runtimeCaching: [
        {
          // the vector set of a retrieval model the user chose to download (Settings): network first, so
          // a redeployed index brings its new set, and from this cache when offline
          urlPattern: VECTOR_SET_URL,
          handler: 'NetworkFirst',
          options: { cacheName: VECTOR_SET_CACHE, networkTimeoutSeconds: 10 },
        },
        {
          urlPattern: WEBLLM_JS_URL,
          handler: 'CacheFirst',
          // two bundles per build: the current and the previous version at most
          options: { cacheName: WEBLLM_JS_CACHE, expiration: { maxEntries: 4 } },
        },
      ],
      sourcemap: false,
    },
    devOptions: { enabled: false },
  };
}
