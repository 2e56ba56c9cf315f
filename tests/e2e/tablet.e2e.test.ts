/**
 * End-to-end, as an inspector on a tablet would use the production build (Debian Chromium,
 * 1024×768 and 768×1024): the embedding device chosen on headless Chromium's SwiftShader adapter,
 * a question typed while the index loads, the SORA tables shown as tables with the cell the
 * calculation read, density words, the evidence taking at least half of the screen, the citation
 * jump in portrait, the language notice, the question length limit, Library excerpts, tappable
 * examples, and the Assess view in labels with its answers first.
 */
import { existsSync, readdirSync, readFileSync } from 'node:fs';
import { join } from 'node:path';
import { afterAll, beforeAll, describe, expect, it } from 'vitest';
import type { Browser, BrowserContext, Page } from 'playwright-core';
import { answered, launchChromium } from './browser.js';
import { serveDist, type StaticServer } from './static-server.js';
import { ORT_FILES } from '../../src/runtime/ort-files.js';

let server: StaticServer;
let browser: Browser;

const LANDSCAPE = { width: 1024, height: 768 };
const PORTRAIT = { width: 768, height: 1024 };

async function openApp(context: BrowserContext, query = ''): Promise<Page> {
  const page = await context.newPage();
  page.on('pageerror', (e) => console.error('[page error]', e.message));
  await page.goto(`${server.url}${query}`);
  await page
    .getByTestId('index-status')
    .filter({ hasText: /verified/i })
    .waitFor({ timeout: 240_000 });
  return page;
}

async function ask(page: Page, question: string): Promise<ReturnType<Page['getByTestId']>> {
  await page.getByTestId('question-input').fill(question);
  await page.getByTestId('ask-submit').click();
  const turn = page.getByTestId('turn').last();
  await answered(turn);
  return turn;
}

/** Pixels of the viewport showing the last turn's answer and sources, between the top of the screen and the sticky question box. */
async function evidenceShare(page: Page): Promise<number> {
  return page.evaluate(() => {
    const turns = document.querySelectorAll('[data-testid="turn"]');
    const cols = turns[turns.length - 1]?.querySelector('.columns');
    const composer = document.querySelector('[data-testid="composer"]');
    if (!cols || !composer) return 0;
    const r = cols.getBoundingClientRect();
    const bottom = Math.min(r.bottom, composer.getBoundingClientRect().top, innerHeight);
    return Math.max(0, bottom - Math.max(r.top, 0)) / innerHeight;
  });
}

beforeAll(async () => {
  server = await serveDist();
  // WebGPU on: headless Chromium then offers its SwiftShader (software) adapter to http://localhost pages
  browser = await launchChromium({ webgpu: true });
});

afterAll(async () => {
  await browser?.close();
  await server?.close();
});

describe('the inspector on a tablet (production build)', () => {
  it('runs the search on WASM on the SwiftShader adapter by default, says why in the status line and Settings, and obeys ?device=', async () => {
    // the ONNX Runtime builds the page itself fetched (the service worker's precache left out)
    const ortBuilds = (context: BrowserContext): string[] => {
      const seen: string[] = [];
      context.on('request', (r) => {
        const m = /\/ort\/([^/?#]+\.wasm)$/.exec(r.url());
        if (m && !r.serviceWorker()) seen.push(m[1]!);
      });
      return seen;
    };
    const context = await browser.newContext({ viewport: LANDSCAPE });
    const fetchedByPage = ortBuilds(context);
    const page = await openApp(context);
    expect(fetchedByPage).toEqual(['ort-wasm-simd-threaded.wasm']); // the plain build: no asyncify overhead on WASM
    const device = page.getByTestId('device-status');
    expect(await device.getAttribute('data-device')).toBe('wasm');
    await expect(device.textContent()).resolves.toMatch(/WASM \(CPU\) \(the WebGPU adapter is software\)/);
    // the adapter really is there (Settings' device report says it is a software fallback)
    await page.goto(`${server.url}#/settings`);
    await page
      .getByTestId('index-status')
      .filter({ hasText: /verified/i })
      .waitFor({ timeout: 240_000 });
    await expect(page.getByTestId('device-webgpu').textContent()).resolves.toMatch(/^Yes/);
    await expect(page.getByTestId('settings-search-device').textContent()).resolves.toMatch(/Search runs on this device's processor/);
    await expect(page.getByTestId('settings-search-device-detail').textContent()).resolves.toMatch(/software fallback.*\?device=webgpu forces it/s);
    await context.close();

    const forced = await browser.newContext({ viewport: LANDSCAPE });
    const fetchedForced = ortBuilds(forced);
    const gpu = await openApp(forced, '?device=webgpu');
    expect(fetchedForced).toEqual(['ort-wasm-simd-threaded.asyncify.wasm']); // WebGPU needs the asyncify build
    expect(await gpu.getByTestId('device-status').getAttribute('data-device')).toBe('webgpu');
    await expect(gpu.getByTestId('device-reason').textContent()).resolves.toMatch(/\(forced by \?device=webgpu\)/);
    await forced.close();
  });

  it('queues a question sent with Enter while the index loads, shows it as pending, and answers it when the index is ready', async () => {
    const context = await browser.newContext({ viewport: LANDSCAPE });
    let release!: () => void;
    const gate = new Promise<void>((r) => (release = r));
    // hold the index manifest (fetched by the retrieval worker) until the question is typed
    await context.route('**/static-index/manifest.json', async (route) => {
      await gate;
      await route.continue();
    });
    const page = await context.newPage();
    await page.goto(server.url);
    await page
      .getByTestId('index-status')
      .filter({ hasText: /Loading/ })
      .waitFor();
    await page.getByTestId('question-input').fill('What is an operational authorisation?');
    await page.getByTestId('question-input').press('Enter');
    const turn = page.getByTestId('turn').last();
    await expect(turn.getByTestId('answer').getAttribute('data-phase')).resolves.toBe('queued');
    await expect(turn.getByTestId('turn-phase').textContent()).resolves.toMatch(/Queued/);
    release();
    await answered(turn);
    expect(await page.getByTestId('turn').count()).toBe(1);
    await context.close();
  });

  it('shows the SORA table as a table with the cell the calculation read, reads density words from Table 2 and says where the documents disagree', async () => {
    const context = await browser.newContext({ viewport: LANDSCAPE });
    const page = await openApp(context);
    const turn = await ask(page, 'What is the iGRC of a 1.2 m quadcopter flying 15 m/s over a sparsely populated area?');
    const card = turn.getByTestId('calc-card');
    // Table 2 (p. 26): "Sparsely populated" → < 500; Table 1 (p. 24): row < 500, column 3m / 35 m/s → 5
    await expect(card.locator('[data-target="igrc"] [data-testid="calc-value"]').textContent()).resolves.toBe('5');
    const grid = card.locator('[data-testid="table-grid"][data-caption^="Table 1 — "]');
    await expect(grid.getByTestId('table-cell-used').allTextContents()).resolves.toEqual(['5']);
    expect(await grid.getByTestId('table-cell-used').isVisible()).toBe(true);
    await expect(card.getByTestId('calc-reading-note').allTextContents()).resolves.toEqual([
      expect.stringMatching(/documents disagree.*Table 2 \(p\. 26\).*Form 208.*Form 209/),
    ]);
    // the Table 1 passage among the evidence is a table with the same cell highlighted, not reflowed text
    const tablePassage = turn
      .locator('[data-testid="evidence-passage"][data-layout="grid"]')
      .filter({ has: page.locator('[data-testid="table-grid"][data-caption^="Table 1 — "]') })
      .first();
    await expect(tablePassage.getByTestId('table-cell-used').allTextContents()).resolves.toEqual(['5']);
    await tablePassage.getByTestId('open-passage').click();
    await page.getByTestId('chunk-viewer').waitFor();
    await expect(page.getByTestId('chunk-viewer').getByTestId('table-cell-used').allTextContents()).resolves.toEqual(['5']);
    await page.getByTestId('chunk-viewer-close').click();

    // "remote area": Table 2's < 5 row; "populated area": several rows, no single value
    const remote = await ask(page, 'iGRC for a 0.8 m drone at 20 m/s over a remote area?');
    await expect(remote.locator('[data-target="igrc"] [data-testid="calc-value"]').textContent()).resolves.toBe('2');
    const populated = await ask(page, 'iGRC for a 0.8 m drone at 20 m/s over a populated area?');
    const item = populated.locator('[data-target="igrc"]');
    expect(await item.getAttribute('data-status')).toBe('missing');
    await expect(item.getByTestId('calc-note').first().textContent()).resolves.toMatch(
      /<5000 people\/km² → iGRC 5; <50000 people\/km² → iGRC 6; >50000 people\/km² → iGRC 7/,
    );
    await context.close();
  });

  it('shows a table that has no typed copy as the grid of its printed cells in the card, and in its printed columns in the passage viewer without painting it all', async () => {
    const context = await browser.newContext({ viewport: LANDSCAPE });
    const page = await openApp(context);
    const turn = await ask(page, 'Which robustness results from medium integrity and low assurance?'); // Table 1 — Robustness, integrity and assurance matrix (p. 14)
    const card = turn.locator('[data-testid="evidence-passage"][data-layout="cells"]').first();
    await card.waitFor();
    // issue 35 item 2: a grid of cells that fits the card, not monospace text cut at its edge
    await expect(card.getByTestId('printed-row').first().innerText()).resolves.toMatch(/Low assurance/);
    expect(await card.getByTestId('table-layout').count()).toBe(0);
    await card.getByTestId('open-passage').click();
    const viewer = page.getByTestId('chunk-viewer');
    await viewer.waitFor();
    const pre = viewer.getByTestId('chunk-text');
    expect(await pre.evaluate((el) => getComputedStyle(el).whiteSpace)).toBe('pre');
    expect(await pre.textContent()).toMatch(/ {3,}/); // the printed column gaps are kept
    const marked = await pre.locator('mark').allTextContents();
    expect(marked.join('').length).toBeLessThan(((await pre.textContent()) ?? '').length / 2);
    await context.close();
  });

  for (const viewport of [LANDSCAPE, PORTRAIT]) {
    it(`gives the evidence at least half of a ${viewport.width}×${viewport.height} screen after an answer`, async () => {
      const context = await browser.newContext({ viewport });
      const page = await openApp(context);
      await ask(page, 'What does the contingency volume mean and what must the crew do there?');
      await page.waitForTimeout(300);
      expect(await evidenceShare(page)).toBeGreaterThanOrEqual(0.5);
      await context.close();
    });
  }

  it('scrolls the cited source into view clear of the question box when a citation is tapped in portrait', async () => {
    const context = await browser.newContext({ viewport: PORTRAIT });
    const page = await openApp(context);
    const turn = await ask(page, 'Annex B principles: can the final GRC be lowered below the controlled ground area value?');
    const cites = turn.locator('[data-testid="evidence-passage"] button[data-cite]');
    const n = await cites.count();
    expect(n).toBeGreaterThan(1);
    await cites.nth(n - 1).click();
    const target = turn.locator(`[data-testid="source-item"][data-source-number="${n}"]`);
    await page.waitForTimeout(600);
    const box = await target.boundingBox();
    const composer = await page.getByTestId('composer').boundingBox();
    expect(box).not.toBeNull();
    expect(box!.y).toBeGreaterThanOrEqual(0);
    expect(box!.y + Math.min(box!.height, 60)).toBeLessThanOrEqual(composer!.y);
    expect(await target.locator('button.open').evaluate((el) => el === document.activeElement)).toBe(true);
    await context.close();
  });

  it('says that the documents are in English for a German question, and never shows the retrieval figures as the reason', async () => {
    const context = await browser.newContext({ viewport: LANDSCAPE });
    const page = await openApp(context);
    const turn = await ask(page, 'Welche Anforderungen gelten für den Betrieb einer Drohne über einer Menschenansammlung?');
    await expect(turn.getByTestId('language-notice').textContent()).resolves.toMatch(/English only.*German/);
    expect(await turn.getByTestId('language-notice').isVisible()).toBe(true);
    expect(await turn.innerText()).not.toMatch(/cosine/);
    await context.close();
  });

  it('refuses a question over the length limit with a message, and Enter sends nothing', async () => {
    const context = await browser.newContext({ viewport: LANDSCAPE });
    const page = await openApp(context);
    await page.getByTestId('question-input').fill('What is a SAIL? '.repeat(1300));
    await expect(page.getByTestId('question-too-long').textContent()).resolves.toMatch(/limited to 1,500 characters; this one has 20,799/);
    expect(await page.getByTestId('ask-submit').isDisabled()).toBe(true);
    await page.getByTestId('question-input').press('Enter');
    await page.waitForTimeout(300);
    expect(await page.getByTestId('turn').count()).toBe(0);
    await context.close();
  });

  it('asks an example question when it is tapped, and shows Library results with excerpts of the matched words', async () => {
    const context = await browser.newContext({ viewport: PORTRAIT });
    const page = await openApp(context);
    const example = page.getByTestId('ask-example').first();
    const text = await example.textContent();
    await example.click();
    await answered(page.getByTestId('turn').first());
    await expect(page.getByTestId('turn-question').first().textContent()).resolves.toContain(text!.trim());

    await page.goto(`${server.url}#/library?q=ground%20risk%20buffer`);
    await page.getByTestId('library-results').waitFor({ timeout: 240_000 });
    const first = page.getByTestId('library-result').first();
    await first.getByTestId('library-excerpt').waitFor();
    const marks = (await first.getByTestId('library-excerpt').locator('mark').allTextContents()).map((m) => m.toLowerCase());
    expect(marks).toEqual(expect.arrayContaining(['ground', 'risk']));
    await context.close();
  });

  it('shows Assess errors in labels, the SAIL / final GRC / iGRC cards first, cards without a value collapsed, and no passage ids', async () => {
    const context = await browser.newContext({ viewport: LANDSCAPE });
    const page = await openApp(context, '#/assess');
    await page.getByTestId('assess-field-characteristic_dimension_m').fill('two metres');
    await page.getByTestId('assess-run').click();
    const errors = (await page.locator('.field-error').allTextContents()).join(' ');
    expect(errors).toMatch(/Maximum take-off mass is required: choose one of < 250 g/);
    expect(errors).toMatch(/Maximum characteristic dimension must be a number greater than 0, in metres/);
    expect(errors).not.toMatch(/mtom_category|characteristic_dimension_m|below_250g|allowed:/);

    await page.getByTestId('assess-field-mtom_category').selectOption('below_4kg');
    await page.getByTestId('assess-field-visual_mode').selectOption('VLOS');
    await page.getByTestId('assess-field-ground_environment').selectOption('sparsely_populated');
    await page.getByTestId('assess-field-airspace_type').selectOption('uncontrolled');
    await page.getByTestId('assess-field-max_altitude_category').selectOption('up_to_120m');
    await page.getByTestId('assess-field-characteristic_dimension_m').fill('0.5');
    await page.getByTestId('assess-field-max_speed_ms').fill('15');
    await page.getByTestId('assess-field-population_band').selectOption('<50');
    await page.getByTestId('assess-field-residual_arc').selectOption('a');
    await page.getByTestId('assess-run').click();
    const cards = page.getByTestId('assess-card');
    await page.locator('[data-testid="assess-card"][data-indicator="sail"]').waitFor({ timeout: 240_000 });
    const order = await cards.evaluateAll((els) => els.map((e) => e.getAttribute('data-indicator')));
    expect(order.slice(0, 3)).toEqual(['sail', 'final_grc', 'igrc']);
    const sail = page.locator('[data-testid="assess-card"][data-indicator="sail"]');
    await expect(sail.getByTestId('assess-card-value').textContent()).resolves.toMatch(/\bII\b/);
    await expect(sail.locator('[data-testid="table-grid"][data-caption^="Table 3"] [data-testid="table-cell-used"]').allTextContents()).resolves.toEqual([
      'II',
    ]);
    // the table's numbering note is said in the explanation and under the table, not a third time
    expect((await sail.innerText()).split('cites this table as').length - 1).toBe(2);
    const noValue = page.locator('[data-testid="assess-card"][data-confidence="evidence-only"]');
    expect(await noValue.count()).toBeGreaterThan(0);
    for (const c of await noValue.all()) {
      expect(await c.getByTestId('assess-card-collapsed').getAttribute('open')).toBeNull();
    }
    expect(await page.getByTestId('assess-results').innerText()).not.toMatch(/easa-amc-gm-2019-947\/|skysafe-sora-curated\//);
    await context.close();
  });
});

describe('the build', () => {
  it('ships one copy of each ONNX Runtime build in dist/ (the plain one for WASM, the asyncify one for WebGPU)', () => {
    const wasm: string[] = [];
    const walk = (dir: string) => {
      for (const e of readdirSync(dir, { withFileTypes: true })) {
        if (e.isDirectory()) walk(join(dir, e.name));
        else if (/^ort-wasm.*\.wasm$/.test(e.name)) wasm.push(join(dir, e.name));
      }
    };
    expect(existsSync('dist')).toBe(true);
    walk('dist');
    expect(wasm.sort()).toEqual(
      ORT_FILES.filter((f) => f.endsWith('.wasm'))
        .map((f) => join('dist', 'ort', f))
        .sort(),
    );
  });

  it("leaves WebLLM's bundles out of the first load: not precached, not fetched until a model is chosen", async () => {
    const bundles = readdirSync(join('dist', 'assets')).filter((f) => /^webllm-.*\.js$/.test(f));
    expect(bundles).toEqual([expect.stringMatching(/^webllm-worker-/)]); // web-llm is bundled once, inside the LLM worker
    const sw = readFileSync(join('dist', 'sw.js'), 'utf8');
    const precached = [...sw.matchAll(/\{url:"([^"]+)"/g)].map((m) => m[1]!);
    expect(precached.some((u) => u.startsWith('assets/index-'))).toBe(true);
    for (const b of bundles) expect(precached).not.toContain(`assets/${b}`);
    // a fresh page, with its service worker installed (the precache fetched)
    const context = await browser.newContext({ viewport: LANDSCAPE });
    const page = await openApp(context);
    await page.evaluate(async () => {
      await navigator.serviceWorker.ready;
    });
    // every file any page of this file fetched (the Ask, Assess, Library and Settings tests before
    // this one included: Settings checks for cached models without loading WebLLM)
    const fetched = [...server.sizes.keys()];
    // both builds are precached (the page itself loads the one for its device)
    expect(fetched).toContain('/ort/ort-wasm-simd-threaded.wasm');
    expect(fetched).toContain('/ort/ort-wasm-simd-threaded.asyncify.wasm');
    expect(fetched.filter((p) => p.startsWith('/assets/webllm-'))).toEqual([]);
    // once the service worker controls the page, a bundle fetched (as choosing a model does) is kept
    // in the "webllm/js" cache for offline starts
    await page.reload();
    await page
      .getByTestId('index-status')
      .filter({ hasText: /verified/i })
      .waitFor({ timeout: 240_000 });
    const cached = await page.evaluate(async (file) => {
      if (!navigator.serviceWorker.controller) return ['not controlled'];
      await (await fetch(`assets/${file}`)).text();
      // the service worker stores the response after it has answered the fetch: wait for the entry
      // (up to 15 s; on a loaded machine it has been seen to land after the response was read)
      const cache = await caches.open('webllm/js');
      const keys = async () => (await cache.keys()).map((r) => new URL(r.url).pathname);
      for (let i = 0; i < 150 && !(await keys()).length; i++) await new Promise((r) => setTimeout(r, 100));
      return keys();
    }, bundles[0]!);
    expect(cached).toEqual([`/assets/${bundles[0]}`]);
    await context.close();
  });
});
