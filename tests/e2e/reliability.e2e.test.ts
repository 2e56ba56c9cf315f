/**
 * End-to-end reliability (issue 27, items 1, 3, 4 and 9), in Chromium on the production build,
 * each failure reproduced as the tester found it:
 *  - headers: `vite preview` (npm start) sends the CSP with the workers' scripts, so eval and a
 *    request to another origin fail inside the runtime worker; framing is refused; a missing
 *    /llm/manifest.json or index file is a 404, not index.html;
 *  - self-healing (each test in a persistent profile of its own, tests/e2e/profile.ts): garbage written over the precached vectors.f32 and the
 *    embedding model, then a reload online, verifies again; the same offline says what is damaged
 *    in user words and repairs itself once online; Settings → Repair offline copy downloads the
 *    copy again and leaves IndexedDB alone; garbage in the main bundle does not leave a blank page;
 *  - updates: with two tabs open, a new version accepted in one reloads the other (with a notice);
 *    a tab whose lazily loaded chunk is gone reloads itself with a notice;
 *  - truthful status: a 5 MB quota says the offline copy could not be stored; site data cleared
 *    while the app is open says the offline copy was removed.
 */
import { mkdtempSync, readdirSync, readFileSync, rmSync } from 'node:fs';
import { tmpdir } from 'node:os';
import { join, resolve } from 'node:path';
import { afterAll, afterEach, beforeAll, describe, expect, it } from 'vitest';
import type { BrowserContext, Page, Worker } from 'playwright-core';
import { launchPersistentChromium } from './browser.js';
import { openInFreshProfile, verified, type ProfileApp } from './profile.js';
import { serveDist, type StaticServer } from './static-server.js';

const DIST = resolve('dist');
const MY_DOC = 'Hangar rules of the test';
const overrides = new Map<string, Buffer | null>();
let server: StaticServer;
const profiles: string[] = [];

beforeAll(async () => {
  server = await serveDist(DIST, {}, overrides);
});

afterAll(async () => {
  await server?.close();
  for (const p of profiles) rmSync(p, { recursive: true, force: true });
});

const profile = () => {
  const p = mkdtempSync(join(tmpdir(), 'skycite-reliability-'));
  profiles.push(p);
  return p;
};
const asset = (prefix: string) => `/assets/${readdirSync(join(DIST, 'assets')).find((f) => f.startsWith(prefix) && f.endsWith('.js'))!}`;

/** Overwrite every cached copy (any cache) of the files whose path matches, with garbage of the same size; the URLs changed. */
function corrupt(page: Page, pathPattern: string): Promise<string[]> {
  return page.evaluate(async (re) => {
    const changed: string[] = [];
    for (const name of await caches.keys()) {
      const cache = await caches.open(name);
      for (const req of await cache.keys()) {
        if (!new RegExp(re).test(new URL(req.url).pathname)) continue;
        const old = (await cache.match(req))!;
        const size = (await old.clone().arrayBuffer()).byteLength;
        await cache.put(req, new Response(new Uint8Array(size).fill(0x7b), { headers: old.headers }));
        changed.push(req.url);
      }
    }
    return changed;
  }, pathPattern);
}

/** Whether the precached copy of a file matches the SHA-256 of the build's list. */
function intact(page: Page, path: string): Promise<boolean | null> {
  return page.evaluate(async (p) => {
    const name = (await caches.keys()).find((n) => n.startsWith('workbox-precache-v2-'));
    if (!name) return null;
    const cache = await caches.open(name);
    const list = (await (await fetch('precache-integrity.json')).json()) as { entries: { url: string; revision: string | null; integrity: string }[] };
    const e = list.entries.find((x) => `/${x.url}` === p)!;
    const u = new URL(e.url, location.href);
    if (e.revision) u.searchParams.set('__WB_REVISION__', e.revision);
    const res = await cache.match(u.href);
    if (!res) return false;
    const d = new Uint8Array(await crypto.subtle.digest('SHA-256', await res.arrayBuffer()));
    return `sha256-${btoa(String.fromCharCode(...d))}` === e.integrity;
  }, path);
}

describe('headers (vite preview, as npm start serves the app)', () => {
  it('sends the CSP to the workers (eval and a foreign fetch fail in the runtime worker), refuses framing, and 404s missing JSON', async () => {
    const { preview } = await import('vite');
    // a deployment without self-hosted language models (vite.config.ts reads the folder when loaded)
    const saved = process.env['SKYCITE_MODELS_DIR'];
    process.env['SKYCITE_MODELS_DIR'] = profile();
    const pv = await preview({ logLevel: 'silent', preview: { port: 0, host: 'localhost' } }).finally(() => {
      if (saved === undefined) delete process.env['SKYCITE_MODELS_DIR'];
      else process.env['SKYCITE_MODELS_DIR'] = saved;
    });
    const url = pv.resolvedUrls!.local[0]!;
    const context = await launchPersistentChromium(profile());
    try {
      for (const path of ['llm/manifest.json', 'static-index/nothing.json', 'models/none/config.json']) {
        const res = await fetch(new URL(path, url));
        expect(res.status, path).toBe(404);
        expect(res.headers.get('content-type') ?? '', path).not.toContain('text/html');
      }
      const home = await fetch(url);
      expect(home.headers.get('content-security-policy')).toContain("frame-ancestors 'none'");
      expect(home.headers.get('x-frame-options')).toBe('DENY');
      const workerScript = await fetch(new URL(asset('runtime.worker-'), url));
      expect(workerScript.headers.get('content-security-policy')).toContain("script-src 'self' 'wasm-unsafe-eval'");

      const page = await context.newPage();
      const runtimeWorker = page.waitForEvent('worker', { predicate: (w: Worker) => w.url().includes('runtime.worker'), timeout: 60_000 });
      await page.goto(`${url}?device=wasm`);
      const worker = await runtimeWorker;
      // the app works under the policy (the ONNX runtime's wasm compiles with 'wasm-unsafe-eval')
      await verified(page);
      const foreign = `${server.url.replace('localhost', '127.0.0.1')}static-index/manifest.json`;
      const probe = (w: Worker, target: string) =>
        w.evaluate(async (target: string) => {
          // in a task of its own: DevTools' evaluation itself is exempt from the eval check
          const evalResult = await new Promise<string>((done) =>
            setTimeout(() => {
              try {
                done(`ran: ${String((0, eval)('1 + 1'))}`);
              } catch (e) {
                done((e as Error).name);
              }
            }, 0),
          );
          let fetchResult: string;
          try {
            // no-cors: without a CSP this resolves (an opaque response); the policy refuses it before any request
            const r = await fetch(target, { mode: 'no-cors' });
            fetchResult = `fetched (${r.type})`;
          } catch (e) {
            fetchResult = (e as Error).name;
          }
          return { evalResult, fetchResult };
        }, target);
      expect(await probe(worker, foreign)).toEqual({ evalResult: 'EvalError', fetchResult: 'TypeError' });
      expect(server.served.has('/static-index/manifest.json')).toBe(false);

      // the probe's control: the same worker from a server that sends no headers (the test server) runs eval
      const bare = await context.newPage();
      const bareWorker = bare.waitForEvent('worker', { predicate: (w: Worker) => w.url().includes('runtime.worker'), timeout: 60_000 });
      await bare.goto(`${server.url}?device=wasm`);
      expect((await probe(await bareWorker, url)).evalResult).toBe('ran: 2');
    } finally {
      await context.close();
      await pv.close();
    }
  });
});

describe('the offline copy, each test in a persistent profile of its own', () => {
  let app: ProfileApp | null = null;
  let context: BrowserContext;
  let page: Page;

  /** The app in a fresh profile with its offline copy stored (and, with `withDocument`, one document of the user's own). */
  async function stored(options: { withDocument?: boolean } = {}): Promise<void> {
    app = await openInFreshProfile(server.url, { hash: '#/library', offlineReady: true });
    ({ context, page } = app);
    if (!options.withDocument) return;
    // one document of the user's own, which must stay reachable whatever happens to the built-in index
    await page.getByTestId('userdoc-file').setInputFiles({
      name: 'hangar.txt',
      mimeType: 'text/plain',
      buffer: Buffer.from('Hangar rules\n\nBatteries are charged in the fireproof locker only.'),
    });
    await page.getByTestId('userdoc-title').fill(MY_DOC);
    await page.getByTestId('userdoc-jurisdiction').fill('DE');
    await page.getByTestId('userdoc-edition').fill('2025');
    await page.getByTestId('userdoc-add').click();
    await page.getByTestId('userdoc-done').waitFor({ timeout: 120_000 });
  }

  afterEach(async () => {
    overrides.clear();
    await app?.close();
    app = null;
  });

  it('repairs a damaged index file and model online, without the user doing anything', async () => {
    await stored();
    expect(await corrupt(page, '^/static-index/vectors\\.f32$')).toHaveLength(1);
    expect((await corrupt(page, '^/models/.*\\.onnx$')).length).toBeGreaterThan(0);
    expect(await intact(page, '/static-index/vectors.f32')).toBe(false);
    await page.reload();
    await verified(page, 120_000);
    await page
      .getByTestId('reload-notice')
      .filter({ hasText: /downloaded a verified copy/ })
      .waitFor();
    expect(await intact(page, '/static-index/vectors.f32')).toBe(true);
    const modelId = (JSON.parse(readFileSync(join(DIST, 'static-index', 'manifest.json'), 'utf8')) as { model: { id: string } }).model.id;
    expect(await intact(page, `/models/${modelId}/onnx/model_quantized.onnx`)).toBe(true);
  });

  it('offline, says what is damaged in user words (developer hints only in their details) and repairs itself once online', async () => {
    await stored({ withDocument: true });
    await corrupt(page, '^/static-index/vectors\\.f32$');
    await context.setOffline(true);
    await page.reload();
    const repair = page.getByTestId('index-repair').filter({ hasText: /regulation index.*repair itself the next time this device is online/ });
    await repair.waitFor({ timeout: 120_000 });
    const status = page.getByTestId('index-status');
    const visible = await status.evaluate((el) => {
      const c = el.cloneNode(true) as HTMLElement;
      c.querySelectorAll('details').forEach((d) => d.remove());
      return c.textContent ?? '';
    });
    expect(visible).not.toMatch(/npm|git checkout|SHA-256|\.f32/);
    await expect(page.getByTestId('index-error-details').locator('summary').textContent()).resolves.toMatch(/for developers/);
    // the user's own documents and the audit log stay reachable meanwhile
    await page.evaluate(() => (location.hash = '#/library'));
    await page.getByTestId('userdoc').filter({ hasText: MY_DOC }).waitFor({ timeout: 30_000 });
    await page.getByTestId('userdoc-stored-only').waitFor();
    await expect(page.getByTestId('userdoc-export').isEnabled()).resolves.toBe(true);
    await page.evaluate(() => (location.hash = '#/settings'));
    await page.getByTestId('audit-search-input').waitFor({ timeout: 30_000 });
    await context.setOffline(false);
    await verified(page, 120_000);
    expect(await intact(page, '/static-index/vectors.f32')).toBe(true);
  });

  it('Settings → Repair offline copy downloads the copy again and leaves IndexedDB (documents, settings, audit log) alone', async () => {
    await stored({ withDocument: true });
    const dbs = () => page.evaluate(async () => (await indexedDB.databases()).map((d) => d.name).sort());
    const before = await dbs();
    expect(before.length).toBeGreaterThan(0);
    const served = server.served.get('/static-index/chunks.json') ?? 0;
    await page.goto(`${server.url}?device=wasm#/settings`);
    await page.getByTestId('storage-repair').click();
    await page.getByTestId('storage-repair-status').and(page.locator('[data-phase="done"]')).waitFor({ timeout: 120_000 });
    expect(server.served.get('/static-index/chunks.json') ?? 0).toBeGreaterThan(served);
    expect(await dbs()).toEqual(before);
  });

  it('garbage in the main bundle does not leave a blank page', async () => {
    await stored();
    expect(await corrupt(page, '^/assets/index-[^/]+\\.js$')).toHaveLength(1);
    await page.goto(`${server.url}?device=wasm`);
    await page.getByTestId('status-line').waitFor({ timeout: 60_000 });
    expect(await intact(page, asset('index-'))).toBe(true);
  });

  it('a new version accepted in one tab reloads the other tab too, with a notice', async () => {
    await stored();
    const other = await context.newPage();
    await other.goto(`${server.url}?device=wasm`);
    await other.getByTestId('status-line').waitFor();
    // a new deployment: a changed service worker (same files)
    overrides.set('/sw.js', Buffer.concat([readFileSync(join(DIST, 'sw.js')), Buffer.from('\n// next version\n')]));
    try {
      await page.evaluate(async () => (await navigator.serviceWorker.getRegistration())!.update());
      await page.getByTestId('update-banner').waitFor({ timeout: 120_000 });
      await other.getByTestId('update-banner').waitFor({ timeout: 30_000 });
      await page.evaluate(() => ((window as unknown as { oldTab: boolean }).oldTab = true));
      await other.getByTestId('update-reload').click();
      await page.waitForFunction(() => !(window as unknown as { oldTab?: boolean }).oldTab, null, { timeout: 60_000 });
      await page
        .getByTestId('reload-notice')
        .filter({ hasText: /updated in another tab/ })
        .waitFor({ timeout: 30_000 });
      await other
        .getByTestId('reload-notice')
        .filter({ hasText: /updated/ })
        .waitFor({ timeout: 30_000 });
    } finally {
      await other.close();
    }
  });

  it('a tab whose lazily loaded chunk is gone reloads itself with a notice instead of failing', async () => {
    await stored();
    const pdfChunk = asset('pdf-');
    await page.goto(`${server.url}?device=wasm#/library`);
    await verified(page);
    overrides.set(pdfChunk, null);
    const evicted = await page.evaluate(async (p) => {
      let n = 0;
      for (const name of await caches.keys()) {
        const c = await caches.open(name);
        for (const r of await c.keys()) if (new URL(r.url).pathname === p && (await c.delete(r))) n++;
      }
      return n;
    }, pdfChunk);
    expect(evicted).toBe(1);
    await page.evaluate(() => ((window as unknown as { beforeChunk: boolean }).beforeChunk = true));
    await page.getByTestId('userdoc-file').setInputFiles({ name: 'guidance.pdf', mimeType: 'application/pdf', buffer: Buffer.from('%PDF-1.4\n') });
    // choosing a PDF reads it for its title (the PDF reader's chunk loads then); otherwise adding it does
    const reloaded = () =>
      page
        .waitForFunction(() => !(window as unknown as { beforeChunk?: boolean }).beforeChunk, null, { timeout: 15_000 })
        .then(
          () => true,
          () => false,
        );
    if (!(await reloaded())) {
      await page.getByTestId('userdoc-title').fill('Guidance');
      await page.getByTestId('userdoc-jurisdiction').fill('DE');
      await page.getByTestId('userdoc-edition').fill('2025');
      await page.getByTestId('userdoc-add').click();
      await page.waitForFunction(() => !(window as unknown as { beforeChunk?: boolean }).beforeChunk, null, { timeout: 60_000 });
    }
    overrides.delete(pdfChunk);
    await page
      .getByTestId('reload-notice')
      .filter({ hasText: /reloaded/ })
      .waitFor({ timeout: 30_000 });
  });

  it('site data cleared while the app is open: the status says the offline copy was removed', async () => {
    await stored();
    const cdp = await context.newCDPSession(page);
    await cdp.send('Storage.clearDataForOrigin', { origin: new URL(server.url).origin, storageTypes: 'all' });
    await page.evaluate(() => window.dispatchEvent(new Event('focus')));
    await page
      .getByTestId('offline-lost')
      .first()
      .waitFor({ timeout: 30_000 })
      .catch(async (e: unknown) => {
        const state = await page.evaluate(async () => ({
          registration: Boolean(await navigator.serviceWorker.getRegistration()),
          caches: await Promise.all((await caches.keys()).map(async (n) => `${n}: ${(await (await caches.open(n)).keys()).length}`)),
          status: document.querySelector('[data-testid="online-status"]')?.textContent,
        }));
        throw new Error(`${String(e)}; ${JSON.stringify(state)}`);
      });
    await expect(page.getByTestId('offline-problem').textContent()).resolves.toMatch(/cleared/);
    expect(await page.getByTestId('offline-ready').count()).toBe(0);
  });
});

describe('the offline copy on a fresh profile with a 5 MB quota', () => {
  it('says the offline copy could not be stored (not "Saving…" forever)', async () => {
    let origin = '';
    const app = await openInFreshProfile(server.url, {
      before: async (context, page) => {
        origin = new URL(server.url).origin;
        const cdp = await context.newCDPSession(page);
        await cdp.send('Storage.overrideQuotaForOrigin', { origin, quotaSize: 5 * 1024 * 1024 });
      },
    });
    try {
      const { context, page } = app;
      await page.getByTestId('offline-failed').waitFor({ timeout: 180_000 });
      await expect(page.getByTestId('offline-problem').textContent()).resolves.toMatch(/not enough storage space/);
      // space freed: Settings → Repair offline copy stores it, and the status says so
      const cdp = await context.newCDPSession(page);
      await cdp.send('Storage.overrideQuotaForOrigin', { origin });
      await page.evaluate(() => (location.hash = '#/settings'));
      await page.getByTestId('storage-repair').click();
      await page.getByTestId('offline-ready').waitFor({ timeout: 120_000 });
      await page.getByTestId('storage-repair-status').and(page.locator('[data-phase="done"]')).waitFor();
    } finally {
      await app.close();
    }
  });
});
