import { copyFileSync, createReadStream, existsSync, mkdirSync, cpSync, statSync } from 'node:fs';
import { resolve } from 'node:path';
import { svelte } from '@sveltejs/vite-plugin-svelte';
import { defineConfig, type Plugin } from 'vite';
import { VitePWA } from 'vite-plugin-pwa';
import { readFileSync } from 'node:fs';
import { skyCitePwaOptions } from './src/pwa/pwa-config.js';
import { RERANKER_ID } from './src/core/retrieval/reranker-id.js';

/** Precache the embedder the built index names and the reranker; other model folders are not part of the first load. */
function modelFolders(): string[] | undefined {
  const manifest = resolve('static-index/manifest.json');
  if (!existsSync(manifest)) return undefined;
  const id = (JSON.parse(readFileSync(manifest, 'utf8')) as { model?: { id?: string } }).model?.id;
  return id ? [id, RERANKER_ID] : undefined;
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
  plugins: [ortAssets(), svelte(), staticIndex(), VitePWA(skyCitePwaOptions({ modelFolders: modelFolders() }))],
  build: { target: 'es2022', sourcemap: false, chunkSizeWarningLimit: 8000 },
  worker: { format: 'es' },
  preview: { port: 4173, strictPort: false },
  server: { port: 5173 },
});
