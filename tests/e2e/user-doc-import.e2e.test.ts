/**
 * End-to-end (issue 27, item 2): a long import in the production build, in Chromium on WASM (the
 * runtime worker embeds on one thread). A question asked while a document is being embedded is
 * answered while the import is still running; the Library shows the time left and Cancel, and a
 * cancelled import stores nothing (not even after a reload); a 29 MB text file is refused at once
 * with the limit, which the form states before any import.
 */
import { afterAll, beforeAll, describe, expect, it } from 'vitest';
import type { Browser, Page } from 'playwright-core';
import { answered, launchChromium } from './browser.js';
import { serveDist, type StaticServer } from './static-server.js';

/** About 100,000 characters of a manual (≈ 40 pages): well over a minute of embedding on WASM. */
const MANUAL = Array.from(
  { length: 240 },
  (_, i) =>
    `Procedure ${i + 1}: survey of area ${i + 1}\n\nBefore survey flight ${i + 1} the remote pilot checks the battery charge, the propellers and the geofence of area ${i + 1}, ` +
    `and the observer confirms that no crewed aircraft is approaching. The flight stays below 120 metres and at least 50 metres from uninvolved people; ` +
    `after landing the logbook entry ${i + 1} is completed, signed and kept for two years.`,
).join('\n\n');
const QUESTION = 'Which operational category applies to a flight over assemblies of people?';

let server: StaticServer;
let browser: Browser;

beforeAll(async () => {
  server = await serveDist();
  browser = await launchChromium();
});

afterAll(async () => {
  await browser?.close();
  await server?.close();
});

const verified = (page: Page) =>
  page
    .getByTestId('index-status')
    .filter({ hasText: /verified/i })
    .waitFor({ timeout: 240_000 });

async function chooseFile(page: Page, name: string, buffer: Buffer): Promise<void> {
  await page.getByTestId('userdoc-file').setInputFiles({ name, mimeType: 'text/plain', buffer });
  await page.getByTestId('userdoc-title').fill('Survey manual');
  await page.getByTestId('userdoc-jurisdiction').fill('DE');
  await page.getByTestId('userdoc-edition').fill('2025-01');
}

describe('a long import in Chromium (production build)', () => {
  it('answers a question during the import, cancels it with nothing stored, and refuses a 29 MB text at once', async () => {
    const context = await browser.newContext();
    const page = await context.newPage();
    page.on('pageerror', (e) => console.error('[page error]', e.message));
    await page.goto(`${server.url}?device=wasm#/library`);
    await verified(page);
    await page.getByTestId('userdoc-none').waitFor();
    // every file picker and button of "Your documents" is a touch target of at least 44 × 44 CSS px
    // (WCAG 2.5.5), the file pickers' "Choose files" button drawn as a button (border, padding)
    const targets = await page.evaluate(() => {
      const section = document.querySelector('[data-testid="userdoc-file"]')!.closest('section')!;
      return [...section.querySelectorAll<HTMLElement>('input[type="file"], button')].map((el) => {
        const box = el.getBoundingClientRect();
        const picker = el instanceof HTMLInputElement ? getComputedStyle(el, '::file-selector-button') : null;
        return {
          id: el.dataset.testid ?? el.textContent,
          width: box.width,
          height: box.height,
          picker: picker && { minHeight: parseFloat(picker.minHeight), border: parseFloat(picker.borderTopWidth), padding: parseFloat(picker.paddingLeft) },
        };
      });
    });
    expect(targets.filter((t) => t.picker)).toHaveLength(2);
    for (const t of targets) {
      expect(t.width, `${t.id} width`).toBeGreaterThanOrEqual(44);
      expect(t.height, `${t.id} height`).toBeGreaterThanOrEqual(44);
      if (t.picker) expect(t.picker, `${t.id} file button`).toMatchObject({ minHeight: expect.toSatisfy((v: number) => v >= 44) });
      if (t.picker) expect(t.picker.border > 0 && t.picker.padding > 0, `${t.id} file button drawn as a button`).toBe(true);
    }
    // the limits, before any import
    expect(await page.getByTestId('userdoc-limits').textContent()).toMatch(/up to 200,000 characters of text .* in about 5 minutes/);

    await chooseFile(page, 'survey-manual.txt', Buffer.from(MANUAL));
    await page.getByTestId('userdoc-add').click();
    // embedding, with the time left and Cancel
    await page.getByTestId('userdoc-eta').waitFor({ timeout: 120_000 });
    await page.getByTestId('userdoc-cancel').waitFor();
    const progressBefore = await page.getByTestId('userdoc-busy').textContent();

    // a question meanwhile, on the Ask view (the import goes on in the worker)
    await page.getByTestId('nav-ask').click();
    await page.getByTestId('question-input').fill(QUESTION);
    const t = Date.now();
    await page.getByTestId('ask-submit').click();
    const turn = page.getByTestId('turn').last();
    await answered(turn, 60_000);
    const questionMs = Date.now() - t;

    // back in the Library the import is still running: the question did not wait for it
    await page.getByTestId('nav-library').click();
    const busy = page.getByTestId('userdoc-busy');
    expect(await busy.count()).toBe(1);
    const progressAfter = await busy.textContent();
    console.log(
      `[import] question answered in ${questionMs} ms during the import; progress before: ${progressBefore?.trim()} | after: ${progressAfter?.trim()}`,
    );
    expect(questionMs).toBeLessThan(30_000);

    await page.getByTestId('userdoc-cancel').click();
    await page
      .getByTestId('userdoc-done')
      .filter({ hasText: /Cancelled: adding “Survey manual” was stopped\. Nothing of it was stored/ })
      .waitFor({ timeout: 60_000 });
    expect(await page.getByTestId('userdoc').count()).toBe(0);
    expect(await page.getByTestId('userdoc-error').count()).toBe(0);
    // nothing stored on the device either
    await page.reload();
    await verified(page);
    await page.getByTestId('userdoc-none').waitFor();

    // a 29 MB text file: refused at once, saying the limit and why
    await chooseFile(page, 'huge-log.txt', Buffer.alloc(29_000_000, 'a'));
    const t2 = Date.now();
    await page.getByTestId('userdoc-add').click();
    const refused = page.getByTestId('userdoc-field-error').filter({ hasText: /“huge-log\.txt” is 29\.0 MB; a text or Markdown file can be at most 0\.8 MB/ });
    await refused.waitFor({ timeout: 10_000 });
    expect(Date.now() - t2).toBeLessThan(5_000);
    expect(await refused.textContent()).toMatch(/in about 5 minutes\)\. Nothing was added\. Split it/);
    expect(await page.getByTestId('userdoc-busy').count()).toBe(0);
    await context.close();
  });
});
