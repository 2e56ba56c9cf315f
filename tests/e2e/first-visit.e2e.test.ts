/**
 * Issue 33 item 4, in the production build: on a first visit the Ask view offers the full offline
 * package (the downloadable retrieval model this deployment serves) as the recommended choice beside
 * the light built-in model, with its size from the served model folder's manifest and its licence;
 * with Save-Data on, or on a cellular connection (both emulated through navigator.connection), the full
 * package is neither recommended nor preselected and the card says why; a choice is remembered, and
 * nothing is downloaded before it. The deployment here serves EmbeddingGemma's vector-set list and
 * model folder manifest (answered by the test server: the 140 MB model itself is never fetched).
 */
import { afterAll, beforeAll, describe, expect, it } from 'vitest';
import type { Browser, BrowserContext, Page } from 'playwright-core';
import { EMBEDDER_SPECS, EMBEDDING_GEMMA_ID } from '../../src/core/embedding/models.js';
import { formatBytes } from '../../src/ui/format.js';
import { launchChromium } from './browser.js';
import { serveDist, type StaticServer } from './static-server.js';

const SET_BYTES = 7_940_352;
/** The served folder's sizes (a build smaller than the spec's figure, so that the card's size is seen to come from here). */
const FOLDER_BYTES: Record<string, number> = {
  'config.json': 1_486,
  'tokenizer.json': 6_062_311,
  'tokenizer_config.json': 7_791,
  'onnx/model_quantized.onnx': 110_000_000,
};
const EXPECTED_SIZE = formatBytes(EMBEDDER_SPECS[EMBEDDING_GEMMA_ID]!.files.reduce((n, f) => n + FOLDER_BYTES[f]!, 0) + SET_BYTES);
const ONNX = `/models/${EMBEDDING_GEMMA_ID}/onnx/model_quantized.onnx`;

let server: StaticServer;
let browser: Browser;

beforeAll(async () => {
  const overrides = new Map<string, Buffer | null>([
    [
      '/static-index/vector-sets.json',
      Buffer.from(JSON.stringify({ sets: [{ id: EMBEDDING_GEMMA_ID, dir: 'vectors/google--embeddinggemma-300m', bytes: SET_BYTES }] })),
    ],
    [
      `/models/${EMBEDDING_GEMMA_ID}/manifest.json`,
      Buffer.from(JSON.stringify({ model: EMBEDDING_GEMMA_ID, files: Object.fromEntries(Object.entries(FOLDER_BYTES).map(([f, bytes]) => [f, { bytes }])) })),
    ],
  ]);
  server = await serveDist(undefined, {}, overrides);
  browser = await launchChromium();
});

afterAll(async () => {
  await browser?.close();
  await server?.close();
});

async function open(context: BrowserContext): Promise<Page> {
  const page = await context.newPage();
  page.on('pageerror', (e) => console.error('[page error]', e.message));
  await page.goto(`${server.url}?device=wasm#/ask`);
  await page
    .getByTestId('index-status')
    .filter({ hasText: /verified/i })
    .waitFor({ timeout: 240_000 });
  return page;
}

/** navigator.connection as a browser reports it on Save-Data or a cellular connection. */
async function emulateConnection(context: BrowserContext, connection: { saveData: boolean; type: string }): Promise<void> {
  await context.addInitScript((c) => {
    const info = Object.assign(new EventTarget(), c);
    Object.defineProperty(Navigator.prototype, 'connection', { configurable: true, get: () => info });
  }, connection);
}

for (const viewport of [
  { width: 768, height: 1024 },
  { width: 1024, height: 768 },
]) {
  describe(`the first visit's choice of the search model at ${viewport.width}×${viewport.height}`, () => {
    it('offers the full offline package as the recommended, preselected choice beside the light one, with its size and licence, and remembers the choice', async () => {
      const context = await browser.newContext({ viewport });
      const page = await open(context);
      const card = page.locator('[data-testid="retrieval-offer"][data-state="choice"]');
      await card.waitFor({ timeout: 60_000 });
      expect(await card.isVisible()).toBe(true);
      expect(await card.getByTestId('retrieval-choice').getAttribute('data-recommended')).toBe('full');
      const full = card.getByTestId('retrieval-choice-full');
      await expect(full.innerText()).resolves.toMatch(/Full offline package \(recommended\): better answers for questions in your own words/);
      await expect(full.getByTestId('retrieval-offer-size').innerText()).resolves.toBe(EXPECTED_SIZE);
      await expect(full.getByTestId('retrieval-offer-licence').innerText()).resolves.toBe('Gemma Terms of Use');
      expect(await full.locator('input').isChecked()).toBe(true);
      await expect(card.getByTestId('retrieval-choice-light').innerText()).resolves.toMatch(/Light \(built in, already here\)/);
      expect(await card.getByTestId('retrieval-offer-constraint').count()).toBe(0);
      // plain words outside Technical details
      const technical = await card.locator('details').innerText();
      expect((await card.innerText()).replace(technical, '')).not.toMatch(/EmbeddingGemma|retrieval model|vector|ONNX|WASM/);
      for (const el of [
        full,
        card.getByTestId('retrieval-choice-light'),
        card.getByTestId('retrieval-offer-confirm'),
        card.getByTestId('retrieval-offer-not-now'),
      ])
        expect((await el.boundingBox())!.height).toBeGreaterThanOrEqual(44);
      await expect(card.getByTestId('retrieval-offer-confirm').innerText()).resolves.toBe(`Download (${EXPECTED_SIZE})`);

      // the light model chosen: nothing downloaded, not asked again after a reload
      await card.getByTestId('retrieval-choice-light').click();
      await card.getByTestId('retrieval-offer-confirm').click();
      await expect.poll(() => page.getByTestId('retrieval-offer').count()).toBe(0);
      await page.reload();
      await page
        .getByTestId('index-status')
        .filter({ hasText: /verified/i })
        .waitFor({ timeout: 240_000 });
      // (the models on offer are known once Settings lists them)
      await page.evaluate(() => (location.hash = '#/settings'));
      await page.locator(`[data-testid="retrieval-model-offer"][data-model="${EMBEDDING_GEMMA_ID}"]`).waitFor({ timeout: 60_000 });
      await expect(page.getByTestId('retrieval-model-switch').innerText()).resolves.toMatch(/Download \(.+\) and use it/);
      await page.evaluate(() => (location.hash = '#/ask'));
      await page.getByTestId('composer').waitFor();
      expect(await page.getByTestId('retrieval-offer').count()).toBe(0);
      expect(server.served.get(ONNX) ?? 0).toBe(0);
      await context.close();
    });

    const constrained = viewport.width === 768 ? { saveData: true, type: 'wifi' } : { saveData: false, type: 'cellular' };
    const why = constrained.saveData
      ? /Save-Data is on in this browser: download it later on Wi-Fi/
      : /You are on a metered connection: download it later on Wi-Fi/;
    it(`neither recommends nor preselects the full package ${constrained.saveData ? 'with Save-Data on' : 'on a cellular connection'}, and says why`, async () => {
      const context = await browser.newContext({ viewport });
      await emulateConnection(context, constrained);
      const page = await open(context);
      const card = page.locator('[data-testid="retrieval-offer"][data-state="choice"]');
      await card.waitFor({ timeout: 60_000 });
      expect(await card.getByTestId('retrieval-choice').getAttribute('data-recommended')).toBe('none');
      await expect(card.getByTestId('retrieval-choice-full').innerText()).resolves.not.toMatch(/recommended/);
      expect(await card.getByTestId('retrieval-choice-full').locator('input').isChecked()).toBe(false);
      expect(await card.getByTestId('retrieval-choice-light').locator('input').isChecked()).toBe(true);
      await expect(card.getByTestId('retrieval-offer-constraint').innerText()).resolves.toMatch(why);
      // still offered, with its size: the user may take it all the same
      await expect(card.getByTestId('retrieval-offer-size').innerText()).resolves.toBe(EXPECTED_SIZE);
      expect(server.served.get(ONNX) ?? 0).toBe(0);
      await context.close();
    });
  });
}
