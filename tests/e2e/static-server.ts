/**
 * A minimal static file server for the production build (dist/), on 127.0.0.1
 * with a random port. Only for tests and benchmarks.
 */
import { createReadStream, existsSync, statSync } from 'node:fs';
import { createServer, type Server } from 'node:http';
import { extname, join, resolve } from 'node:path';

const TYPES: Record<string, string> = {
  '.html': 'text/html; charset=utf-8',
  '.js': 'text/javascript; charset=utf-8',
  '.mjs': 'text/javascript; charset=utf-8',
  '.css': 'text/css; charset=utf-8',
  '.json': 'application/json',
  '.webmanifest': 'application/manifest+json',
  '.wasm': 'application/wasm',
  '.onnx': 'application/octet-stream',
  '.f32': 'application/octet-stream',
  '.i8': 'application/octet-stream',
  '.png': 'image/png',
  '.svg': 'image/svg+xml',
  '.txt': 'text/plain; charset=utf-8',
};

export interface StaticServer {
  url: string;
  /** Bytes sent per path since start (compressed when the gzip copy was sent; a path fetched twice counts twice). */
  served: Map<string, number>;
  /** Size of each path served at least once (each path counted once: the unique download). */
  sizes: Map<string, number>;
  close(): Promise<void>;
}

/**
 * `mounts`: URL prefix → folder served there besides dist/ (the self-hosted models at
 * /llm/, as `vite preview` serves them).
 */
export async function serveDist(
  dir = resolve('dist'),
  mounts: Record<string, string> = {},
  /** Tests: a path's body replaced (a Buffer) or gone (null: 404), as a new deployment would have it. */
  overrides: Map<string, Buffer | null> = new Map(),
  /** Headers sent with every response (e.g. the cross-origin isolation headers, src/pwa/csp.ts ISOLATION_HEADERS); none by default, like a plain static host. */
  headers: Record<string, string> = {},
): Promise<StaticServer> {
  const root = resolve(dir);
  const served = new Map<string, number>();
  const sizes = new Map<string, number>();
  const server: Server = createServer((req, res) => {
    for (const [k, v] of Object.entries(headers)) res.setHeader(k, v);
    const path = decodeURIComponent((req.url ?? '/').split('?')[0]!);
    if (overrides.has(path)) {
      const body = overrides.get(path);
      if (!body) return void res.writeHead(404).end('not found');
      res.writeHead(200, { 'Content-Type': TYPES[extname(path)] ?? 'application/octet-stream', 'Content-Length': body.length, 'Cache-Control': 'no-cache' });
      return void res.end(body);
    }
    const mount = Object.keys(mounts).find((m) => path.startsWith(m));
    const base = mount ? resolve(mounts[mount]!) : root;
    let file = resolve(join(base, mount ? path.slice(mount.length) : path));
    if (!file.startsWith(base)) {
      res.writeHead(403).end();
      return;
    }
    if (existsSync(file) && statSync(file).isDirectory()) file = join(file, 'index.html');
    if (!existsSync(file)) {
      res.writeHead(404).end('not found');
      return;
    }
    // the build's gzip copies (file.gz) go to browsers that accept gzip, as `npm start` serves them
    const gz = /\bgzip\b/.test(String(req.headers['accept-encoding'] ?? '')) && existsSync(`${file}.gz`) ? `${file}.gz` : null;
    const size = statSync(gz ?? file).size;
    served.set(path, (served.get(path) ?? 0) + size);
    sizes.set(path, size);
    res.writeHead(200, {
      'Content-Type': TYPES[extname(file)] ?? 'application/octet-stream',
      'Content-Length': size,
      'Cache-Control': 'no-cache',
      ...(gz ? { 'Content-Encoding': 'gzip', Vary: 'Accept-Encoding' } : {}),
    });
    createReadStream(gz ?? file).pipe(res);
  });
  await new Promise<void>((ok) => server.listen(0, '127.0.0.1', ok));
  const addr = server.address();
  const port = typeof addr === 'object' && addr ? addr.port : 0;
  return {
    // "localhost" (not 127.0.0.1): a secure context, so service workers and WebGPU are allowed
    url: `http://localhost:${port}/`,
    served,
    sizes,
    close: () => new Promise<void>((ok) => server.close(() => ok())),
  };
}
