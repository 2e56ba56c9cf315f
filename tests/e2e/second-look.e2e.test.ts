/**
 * Issue 26, items 4, 7, 8 and 10, as an inspector meets them on a tablet (production build,
 * 768×1024 and 1024×768; one page per orientation, the checks in the order a visit makes them):
 * wide tables scroll with a cue and the passage dialog keeps a printed table on screen; table labels
 * are the captions as printed; the Library lists the built-in documents first, reads a section
 * through with previous / next; Settings says plainly that the server holds no model, states the
 * memory once and asks before a download on a software adapter; the Ask start screen says what is
 * covered and that it is decision support; the answer keeps its width; one open action per card;
 * the audit export has a readable summary with time zones.
 */
import { readFileSync } from 'node:fs';
import { afterAll, beforeAll, describe, expect, it } from 'vitest';
import type { Browser, BrowserContext, Page } from 'playwright-core';
import { answered, launchChromium } from './browser.js';
import { serveDist, type StaticServer } from './static-server.js';

let server: StaticServer;
let browser: Browser;

const SHOTS = process.env.SKYCITE_SHOTS_DIR; // screenshots to look at, when set

beforeAll(async () => {
  server = await serveDist();
  // WebGPU on: headless Chromium offers its SwiftShader (software, fallback) adapter
  browser = await launchChromium({ webgpu: true });
});

afterAll(async () => {
  await browser?.close();
  await server?.close();
});

async function ready(page: Page): Promise<void> {
  await page
    .getByTestId('index-status')
    .filter({ hasText: /verified/i })
    .waitFor({ timeout: 240_000 });
}

async function shot(page: Page, name: string): Promise<void> {
  if (SHOTS) await page.screenshot({ path: `${SHOTS}/${name}.png` });
}

for (const viewport of [
  { width: 1024, height: 768 },
  { width: 768, height: 1024 },
]) {
  const size = `${viewport.width}×${viewport.height}`;
  describe(`at ${size}`, () => {
    let context: BrowserContext;
    let page: Page;

    beforeAll(async () => {
      context = await browser.newContext({ viewport, acceptDownloads: true });
      page = await context.newPage();
      page.on('pageerror', (e) => console.error('[page error]', e.message));
      await page.goto(server.url);
      await ready(page);
    });

    afterAll(async () => {
      await context?.close();
    });

    it('says on the start screen what the documents cover, what they do not, and that answers are decision support', async () => {
      expect(await page.getByTestId('ask-scope').isVisible()).toBe(true);
      await expect(page.getByTestId('ask-scope').textContent()).resolves.toMatch(/specific category.*SORA 2\.5/s);
      await expect(page.getByTestId('ask-not-covered').textContent()).resolves.toMatch(/open category/);
      await expect(page.getByTestId('ask-decision-support').textContent()).resolves.toMatch(/Decision support.*competent authority/s);
      // the status line's reason reads as one phrase ("WASM (CPU) (…)", no stray ": …")
      await expect(page.getByTestId('device-status').innerText()).resolves.not.toMatch(/\s:/);
      await shot(page, `start-${viewport.width}x${viewport.height}`);
    });

    it('shows the OSO table with a sideways-scroll cue that reaches the SAIL VI column, one open action per card, and the answer its width', async () => {
      await page.getByTestId('question-input').fill('Which OSOs are required at SAIL V and SAIL VI?');
      await page.getByTestId('ask-submit').click();
      const turn = page.getByTestId('turn').last();
      await answered(turn);
      const grid = turn.locator('[data-testid="table-grid"][data-caption^="Table 14"]').first();
      await grid.waitFor({ timeout: 30_000 });
      await grid.scrollIntoViewIfNeeded();
      const box = grid.locator('[role="region"]');
      const wide = await box.evaluate((el) => el.scrollWidth > el.clientWidth + 2);
      if (wide) {
        expect(await grid.getByTestId('scroll-cue').isVisible()).toBe(true);
        await expect(grid.getByTestId('scroll-cue').textContent()).resolves.toMatch(/to the right/);
        await box.evaluate((el) => el.scrollTo({ left: el.scrollWidth }));
        await expect.poll(() => grid.getByTestId('scroll-cue').textContent()).toMatch(/to the left/);
      }
      // after scrolling (or without a need to), the SAIL VI column is inside the box
      const visible = await box.evaluate((el) => {
        const head = [...el.querySelectorAll('th')].find((th) => /^\s*SAIL VI\s*$/.test(th.textContent ?? ''));
        if (!head) return 'no VI column';
        const a = el.getBoundingClientRect();
        const b = head.getBoundingClientRect();
        return b.left >= a.left - 1 && b.right <= a.right + 1
          ? 'visible'
          : `cut off at ${Math.round(a.right)} (column ${Math.round(b.left)}–${Math.round(b.right)})`;
      });
      expect(visible).toBe('visible');
      await shot(page, `oso-${viewport.width}x${viewport.height}`);

      for (const card of await turn.getByTestId('evidence-passage').all()) {
        expect(await card.getByRole('button', { name: /passage/i }).count()).toBe(1);
      }
      expect(await turn.innerText()).not.toMatch(/Show the full passage/);
      if (viewport.width >= 1000) {
        // landscape: the answer column keeps most of the width next to the sources
        const width = await turn.locator('.main-col').evaluate((el) => el.getBoundingClientRect().width);
        expect(width).toBeGreaterThanOrEqual(600);
      } else {
        // portrait: the sources under the answer are a brief list, not the cards again
        const item = turn.getByTestId('source-item').first();
        expect(await item.locator('.section').isVisible()).toBe(false);
      }
    });

    it('lists the built-in documents first, with sections to read through and tables by their printed captions', async () => {
      await page.goto(`${server.url}#/library`);
      await ready(page);
      const docsTop = await page.locator('#docs-h').evaluate((el) => el.getBoundingClientRect().top + scrollY);
      const mineTop = await page.locator('#userdocs-h').evaluate((el) => el.getBoundingClientRect().top + scrollY);
      expect(docsTop).toBeLessThan(mineTop);
      const easa = page.locator('[data-testid="library-document"][data-doc-id="easa-amc-gm-2019-947"]');
      await easa.locator('summary').click();
      expect(await easa.innerText()).not.toMatch(/\bPart \d+\b/);
      // AMC1 Article 11 → Section 4: Read shows its passages in order, with previous / next
      await easa
        .getByRole('button', { name: /Expand AMC1 Article 11/ })
        .first()
        .click();
      const s4 = easa.locator('[data-testid="outline-node"][data-title="Section 4 The SORA process"]').first();
      const read = s4.getByTestId('outline-read').first();
      expect(Number(await read.getAttribute('data-passages'))).toBeGreaterThan(20);
      await read.click();
      const viewer = page.getByTestId('chunk-viewer');
      await expect(viewer.getByTestId('chunk-viewer-position').textContent()).resolves.toMatch(/^Passage 1 of (\d+) · Section 4 The SORA process$/);
      const title = viewer.locator('#viewer-title');
      await expect.poll(() => title.textContent()).not.toMatch(/Loading/);
      const first = await title.textContent();
      expect(await viewer.getByTestId('chunk-viewer-previous').isDisabled()).toBe(true);
      await viewer.getByTestId('chunk-viewer-next').click();
      await expect.poll(() => viewer.getByTestId('chunk-viewer-position').textContent()).toMatch(/^Passage 2 of /);
      // the next passage's own title (not the loading placeholder)
      await expect.poll(async () => ((await title.textContent()) ?? '').replace(/^\s*Loading passage…\s*$/, first ?? '')).not.toBe(first);
      await viewer.getByTestId('chunk-viewer-previous').click();
      await expect.poll(() => title.textContent()).toBe(first);
      await viewer.getByTestId('chunk-viewer-close').click();

      // Annex B: every table under its caption; the number printed twice is said
      const annexB = easa.locator('[data-testid="outline-node"][data-title="Annex B to AMC1 Article 11"]').first();
      await annexB.getByRole('button', { name: /Expand Annex B/ }).click();
      for (const sub of ['B.3 M1(B)', 'B.5 M2']) {
        const node = annexB.locator(`[data-testid="outline-node"][data-title^="${sub}"]`).first();
        if (await node.locator('> .line > .toggle').count()) await node.locator('> .line > .toggle').click();
      }
      const labels = await annexB.getByTestId('outline-table').allTextContents();
      expect(labels.length).toBeGreaterThanOrEqual(5);
      expect(new Set(labels).size).toBe(labels.length);
      expect(labels.every((l) => /^Table B\.\d+ — /.test(l))).toBe(true);
      const m2 = annexB.locator('[data-testid="outline-table"]', { hasText: 'Table B.4 — Level of integrity assessment criteria for M2 mitigation' });
      expect(await m2.count()).toBe(1);
      await expect(annexB.getByTestId('outline-table-note').first().textContent()).resolves.toMatch(/prints the number B\.4/);

      // a criteria table without a typed copy: in the dialog it stays inside the screen, scrolls with a cue, and fits on request
      await annexB.locator('[data-testid="outline-table"]', { hasText: /^Table B\.2 — / }).click();
      await viewer.getByTestId('chunk-table-scroll').waitFor();
      const dialogFits = await viewer.evaluate((d) => d.scrollWidth <= d.clientWidth + 2 && d.getBoundingClientRect().right <= innerWidth);
      expect(dialogFits).toBe(true);
      const region = viewer.getByTestId('chunk-table-scroll').locator('[role="region"]');
      const overflow = () => region.evaluate((el) => el.scrollWidth - el.clientWidth);
      if ((await overflow()) > 2) expect(await viewer.getByTestId('scroll-cue').isVisible()).toBe(true);
      await shot(page, `table-dialog-${viewport.width}x${viewport.height}`);
      // fitted at first where that stays legible, else on request
      const fitButton = viewer.getByTestId('chunk-viewer-fit');
      if ((await fitButton.getAttribute('aria-pressed')) !== 'true') await fitButton.click();
      await expect.poll(overflow).toBeLessThanOrEqual(2);
      await viewer.getByTestId('chunk-viewer-close').click();
      await shot(page, `library-${viewport.width}x${viewport.height}`);
    });

    it('says there is no self-hosted model, states the memory once, and asks before a download on the software adapter', async () => {
      await page.goto(`${server.url}#/settings`);
      await ready(page);
      await page.getByTestId('model-catalog-none').waitFor({ timeout: 30_000 });
      await expect(page.getByTestId('model-catalog-none').textContent()).resolves.toMatch(/No self-hosted model on this server/);
      expect(await page.getByTestId('model-catalog-note').count()).toBe(0);
      await expect(page.getByTestId('device-memory').textContent()).resolves.not.toMatch(/capped/);
      await page.getByTestId('model-software-adapter').waitFor({ timeout: 30_000 });
      const downloads: string[] = [];
      context.on('request', (r) => {
        if (/huggingface|\.wasm$|params_shard|mlc-chat-config/.test(r.url()) && !/\/ort\//.test(r.url())) downloads.push(r.url());
      });
      // a model that does not fit the adapter is listed once with its reason (issue 35: not a card with a disabled button); any other asks first
      const enabled = page.locator('[data-testid="model-load"]:not([disabled])');
      expect((await page.getByTestId('model-load').count()) + (await page.getByTestId('model-unusable').count())).toBeGreaterThan(0);
      expect(await page.locator('[data-testid="model-load"][disabled]').count()).toBe(0);
      if (await enabled.count()) {
        const item = page.getByTestId('model-item').filter({ has: enabled }).first();
        await item.getByTestId('model-load').click();
        await item.getByTestId('model-confirm').waitFor();
        await expect(item.getByTestId('model-confirm').textContent()).resolves.toMatch(/software adapter/);
        await item.getByTestId('model-confirm-cancel').click();
        expect(await item.getByTestId('model-confirm').count()).toBe(0);
      }
      expect(await page.getByTestId('model-progress-card').count()).toBe(0);
      expect(downloads).toEqual([]);

      await page.getByTestId('model-software-adapter').scrollIntoViewIfNeeded();
      await shot(page, `settings-models-${viewport.width}x${viewport.height}`);

      // the audit log: times with their zone, and a readable Markdown summary beside the JSON
      const time = page.getByTestId('audit-item').first().locator('.time');
      await expect(time.textContent()).resolves.toMatch(/UTC|GMT|[A-Z]{3,4}$/);
      const [download] = await Promise.all([page.waitForEvent('download'), page.getByTestId('audit-export-md').click()]);
      expect(download.suggestedFilename()).toMatch(/^skycite-audit-.*\.md$/);
      const md = readFileSync((await download.path())!, 'utf8');
      expect(md).toMatch(/^# SkyCite audit log — summary/);
      expect(md).toContain('Which OSOs are required at SAIL V and SAIL VI?');
      await shot(page, `settings-${viewport.width}x${viewport.height}`);
    });
  });
}
