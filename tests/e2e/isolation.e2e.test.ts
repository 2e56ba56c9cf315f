/**
 * Issue 23, item 2 (threads): cross-origin isolation and ONNX Runtime threads in the production build.
 *  - `npm start`'s server (vite preview, vite.config.ts) sends COOP/COEP on every response: the page
 *    and its workers are isolated, the built-in model runs on min(4, cores) threads and still finds
 *    evidence, Settings says how many threads, and the WebLLM worker still loads under isolation.
 *  - A static host that sends no headers: the first visit is single-threaded and Settings says why;
 *    the service worker adds the headers, so the next load is isolated.
 */
import { readdirSync } from 'node:fs';
import { resolve } from 'node:path';
import type { Browser, Page } from 'playwright-core';
import { preview, type PreviewServer } from 'vite';
import { afterAll, beforeAll, describe, expect, it } from 'vitest';
import { launchChromium } from './browser.js';
import { serveDist, type StaticServer } from './static-server.js';

const QUESTION = 'How is the SAIL determined from the final GRC and the residual ARC?';

let vitePreview: PreviewServer;
let previewUrl: string;
let plain: StaticServer;
let browser: Browser;

beforeAll(async () => {
  vitePreview = await preview({ logLevel: 'warn', preview: { port: 0, host: 'localhost' } });
  const addr = vitePreview.httpServer.address();
  previewUrl = `http://localhost:${typeof addr === 'object' && addr ? addr.port : 0}/`;
  plain = await serveDist();
  browser = await launchChromium();
});

afterAll(async () => {
  await browser?.close();
  await plain?.close();
  await vitePreview?.close();
});

const ready = (page: Page) =>
  page
    .getByTestId('index-status')
    .filter({ hasText: /verified/i })
    .waitFor({ timeout: 240_000 });

async function askForEvidence(page: Page): Promise<void> {
  const before = await page.getByTestId('turn').count();
  await page.getByTestId('question-input').fill(QUESTION);
  await page.getByTestId('ask-submit').click();
  await page.getByTestId('turn').nth(before).getByTestId('sources-list').waitFor({ timeout: 120_000 });
}

async function threadsInSettings(page: Page): Promise<{ threads: number; isolated: string | null; text: string }> {
  await page.evaluate(() => (location.hash = '#/settings'));
  const el = page.getByTestId('settings-threads');
  await el.waitFor({ timeout: 60_000 });
  const out = {
    threads: Number(await el.getAttribute('data-threads')),
    isolated: await el.getAttribute('data-isolated'),
    // the thread count and why, under Settings → Device → Technical details (the visible line is plain words)
    text: ((await page.getByTestId('settings-threads-detail').textContent()) ?? '').trim(),
  };
  await page.evaluate(() => (location.hash = '#/ask'));
  return out;
}

describe('cross-origin isolation and ONNX Runtime threads', () => {
  it('npm start: COOP/COEP on every response, an isolated page and workers, the built-in model on threads with evidence, said in Settings', async () => {
    // every kind of file the app loads carries both headers
    const assets = readdirSync(resolve('dist/assets'));
    const webllmWorker = assets.find((f) => /^webllm-worker-.*\.js$/.test(f));
    const pdfWorker = assets.find((f) => /^pdf\.worker\.min-.*\.mjs$/.test(f));
    expect(webllmWorker).toBeTruthy();
    expect(pdfWorker).toBeTruthy();
    for (const path of [
      '',
      'ort/ort-wasm-simd-threaded.mjs',
      'ort/ort-wasm-simd-threaded.wasm',
      'static-index/manifest.json',
      `assets/${webllmWorker}`,
      `assets/${pdfWorker}`,
    ]) {
      const res = await fetch(`${previewUrl}${path}`);
      expect(res.status, path).toBe(200);
      expect(res.headers.get('cross-origin-opener-policy'), path).toBe('same-origin');
      expect(res.headers.get('cross-origin-embedder-policy'), path).toBe('require-corp');
      await res.arrayBuffer();
    }

    const context = await browser.newContext({ viewport: { width: 1024, height: 768 } });
    const page = await context.newPage();
    const problems: string[] = [];
    page.on('pageerror', (e) => problems.push(e.message));
    page.on('console', (m) => /Cross-Origin-Embedder-Policy|Cross-Origin-Resource-Policy|blocked/i.test(m.text()) && problems.push(m.text()));
    context.on('requestfailed', (r) => problems.push(`${r.url()}: ${r.failure()?.errorText}`));
    await page.goto(`${previewUrl}?device=wasm#/ask`);
    await ready(page);
    expect(await page.evaluate(() => globalThis.crossOriginIsolated)).toBe(true);
    const cores = await page.evaluate(() => navigator.hardwareConcurrency);

    await askForEvidence(page);
    const t = await threadsInSettings(page);
    // the count is decided in the runtime worker: more than 1 proves the worker is isolated too
    expect(t.threads).toBe(Math.min(4, cores));
    expect(t.isolated).toBe('true');
    expect(t.text).toMatch(cores > 1 ? /^\d threads \(cross-origin isolated/ : /^single-threaded \(cross-origin isolated/);

    // the WebLLM worker (loaded when a language model is chosen) and pdf.js's (a PDF import) still start under COEP
    for (const file of [webllmWorker, pdfWorker]) {
      const workerError = await page.evaluate(
        (url) =>
          new Promise<string | null>((done) => {
            const w = new Worker(url, { type: 'module' });
            w.onerror = (e) => done(e.message || 'the worker failed to load');
            setTimeout(() => {
              w.terminate();
              done(null);
            }, 3000);
          }),
        `${previewUrl}assets/${file}`,
      );
      expect(workerError, file).toBeNull();
    }
    // a question after the round trip still works
    await askForEvidence(page);
    expect(problems).toEqual([]);
    await context.close();
  });

  it('a static host without headers: single-threaded and said so on the first visit; the service worker isolates the next load', async () => {
    const context = await browser.newContext({ viewport: { width: 1024, height: 768 } });
    const page = await context.newPage();
    await page.goto(`${plain.url}?device=wasm#/ask`);
    await ready(page);
    expect(await page.evaluate(() => globalThis.crossOriginIsolated)).toBe(false);
    const first = await threadsInSettings(page);
    expect(first).toMatchObject({ threads: 1, isolated: 'false' });
    expect(first.text).toMatch(/^single-threaded — this server does not send the cross-origin isolation headers .*docs\/deployment\.md/);
    await askForEvidence(page);

    // once the service worker controls the page, its responses carry COOP/COEP
    await page.evaluate(async () => {
      await navigator.serviceWorker.ready;
    });
    await page.reload();
    await page.waitForFunction(() => Boolean(navigator.serviceWorker.controller), null, { timeout: 60_000 });
    await ready(page);
    expect(await page.evaluate(() => globalThis.crossOriginIsolated)).toBe(true);
    const cores = await page.evaluate(() => navigator.hardwareConcurrency);
    const next = await threadsInSettings(page);
    expect(next).toMatchObject({ threads: Math.min(4, cores), isolated: 'true' });
    await askForEvidence(page);
    await context.close();
  });
});
