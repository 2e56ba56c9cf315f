import { cpSync, existsSync } from 'node:fs';
import { resolve } from 'node:path';
import { svelte } from '@sveltejs/vite-plugin-svelte';
import { defineConfig, type Plugin } from 'vite';

/** Serve and ship the generated static index (static-index/) at /static-index/. */
function staticIndex(): Plugin {
  const dir = resolve('static-index');
  return {
    name: 'skycite-static-index',
    configureServer(server) {
      server.middlewares.use('/static-index', (req, res, next) => {
        const file = resolve(dir, `.${decodeURIComponent((req.url ?? '/').split('?')[0]!)}`);
        if (!file.startsWith(dir) || !existsSync(file)) return next();
        res.setHeader('Cache-Control', 'no-cache');
        import('node:fs').then(({ createReadStream }) => createReadStream(file).pipe(res));
      });
    },
    closeBundle() {
      if (existsSync(dir)) cpSync(dir, resolve('dist/static-index'), { recursive: true });
    },
  };
}

export default defineConfig({
  plugins: [svelte(), staticIndex()],
  build: { target: 'es2022', sourcemap: false },
  worker: { format: 'es' },
  preview: { port: 4173, strictPort: false },
});
