/**
 * `npm start [-- --host [addr]] [--port N] [--https --cert cert.pem --key key.pem]`: build the
 * static index if it is missing or stale, build the app, and serve it (vite preview).
 *
 * Runs the index build with this Node (not through npx) and Vite through its API, so npm reads its
 * configuration — and prints its configuration warnings — once, not once per step. `--host` serves
 * on the local network (tablets); `--https` with a certificate the tablet trusts gives the secure
 * context the service worker (offline use, installing the app) needs outside localhost — see the
 * README, "Use it on a tablet".
 *
 * The preview server reads vite.config.ts: every response carries the CSP (the workers' scripts
 * included, so the workers run under it), `frame-ancestors 'none'` and `X-Frame-Options: DENY`, the
 * cross-origin isolation headers (COOP/COEP: the retrieval models run on several threads), and a
 * missing data file (e.g. /llm/manifest.json without self-hosted models) is a 404, never index.html.
 * docs/deployment.md shows the same for a static host.
 */
import { spawnSync } from 'node:child_process';
import { existsSync, readFileSync } from 'node:fs';
import { parseArgs } from 'node:util';

class StartArgsError extends Error {
  override name = 'StartArgsError';
}

const USAGE = 'Usage: npm start [-- --host [address]] [--port N] [--https --cert cert.pem --key key.pem]';

function options() {
  // "--host" alone means all interfaces, as with vite preview
  const argv = process.argv.slice(2);
  const i = argv.indexOf('--host');
  if (i >= 0 && (argv[i + 1] === undefined || argv[i + 1]!.startsWith('--'))) argv.splice(i + 1, 0, '0.0.0.0');
  let values;
  try {
    ({ values } = parseArgs({
      args: argv,
      options: {
        host: { type: 'string' },
        port: { type: 'string' },
        https: { type: 'boolean', default: false },
        cert: { type: 'string' },
        key: { type: 'string' },
      },
    }));
  } catch (e) {
    throw new StartArgsError(`${(e as Error).message}. ${USAGE}`);
  }
  const port = values.port === undefined ? undefined : Number(values.port);
  if (port !== undefined && (!Number.isInteger(port) || port <= 0 || port > 65535))
    throw new StartArgsError(`--port needs a port number (1–65535), got "${values.port}". ${USAGE}`);
  let https: { cert: Buffer; key: Buffer } | undefined;
  if (values.https) {
    if (!values.cert || !values.key)
      throw new StartArgsError(`--https needs --cert and --key (PEM files; the README's "Use it on a tablet" shows how to make them). ${USAGE}`);
    for (const f of [values.cert, values.key]) if (!existsSync(f)) throw new StartArgsError(`${f} does not exist. ${USAGE}`);
    https = { cert: readFileSync(values.cert), key: readFileSync(values.key) };
  }
  return { host: values.host, port, https };
}

async function main(): Promise<void> {
  const opts = options();
  // loaded after the arguments are read, so a usage error answers at once
  const [{ build, preview }, { DEFAULT_INDEX_DIR, staleReason }, { modelFile }] = await Promise.all([
    import('vite'),
    import('../node/index-fs.js'),
    import('../node/model.js'),
  ]);
  process.env.NODE_ENV = 'production';
  const reason = staleReason(DEFAULT_INDEX_DIR, modelFile());
  if (reason) {
    console.log(`Static index: ${reason} — building it (npm run index)…`);
    const r = spawnSync(process.execPath, ['--import', 'tsx', 'corpus-build/cli/index.ts'], { stdio: 'inherit', env: process.env });
    if (r.status !== 0) process.exit(r.status ?? 1);
  } else {
    console.log('Static index is current.');
  }
  console.log('Building the app (vite build)…');
  const t0 = performance.now();
  await build({ logLevel: 'warn' });
  console.log(`Built into dist/ in ${((performance.now() - t0) / 1000).toFixed(1)} s.`);
  const server = await preview({
    preview: {
      ...(opts.host ? { host: opts.host } : {}),
      ...(opts.port ? { port: opts.port, strictPort: true } : {}),
      ...(opts.https ? { https: opts.https } : {}),
    },
  });
  server.printUrls();
  if (opts.host && !opts.https) {
    console.log(
      '\nServing over plain HTTP on the network: the app works there, but a browser allows the service worker (offline use, installing the app) only on https:// or on localhost. See the README, "Use it on a tablet".',
    );
  }
}

main().catch((e: unknown) => {
  console.error(e instanceof StartArgsError ? `npm start: ${e.message}` : e);
  process.exit(e instanceof StartArgsError ? 2 : 1);
});
