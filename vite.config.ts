import { copyFileSync, createReadStream, existsSync, mkdirSync, cpSync, statSync } from 'node:fs';
import { resolve } from 'node:path';
import { svelte } from '@sveltejs/vite-plugin-svelte';
import { defineConfig, type Plugin } from 'vite';
import { VitePWA } from 'vite-plugin-pwa';
import { skyCitePwaOptions } from './src/pwa/pwa-config.js';

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
  const serve = (server: { middlewares: { use(path: string, fn: (req: { url?: string }, res: NodeJS.WritableStream & { setHeader(k: string, v: string | number): void }, next: () => void) => void): void } }) => {
    server.middlewares.use('/llm', (req, res, next) => {
      const file = resolve(MODELS_DIR, `.${decodeURIComponent((req.url ?? '/').split('?')[0]!)}`);
      if (!file.startsWith(MODELS_DIR + '/') || file.includes('/_sources/') || !existsSync(file) || statSync(file).isDirectory()) return next();
      res.setHeader('Content-Length', statSync(file).size);
      res.setHeader('Cache-Control', 'no-cache');
      createReadStream(file).pipe(res);
    });
  };
  return { name: 'skycite-self-hosted-models', configureServer: serve, configurePreviewServer: serve };
}

/**
 * onnxruntime-web's wasm runtime, served from the app's own origin (transformers.js
 * would otherwise fetch it from a CDN): copied from node_modules into public/ort/
 * (git-ignored) so both the dev server and the build serve /ort/.
 */
const ORT_FILES = ['ort-wasm-simd-threaded.asyncify.mjs', 'ort-wasm-simd-threaded.asyncify.wasm'];
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
  return { name: 'skycite-ort-assets', buildStart: copy, configureServer: copy };
}

export default defineConfig({
  plugins: [ortAssets(), svelte(), staticIndex(), selfHostedModels(), VitePWA(skyCitePwaOptions())],
  build: { target: 'es2022', sourcemap: false, chunkSizeWarningLimit: 8000 },
  worker: { format: 'es' },
  preview: { port: 4173, strictPort: false },
  server: { port: 5173 },
});
