/**
 * End-to-end in the production build: Settings offers a second retrieval model when the index
 * has its vector set, downloads it on consent with progress, retrieval switches to it, the
 * choice survives a reload — offline too, from the browser's caches — and the built-in model
 * can be chosen again. The second model here is the base all-MiniLM-L6-v2 (committed, small),
 * whose vector set this test builds into a copy of the static index; EmbeddingGemma takes the
 * same path (`npm run bench:retrieval-model`), but it is not in CI (360 MB, not committed).
 */
import { cpSync, mkdtempSync, rmSync } from 'node:fs';
import { tmpdir } from 'node:os';
import { join } from 'node:path';
import { afterAll, beforeAll, describe, expect, it } from 'vitest';
import type { Browser, Page } from 'playwright-core';
import { buildVectorSet } from '../../corpus-build/build/vector-set.js';
import { DEFAULT_INDEX_DIR, loadIndexFromDir } from '../../corpus-build/node/index-fs.js';
import { modelFile, nodeEmbedder } from '../../corpus-build/node/model.js';
import { MINILM_ID } from '../../src/core/embedding/embedder.js';
import { answered, launchChromium } from './browser.js';
import { serveDist, type StaticServer } from './static-server.js';

let server: StaticServer;
let browser: Browser;
let indexCopy: string;

beforeAll(async () => {
  indexCopy = mkdtempSync(join(tmpdir(), 'skycite-e2e-vs-'));
  cpSync(DEFAULT_INDEX_DIR, indexCopy, { recursive: true });
  // only the set this test builds (a working copy may hold EmbeddingGemma's, `npm run index:vectors`)
  rmSync(join(indexCopy, 'vectors'), { recursive: true, force: true });
  rmSync(join(indexCopy, 'vector-sets.json'), { force: true });
  const embedder = await nodeEmbedder('q8', MINILM_ID);
  await buildVectorSet({ index: await loadIndexFromDir(indexCopy), indexDir: indexCopy, embedder, modelFile: modelFile('q8', MINILM_ID), modelDtype: 'q8' });
  await embedder.dispose?.();
  server = await serveDist(undefined, { '/static-index/': indexCopy });
  browser = await launchChromium();
}, 600_000);

afterAll(async () => {
  await browser?.close();
  await server?.close();
  if (indexCopy) rmSync(indexCopy, { recursive: true, force: true });
});

const verified = (p: Page) =>
  p
    .getByTestId('index-status')
    .filter({ hasText: /verified/i })
    .waitFor({ timeout: 240_000 });
const using = (p: Page, id: string) => p.locator(`[data-testid="retrieval-model-status"][data-model="${id}"]`).waitFor({ state: 'attached', timeout: 240_000 });

async function ask(page: Page, question: string) {
  await page.getByTestId('question-input').fill(question);
  await page.getByTestId('ask-submit').click();
  const turn = page.getByTestId('turn').last();
  await answered(turn);
  return turn;
}

/** In the page: settings.retrievalChoice as stored (src/storage/settings-store.ts, db.ts). */
const storedChoice = () =>
  new Promise<string | null>((resolve) => {
    const open = indexedDB.open('skycite-user');
    open.onerror = () => resolve(null);
    open.onsuccess = () => {
      try {
        const get = open.result.transaction('settings').objectStore('settings').get('user-settings');
        get.onsuccess = () => resolve((get.result as { retrievalChoice?: string | null } | undefined)?.retrievalChoice ?? null);
        get.onerror = () => resolve(null);
      } catch {
        resolve(null);
      }
    };
  });

describe('a second retrieval model (production build)', () => {
  it('is downloaded on consent, used, restored after a reload and offline, and can be switched back', async () => {
    const context = await browser.newContext({ viewport: { width: 1024, height: 768 } });
    const page = await context.newPage();
    page.on('pageerror', (e) => console.error('[page error]', e.message));
    await page.goto(`${server.url}?device=wasm`);
    await verified(page);
    await page.evaluate(async () => void (await navigator.serviceWorker.ready));
    const builtIn = (await page.getByTestId('retrieval-model-status').getAttribute('data-model'))!;
    expect(builtIn).not.toBe(MINILM_ID);

    await page.goto(`${server.url}?device=wasm#/settings`);
    const offer = page.locator(`[data-testid="retrieval-model-offer"][data-model="${MINILM_ID}"]`);
    await offer.waitFor({ timeout: 60_000 });
    // the consent shows the size and the licence before anything is downloaded
    await expect(offer.getByTestId('retrieval-model-size').textContent()).resolves.toMatch(/MB/);
    await expect(offer.getByTestId('retrieval-model-licence').textContent()).resolves.toMatch(/Apache-2\.0/);
    const before = server.served.get(`/static-index/vectors/${MINILM_ID.replace('/', '--')}/vectors.f32`) ?? 0;
    expect(before).toBe(0);
    await offer.getByTestId('retrieval-model-switch').click();
    await using(page, MINILM_ID);
    await expect(page.getByTestId('retrieval-model-active').textContent()).resolves.toMatch(/MiniLM-L6 \(base\)/);
    // ?device=wasm: the downloaded model stays on the CPU, and Settings says so with the reason
    expect(await page.getByTestId('retrieval-model-device').getAttribute('data-device')).toBe('wasm');
    await expect(page.getByTestId('retrieval-model-device').textContent()).resolves.toMatch(/this device's processor/);
    await expect(page.getByTestId('retrieval-model-device').getAttribute('title')).resolves.toMatch(/WASM: forced by \?device=wasm/);
    expect(server.served.get(`/static-index/vectors/${MINILM_ID.replace('/', '--')}/vectors.f32`)).toBeGreaterThan(0);

    // asked with it: passages with citations
    await page.goto(`${server.url}?device=wasm#/ask`);
    await verified(page);
    await using(page, MINILM_ID);
    const turn = await ask(page, 'What is an airspace observer?');
    await expect(turn.getByTestId('evidence-passages').count()).resolves.toBe(1);

    // offline reload: the model and its vectors come from the browser's caches
    await context.setOffline(true);
    await page.reload();
    await verified(page);
    await using(page, MINILM_ID);
    await expect(page.getByTestId('retrieval-model-warning').count()).resolves.toBe(0);
    await context.setOffline(false);

    // back to the built-in one, remembered
    await page.goto(`${server.url}?device=wasm#/settings`);
    await page.getByTestId('retrieval-model-use-builtin').click();
    await using(page, builtIn);
    await page.reload();
    await verified(page);
    await using(page, builtIn);
    await context.close();
  }, 600_000);

  it('is offered on the first visit: downloaded in the background while the built-in model answers, then not offered again; "Decide later" lasts the session, "Light" is kept', async () => {
    const context = await browser.newContext({ viewport: { width: 1024, height: 768 } });
    const page = await context.newPage();
    page.on('pageerror', (e) => console.error('[page error]', e.message));
    await page.goto(`${server.url}?device=wasm#/ask`);
    await verified(page);
    const builtIn = (await page.getByTestId('retrieval-model-status').getAttribute('data-model'))!;
    // offered before any question: the full package recommended and preselected
    const offer = page.locator('[data-testid="retrieval-offer"][data-state="choice"]');
    await offer.waitFor({ timeout: 60_000 });
    await expect(offer.getByTestId('retrieval-offer-size').textContent()).resolves.toMatch(/MB/);
    await expect(offer.getByTestId('retrieval-offer-licence').textContent()).resolves.toBe('Apache-2.0');
    await expect(offer.textContent()).resolves.toMatch(/kept on this device for\s+offline use; nothing is sent anywhere/);
    expect(await offer.getByTestId('retrieval-choice-full').locator('input').isChecked()).toBe(true);
    for (const id of ['retrieval-offer-confirm', 'retrieval-offer-not-now']) {
      expect((await offer.getByTestId(id).boundingBox())!.height, id).toBeGreaterThanOrEqual(44);
    }
    await offer.getByTestId('retrieval-offer-confirm').click();
    // the built-in model answers meanwhile (progress shows while it downloads; it may be too quick here to catch)
    await ask(page, 'What is an airspace observer?');
    await using(page, MINILM_ID);
    const ready = page.getByTestId('retrieval-offer-ready');
    await ready.waitFor({ timeout: 240_000 });
    await expect(ready.textContent()).resolves.toMatch(/Now searching with MiniLM-L6 \(base\)\. Settings → Retrieval model switches back\./);
    await page.getByTestId('retrieval-offer-close').click();
    await expect(page.getByTestId('retrieval-offer').count()).resolves.toBe(0);

    // the choice is kept: after a reload the model is restored and nothing is offered
    await page.reload();
    await verified(page);
    await using(page, MINILM_ID);
    await ask(page, 'What is an airspace observer?');
    await expect(page.getByTestId('retrieval-offer').count()).resolves.toBe(0);
    await context.close();

    // "Decide later" hides it for the session; "Light" for good
    const second = await browser.newContext({ viewport: { width: 1024, height: 768 } });
    const p2 = await second.newPage();
    p2.on('pageerror', (e) => console.error('[page error]', e.message));
    await p2.goto(`${server.url}?device=wasm#/ask`);
    await verified(p2);
    await p2.getByTestId('retrieval-offer-not-now').click();
    await expect(p2.getByTestId('retrieval-offer').count()).resolves.toBe(0);
    await p2.evaluate(() => (location.hash = '#/settings'));
    await p2.locator(`[data-testid="retrieval-model-offer"][data-model="${MINILM_ID}"]`).waitFor({ timeout: 60_000 });
    await p2.evaluate(() => (location.hash = '#/ask'));
    await ask(p2, 'What is an airspace observer?');
    await expect(p2.getByTestId('retrieval-offer').count()).resolves.toBe(0);

    await p2.reload();
    await verified(p2);
    const again = p2.locator('[data-testid="retrieval-offer"][data-state="choice"]');
    await again.waitFor({ timeout: 60_000 });
    await again.getByTestId('retrieval-choice-light').click();
    await again.getByTestId('retrieval-offer-confirm').click();
    // the card closes once the choice is saved (IndexedDB, asynchronous)
    await expect.poll(() => p2.getByTestId('retrieval-offer').count(), { timeout: 10_000 }).toBe(0);
    // the choice is written to IndexedDB asynchronously: reload only once it is stored
    await expect.poll(() => p2.evaluate(storedChoice), { timeout: 30_000 }).toBe('light');

    await p2.reload();
    await verified(p2);
    // the models on offer are known (Settings lists the second one) before the Ask view is checked
    await p2.evaluate(() => (location.hash = '#/settings'));
    await p2.locator(`[data-testid="retrieval-model-offer"][data-model="${MINILM_ID}"]`).waitFor({ timeout: 60_000 });
    await p2.evaluate(() => (location.hash = '#/ask'));
    await ask(p2, 'What is an airspace observer?');
    await expect(p2.getByTestId('retrieval-offer').count()).resolves.toBe(0);
    await expect(p2.getByTestId('retrieval-model-status').getAttribute('data-model')).resolves.toBe(builtIn);
    await second.close();
  }, 600_000);
});
