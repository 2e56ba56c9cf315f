import { copyFileSync, createReadStream, existsSync, mkdirSync, cpSync, readdirSync, readFileSync, statSync, writeFileSync } from 'node:fs';
import { extname, join } from 'node:path';
import { gzipSync } from 'node:zlib';
import { resolve } from 'node:path';
import { svelte } from '@sveltejs/vite-plugin-svelte';
import { build, defineConfig, type Plugin, type Rolldown } from 'vite';
import { VitePWA } from 'vite-plugin-pwa';
import { createHash } from 'node:crypto';
import { isolationSwFileName, ISOLATION_SW_SOURCE } from './src/pwa/isolation-sw.js';
import { isAssetPath, ISOLATION_HEADERS, SECURITY_HEADERS } from './src/pwa/csp.js';
import { skyCitePwaOptions } from './src/pwa/pwa-config.js';
import { ORT_FILES } from './src/runtime/ort-files.js';

/** Precache the embedder the built index names; other model folders (the reranker, the base MiniLM) are served but not part of the first load. */
function modelFolders(): string[] | undefined {
  const manifest = resolve('static-index/manifest.json');
  if (!existsSync(manifest)) return undefined;
  const id = (JSON.parse(readFileSync(manifest, 'utf8')) as { model?: { id?: string } }).model?.id;
  return id ? [id] : undefined;
}

/**
 * The security headers (src/pwa/csp.ts) where this server can send them. `vite preview` (npm start):
 * the CSP, frame-ancestors 'none' and X-Frame-Options on every response — the workers' scripts
 * included, so the runtime and model workers run under the same policy as the page (a worker takes
 * its CSP from its own script's response, never from the page's meta tag; the service worker keeps
 * these headers with the files it stores) — and a 404, not index.html, for a missing data or asset
 * file (a JSON reader given HTML fails with a misleading parse error). The dev server: no framing,
 * and the CSP on worker scripts only (the page's own policy would block Vite's hot reload). Both
 * send the cross-origin isolation headers (COOP/COEP) on every response, so the retrieval models
 * run on several threads (src/runtime/ort-threads.ts).
 */
function securityHeaders(): Plugin {
  type Res = { setHeader(k: string, v: string): void; statusCode: number; end(body?: string): void };
  type Use = { middlewares: { use(fn: (req: { url?: string; method?: string }, res: Res, next: () => void) => void): void } };
  return {
    name: 'skycite-security-headers',
    configureServer(server) {
      (server as unknown as Use).middlewares.use((req, res, next) => {
        res.setHeader('X-Frame-Options', SECURITY_HEADERS['X-Frame-Options']!);
        res.setHeader('X-Content-Type-Options', 'nosniff');
        for (const [k, v] of Object.entries(ISOLATION_HEADERS)) res.setHeader(k, v);
        if (/[?&]worker_file\b/.test(req.url ?? '')) res.setHeader('Content-Security-Policy', SECURITY_HEADERS['Content-Security-Policy']!);
        else res.setHeader('Content-Security-Policy', "frame-ancestors 'none'");
        next();
      });
    },
    configurePreviewServer(server) {
      const dist = resolve(server.config.root, server.config.build.outDir);
      (server as unknown as Use).middlewares.use((req, res, next) => {
        for (const [k, v] of Object.entries(SECURITY_HEADERS)) res.setHeader(k, v);
        let path: string;
        try {
          path = decodeURIComponent((req.url ?? '/').split('?')[0]!);
        } catch {
          res.statusCode = 400;
          return void res.end('Bad request');
        }
        // /llm/ has its own middleware (selfHostedModels: 404 for a missing model file)
        if (!path.startsWith('/llm/') && isAssetPath(path)) {
          const file = resolve(dist, `.${path}`);
          if (!file.startsWith(dist + '/') || !existsSync(file) || statSync(file).isDirectory()) {
            res.statusCode = 404;
            res.setHeader('Content-Type', 'text/plain; charset=utf-8');
            return void res.end('Not found');
          }
        }
        next();
      });
    },
  };
}

/**
 * The boot guard (src/pwa/boot-guard.ts, typed code that repairs through src/pwa/repair.ts): its
 * script (boot-guard-script.ts) bundled on its own into one classic script without imports, first in
 * index.html's head, so a damaged app bundle cannot take it down. Build only (the dev server has no
 * service worker); precached with the other assets.
 */
async function bootGuardSource(target: string): Promise<string> {
  const out = (await build({
    configFile: false,
    logLevel: 'warn',
    publicDir: false,
    build: {
      write: false,
      target,
      minify: true,
      emptyOutDir: false,
      copyPublicDir: false,
      lib: { entry: resolve('src/pwa/boot-guard-script.ts'), formats: ['iife'], name: 'skyciteBootGuard', fileName: () => 'boot-guard.js' },
    },
  })) as Rolldown.RolldownOutput | Rolldown.RolldownOutput[];
  const chunk = (Array.isArray(out) ? out[0]! : out).output[0];
  return chunk.code;
}

function bootGuard(): Plugin {
  let base = '/';
  let target = 'es2022';
  let guard: { fileName: string; source: string } | null = null;
  return {
    name: 'skycite-boot-guard',
    apply: 'build',
    configResolved(config) {
      base = config.base;
      if (typeof config.build.target === 'string') target = config.build.target;
    },
    async buildStart() {
      const source = await bootGuardSource(target);
      guard = { fileName: `assets/boot-guard-${createHash('sha256').update(source).digest('hex').slice(0, 8)}.js`, source };
    },
    generateBundle() {
      if (guard) this.emitFile({ type: 'asset', fileName: guard.fileName, source: guard.source });
    },
    transformIndexHtml() {
      return guard ? [{ tag: 'script', attrs: { src: `${base}${guard.fileName}` }, injectTo: 'head-prepend' }] : [];
    },
  };
}

/**
 * The service worker's cross-origin isolation for hosts that cannot send headers
 * (src/pwa/isolation-sw.ts): emitted next to sw.js, which imports it (pwa-config.ts importScripts).
 */
const ISOLATION_SW_FILE = isolationSwFileName((s) => createHash('sha256').update(s).digest('hex'));
function isolationSw(): Plugin {
  return {
    name: 'skycite-isolation-sw',
    apply: 'build',
    generateBundle() {
      this.emitFile({ type: 'asset', fileName: ISOLATION_SW_FILE, source: ISOLATION_SW_SOURCE });
    },
  };
}

/** Serve and ship the generated static index (static-index/) at /static-index/. */
function staticIndex(): Plugin {
  const dir = resolve('static-index');
  return {
    name: 'skycite-static-index',
    configureServer(server) {
      server.middlewares.use('/static-index', (req, res, next) => {
        const file = resolve(dir, `.${decodeURIComponent((req.url ?? '/').split('?')[0]!)}`);
        if (!file.startsWith(dir) || !existsSync(file) || statSync(file).isDirectory()) return next();
        res.setHeader('Cache-Control', 'no-cache');
        createReadStream(file).pipe(res);
      });
    },
    writeBundle(options) {
      const out = resolve(options.dir ?? 'dist');
      if (existsSync(dir)) cpSync(dir, resolve(out, 'static-index'), { recursive: true });
    },
  };
}

/**
 * The self-hosted language models written by `npm run models:prepare` (.cache/models/, never
 * committed), served at /llm/ — the app's default model base URL — by the dev server and
 * `vite preview`. They are not copied into dist/ (gigabytes): a static host serves the same
 * folder at <app>/llm/ (or anywhere, with Settings → model base URL). Missing folder: /llm/
 * answers 404 and the app lists only WebLLM's remote models.
 */
export const MODELS_DIR = resolve(process.env['SKYCITE_MODELS_DIR'] ?? '.cache/models');
function selfHostedModels(): Plugin {
  const serve = (server: {
    middlewares: {
      use(
        path: string,
        fn: (
          req: { url?: string },
          res: NodeJS.WritableStream & { setHeader(k: string, v: string | number): void; statusCode: number; end(body?: string): void },
          next: () => void,
        ) => void,
      ): void;
    };
  }) => {
    server.middlewares.use('/llm', (req, res, next) => {
      const file = resolve(MODELS_DIR, `.${decodeURIComponent((req.url ?? '/').split('?')[0]!)}`);
      // a missing model file is a 404 (never the app's index.html: /llm/manifest.json is read as JSON)
      if (!file.startsWith(MODELS_DIR + '/') || file.includes('/_sources/') || !existsSync(file) || statSync(file).isDirectory()) {
        res.statusCode = 404;
        res.setHeader('Content-Type', 'text/plain; charset=utf-8');
        return void res.end('Not found');
      }
      res.setHeader('Content-Length', statSync(file).size);
      res.setHeader('Cache-Control', 'no-cache');
      createReadStream(file).pipe(res);
    });
  };
  return { name: 'skycite-self-hosted-models', configureServer: serve, configurePreviewServer: serve };
}

/**
 * onnxruntime-web's wasm runtimes (one build per device, src/runtime/ort-files.ts), served from
 * the app's own origin (transformers.js would otherwise fetch them from a CDN): copied from
 * node_modules into public/ort/ (git-ignored) so both the dev server and the build serve /ort/.
 */
function ortAssets(): Plugin {
  const copy = () => {
    const to = resolve('public/ort');
    mkdirSync(to, { recursive: true });
    for (const f of ORT_FILES) {
      const src = resolve('node_modules/onnxruntime-web/dist', f);
      const dst = resolve(to, f);
      if (!existsSync(dst) || statSync(dst).size !== statSync(src).size) copyFileSync(src, dst);
    }
  };
  return {
    name: 'skycite-ort-assets',
    buildStart: copy,
    configureServer: copy,
    /**
     * onnxruntime-web's bundled loader also names its wasm with `new URL(…, import.meta.url)`, so
     * Vite emits a second, hashed 27 MB copy into assets/. The runtime always passes the ort/
     * paths (wasmPaths), so that copy is never fetched: drop it and point the reference at ort/,
     * leaving one copy in dist/.
     */
    generateBundle(options, bundle) {
      const base = (this as unknown as { environment?: { config?: { base?: string } } }).environment?.config?.base ?? '/';
      for (const f of ORT_FILES.filter((n) => n.endsWith('.wasm'))) {
        const stem = f.replace(/\.wasm$/, '');
        // exactly this build's hashed copy (the plain build's stem is a prefix of the asyncify one's)
        const hashed = new RegExp(`^assets/${stem.replace(/[.]/g, '\\.')}-[^./]+\\.wasm$`);
        const emitted = Object.keys(bundle).filter((k) => hashed.test(k));
        for (const name of emitted) {
          delete bundle[name];
          const rewrite = (code: string) => code.split(`${base}${name}`).join(`${base}ort/${f}`).split(name).join(`ort/${f}`);
          for (const out of Object.values(bundle)) {
            if (out.type === 'chunk' && out.code.includes(name)) out.code = rewrite(out.code);
            // the retrieval worker is built separately and arrives here as an asset
            else if (out.type === 'asset' && out.fileName.endsWith('.js')) {
              const code = typeof out.source === 'string' ? out.source : new TextDecoder().decode(out.source);
              if (code.includes(name)) out.source = rewrite(code);
            }
          }
        }
      }
      void options;
    },
  };
}

/** Files worth sending gzip-compressed (the wasm runtimes, the model, the index, scripts, styles). */
export const PRECOMPRESS = /\.(?:wasm|onnx|f32|i8|json|js|mjs|css|html|webmanifest|svg|txt)$/;
const CONTENT_TYPES: Record<string, string> = {
  '.wasm': 'application/wasm',
  '.js': 'text/javascript; charset=utf-8',
  '.mjs': 'text/javascript; charset=utf-8',
  '.json': 'application/json',
  '.css': 'text/css; charset=utf-8',
  '.html': 'text/html; charset=utf-8',
  '.webmanifest': 'application/manifest+json',
  '.svg': 'image/svg+xml',
  '.txt': 'text/plain; charset=utf-8',
};

/**
 * Gzip-compressed copies (`file.gz`) of every compressible file of dist/ above 1 KB, written after
 * the build, and a preview-server middleware that sends them to browsers that accept gzip. vite
 * preview compresses text on the fly but not wasm, ONNX or the index's vectors (27 MB of ORT wasm
 * become 6.7 MB on the wire). Any static host that serves precompressed files (nginx gzip_static,
 * most CDNs) can use the same copies; the service worker stores the decompressed files.
 */
function precompressed(): Plugin {
  let outDir = resolve('dist');
  let building = false;
  // no `apply: 'build'`: vite preview resolves its config as 'serve' and would drop the plugin
  return {
    name: 'skycite-precompressed',
    configResolved(config) {
      outDir = resolve(config.root, config.build.outDir);
      building = config.command === 'build';
    },
    closeBundle() {
      if (!building) return;
      const walk = (dir: string) => {
        for (const e of readdirSync(dir, { withFileTypes: true })) {
          const f = join(dir, e.name);
          if (e.isDirectory()) walk(f);
          else if (PRECOMPRESS.test(e.name) && statSync(f).size > 1024) writeFileSync(`${f}.gz`, gzipSync(readFileSync(f), { level: 6 }));
        }
      };
      if (existsSync(outDir)) walk(outDir);
    },
    configurePreviewServer(server) {
      const dist = resolve(server.config.root, server.config.build.outDir);
      server.middlewares.use((req, res, next) => {
        if ((req.method !== 'GET' && req.method !== 'HEAD') || !/\bgzip\b/.test(String(req.headers['accept-encoding'] ?? ''))) return next();
        let path = decodeURIComponent((req.url ?? '/').split('?')[0]!);
        if (path.endsWith('/')) path += 'index.html';
        const file = resolve(dist, `.${path}`);
        if (!file.startsWith(dist) || !PRECOMPRESS.test(file) || !existsSync(`${file}.gz`)) return next();
        res.setHeader('Content-Encoding', 'gzip');
        res.setHeader('Content-Type', CONTENT_TYPES[extname(file)] ?? 'application/octet-stream');
        res.setHeader('Content-Length', statSync(`${file}.gz`).size);
        res.setHeader('Vary', 'Accept-Encoding');
        res.setHeader('Cache-Control', 'no-cache');
        if (req.method === 'HEAD') return void res.end();
        createReadStream(`${file}.gz`).pipe(res);
      });
    },
  };
}

/** The build output as the precache's integrity transform reads and writes it (src/pwa/pwa-config.ts). */
const distIO = {
  read: (url: string) => new Uint8Array(readFileSync(resolve('dist', url))),
  write: (url: string, bytes: Uint8Array) => writeFileSync(resolve('dist', url), bytes),
};

/** Every model file of the build output (dist/models/…, the gzip copies aside), relative to dist/: their SHA-256 go into the integrity list. */
function builtModelFiles(): string[] {
  const out: string[] = [];
  const walk = (dir: string, rel: string) => {
    if (!existsSync(dir)) return;
    for (const e of readdirSync(dir, { withFileTypes: true })) {
      if (e.isDirectory()) walk(join(dir, e.name), `${rel}${e.name}/`);
      else if (!e.name.endsWith('.gz')) out.push(`${rel}${e.name}`);
    }
  };
  walk(resolve('dist', 'models'), 'models/');
  return out;
}

const isWebLlm = (id: string) => id.includes('/node_modules/@mlc-ai/web-llm/');

export default defineConfig({
  plugins: [
    securityHeaders(),
    bootGuard(),
    ortAssets(),
    svelte(),
    staticIndex(),
    selfHostedModels(),
    isolationSw(),
    VitePWA(skyCitePwaOptions({ modelFolders: modelFolders(), integrityIO: distIO, modelFiles: builtModelFiles, importScripts: [ISOLATION_SW_FILE] })),
    precompressed(),
  ],
  build: {
    target: 'es2022',
    sourcemap: false,
    chunkSizeWarningLimit: 8000,
    // Rolldown's "plugin callbacks took x s" note is about build speed, not the output: not printed
    rolldownOptions: {
      checks: { bundlerTimings: false },
      // WebLLM's lazily imported bundle gets a recognisable name, so the service worker can leave it
      // out of the precache (src/pwa/pwa-config.ts, WEBLLM_JS_GLOB)
      output: { chunkFileNames: (chunk) => (chunk.moduleIds.some(isWebLlm) ? 'assets/webllm-[hash].js' : 'assets/[name]-[hash].js') },
    },
  },
  worker: {
    format: 'es',
    rolldownOptions: {
      checks: { bundlerTimings: false },
      // the worker hosting WebLLM's engine (src/llm/llm.worker.ts), named like its bundle above
      output: { entryFileNames: (chunk) => (chunk.moduleIds.some(isWebLlm) ? 'assets/webllm-worker-[hash].js' : 'assets/[name]-[hash].js') },
    },
  },
  preview: { port: 4173, strictPort: false },
  server: { port: 5173 },
});
