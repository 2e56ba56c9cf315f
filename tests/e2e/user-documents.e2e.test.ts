/**
 * End-to-end: the user's own documents in the production build (Chromium). Invalid form
 * values, a file that is not a PDF, a PDF without text and a password-protected PDF are refused with what to do; a
 * small text file is added in the Library, a question only it answers cites it, it is still
 * found after an offline reload (IndexedDB + service worker), a generated PDF (pdf-lib) is
 * read by pdfjs and its page cited for a German question, and both are removed. No request
 * leaves the app's origin.
 */
import { readFileSync } from 'node:fs';
import { join } from 'node:path';
import { afterAll, beforeAll, describe, expect, it } from 'vitest';
import type { Browser, Page } from 'playwright-core';
import { PDFDocument, StandardFonts } from 'pdf-lib';
import { answered, foreignRequests, launchChromium, reloadOffline } from './browser.js';
import { serveDist, type StaticServer } from './static-server.js';

const TEXT = [
  'Hangar seven house rules',
  '',
  'Battery charging',
  '',
  'Drone batteries shall be charged only inside the fireproof locker of hangar seven, never on the workshop benches. The duty mechanic signs the charging log after every charge.',
].join('\n');
const QUESTION = 'Where shall drone batteries be charged in hangar seven?';
const TITLE = 'Hangar seven house rules';

/** A two-page PDF with a text layer, a stand-in for a national guidance document: its title printed larger, numbered headings. */
async function guidancePdf(): Promise<Buffer> {
  const pdf = await PDFDocument.create();
  const font = await pdf.embedFont(StandardFonts.Helvetica);
  const lines: [number, string][][] = [
    [
      [20, 'Rooftop landing guidance'],
      [15, '1 Scope'],
      [12, 'This guidance applies to drone operators in Germany.'],
    ],
    [
      [15, '2 Rooftop landings'],
      [12, 'A drone may land on a hospital rooftop only after the building'],
      [12, 'manager has switched off the rooftop ventilation fans.'],
    ],
  ];
  for (const page of lines) {
    const p = pdf.addPage([595, 842]);
    let y = 780;
    page.forEach(([size, text], i) => {
      y -= i === 0 ? 0 : size > 12 || page[i - 1]![0] > 12 ? 30 : 16;
      p.drawText(text, { x: 50, y, size, font });
    });
  }
  return Buffer.from(await pdf.save());
}

/** A PDF whose page has no text layer (as a scanned page). */
async function blankPdf(): Promise<Buffer> {
  const pdf = await PDFDocument.create();
  pdf.addPage([595, 842]).drawRectangle({ x: 50, y: 50, width: 200, height: 100 });
  return Buffer.from(await pdf.save());
}

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

async function verified(page: Page): Promise<void> {
  await page
    .getByTestId('index-status')
    .filter({ hasText: /verified/i })
    .waitFor({ timeout: 240_000 });
}

/** Ask on the Ask view; the source ids of the answer. */
async function askForSources(page: Page, question: string): Promise<{ ids: string[]; lines: string }> {
  await page.goto(`${server.url}?device=wasm#/ask`);
  await verified(page);
  await page.getByTestId('question-input').fill(question);
  await page.getByTestId('ask-submit').click();
  const turn = page.getByTestId('turn').last();
  await answered(turn);
  const items = turn.locator('[data-testid="source-item"], [data-testid="source-item-uncited"]');
  return { ids: await items.evaluateAll((els) => els.map((e) => e.getAttribute('data-chunk-id') ?? '')), lines: (await items.allTextContents()).join(' ') };
}

describe('your own documents in Chromium (production build)', () => {
  it('refuses bad files and values, adds a text document in the Library, cites it, finds it after an offline reload, adds a PDF whose page a German question cites, exports it and imports it back, and removes both', async () => {
    const context = await browser.newContext();
    const foreign = foreignRequests(context, server.url);
    const page = await context.newPage();
    page.on('pageerror', (e) => console.error('[page error]', e.message));
    await page.goto(`${server.url}?device=wasm#/library`);
    await verified(page);
    await page.getByTestId('userdoc-none').waitFor();

    // invalid values: each field says what to enter, nothing is added
    await page.getByTestId('userdoc-file').setInputFiles({ name: 'hangar-rules.txt', mimeType: 'text/plain', buffer: Buffer.from(TEXT) });
    await page.getByTestId('userdoc-title').fill(' ');
    await page.getByTestId('userdoc-jurisdiction').fill('Bundesrepublik Deutschland');
    await page.getByTestId('userdoc-add').click();
    const fieldErrors = (await page.getByTestId('userdoc-field-error').allTextContents()).join(' ');
    expect(fieldErrors).toMatch(/Give the document a title/);
    expect(fieldErrors).toMatch(/“Bundesrepublik Deutschland” is not a jurisdiction/);
    expect(fieldErrors).toMatch(/edition or date/);
    expect(await page.getByTestId('userdoc').count()).toBe(0);

    // a file that is not a PDF, and a PDF without a text layer (a scan): a clear message, nothing added
    await page.getByTestId('userdoc-jurisdiction').fill('DE');
    await page.getByTestId('userdoc-edition').fill('2025-06');
    await page.getByTestId('userdoc-file').setInputFiles({ name: 'renamed.pdf', mimeType: 'application/pdf', buffer: Buffer.from('this is not a PDF') });
    await page.getByTestId('userdoc-add').click();
    await page
      .getByTestId('userdoc-error')
      .filter({ hasText: /not a readable PDF/ })
      .waitFor({ timeout: 60_000 });
    await page.getByTestId('userdoc-file').setInputFiles({ name: 'scan.pdf', mimeType: 'application/pdf', buffer: await blankPdf() });
    await page.getByTestId('userdoc-add').click();
    await page
      .getByTestId('userdoc-error')
      .filter({ hasText: /no text .* OCR/ })
      .waitFor({ timeout: 60_000 });
    // a password-protected PDF (tests/fixtures/make-encrypted-pdf.py)
    await page
      .getByTestId('userdoc-file')
      .setInputFiles({ name: 'protected.pdf', mimeType: 'application/pdf', buffer: readFileSync(join('tests', 'fixtures', 'encrypted.pdf')) });
    await page.getByTestId('userdoc-add').click();
    await page
      .getByTestId('userdoc-error')
      .filter({ hasText: /password-protected \(encrypted\)\. Save an unprotected copy/ })
      .waitFor({ timeout: 60_000 });
    expect(await page.getByTestId('userdoc').count()).toBe(0);

    await page.getByTestId('userdoc-file').setInputFiles({ name: 'hangar-rules.txt', mimeType: 'text/plain', buffer: Buffer.from(TEXT) });
    await page.getByTestId('userdoc-title').fill(TITLE);
    await page.getByTestId('userdoc-add').click();
    const item = page.getByTestId('userdoc');
    await item.waitFor({ timeout: 120_000 });
    expect(await item.textContent()).toMatch(/DE · 2025-06 · no pages · \d+ passages? · hangar-rules\.txt/);
    await expect(page.getByTestId('userdoc-done').textContent()).resolves.toMatch(/Added “Hangar seven house rules”/);
    // it is in the Library's documents too
    await page.locator(`[data-testid="library-document"][data-doc-id="user/hangar-seven-house-rules"]`).waitFor();

    const first = await askForSources(page, QUESTION);
    expect(first.ids[0]).toMatch(/^user\/hangar-seven-house-rules\//);
    expect(first.lines).toContain(TITLE);

    // offline reload: the app from the service worker, the document from IndexedDB
    await reloadOffline(page, context);
    const again = await askForSources(page, QUESTION);
    expect(again.ids[0]).toMatch(/^user\/hangar-seven-house-rules\//);

    // a PDF (read by pdfjs in its worker, offline too): a German question cites its page
    await page.goto(`${server.url}?device=wasm#/library`);
    await verified(page);
    await page.getByTestId('userdoc-file').setInputFiles({ name: 'rooftops.pdf', mimeType: 'application/pdf', buffer: await guidancePdf() });
    // the title printed in the PDF, not the file name
    await expect.poll(() => page.getByTestId('userdoc-title').inputValue(), { timeout: 60_000 }).toBe('Rooftop landing guidance');
    await page.getByTestId('userdoc-jurisdiction').fill('de');
    await page.getByTestId('userdoc-edition').fill('2025-06');
    await page.getByTestId('userdoc-add').click();
    await page.locator('[data-testid="userdoc"][data-doc-id="user/rooftop-landing-guidance"]').waitFor({ timeout: 120_000 });
    expect(await page.locator('[data-testid="userdoc"][data-doc-id="user/rooftop-landing-guidance"]').textContent()).toMatch(/DE · 2025-06 · pages 1–2/);
    const pdfHit = await askForSources(page, 'In Germany, when may a drone land on a hospital rooftop with ventilation fans?');
    expect(pdfHit.ids[0]).toMatch(/^user\/rooftop-landing-guidance\//);
    // the passage of its section, on its page, labelled as the user's own (not as regulatory text)
    expect(pdfHit.lines).toMatch(/2 Rooftop landings\s*your document · DE.*Rooftop landing guidance · page 2/);
    expect(await page.getByTestId('turn').last().getByTestId('turn-route').textContent()).toBe('From your documents');
    expect(await page.getByTestId('turn').last().getByTestId('evidence-own').first().textContent()).toBe('your document · DE');
    // "In Germany" filters to DE: only the German documents (both are the user's) are searched
    expect(pdfHit.ids.every((id) => id.startsWith('user/'))).toBe(true);

    // export → remove → import the file back: the same document, pages and passages; a second import is refused as a duplicate
    await page.goto(`${server.url}?device=wasm#/library`);
    await verified(page);
    const rooftop = page.locator('[data-testid="userdoc"][data-doc-id="user/rooftop-landing-guidance"]');
    const before = await rooftop.textContent();
    const [download] = await Promise.all([page.waitForEvent('download'), rooftop.getByTestId('userdoc-export').click()]);
    expect(download.suggestedFilename()).toBe('rooftop-landing-guidance.skycite.json');
    const exported = readFileSync((await download.path())!);
    await rooftop.getByTestId('userdoc-remove').click();
    await expect.poll(() => rooftop.count(), { timeout: 60_000 }).toBe(0);
    await page
      .getByTestId('userdoc-import-file')
      .setInputFiles({ name: 'notes.json', mimeType: 'application/json', buffer: Buffer.from('{"title": "not an export"}') });
    await page.getByTestId('userdoc-import').click();
    await page
      .getByTestId('userdoc-error')
      .filter({ hasText: /notes\.json: not a document exported by SkyCite/ })
      .waitFor({ timeout: 60_000 });
    await page
      .getByTestId('userdoc-import-file')
      .setInputFiles({ name: 'rooftop-landing-guidance.skycite.json', mimeType: 'application/json', buffer: exported });
    await page.getByTestId('userdoc-import').click();
    await rooftop.waitFor({ timeout: 120_000 });
    expect(await rooftop.textContent()).toBe(before);
    await expect(page.getByTestId('userdoc-done').textContent()).resolves.toMatch(/Imported “Rooftop landing guidance”/);
    await page.getByTestId('userdoc-import-file').setInputFiles({ name: 'again.skycite.json', mimeType: 'application/json', buffer: exported });
    await page.getByTestId('userdoc-import').click();
    await page
      .getByTestId('userdoc-error')
      .filter({ hasText: /“Rooftop landing guidance” \(2025-06, DE\) is already among your documents/ })
      .waitFor({ timeout: 60_000 });
    const reimported = await askForSources(page, 'In Germany, when may a drone land on a hospital rooftop with ventilation fans?');
    expect(reimported.ids[0]).toMatch(/^user\/rooftop-landing-guidance\//);

    await page.goto(`${server.url}?device=wasm#/library`);
    await verified(page);
    for (const n of [2, 1]) {
      await page.getByTestId('userdoc-remove').first().click();
      await expect.poll(() => page.getByTestId('userdoc').count(), { timeout: 60_000 }).toBe(n - 1);
    }
    await page.getByTestId('userdoc-none').waitFor({ timeout: 60_000 });
    const after = await askForSources(page, QUESTION);
    expect(after.ids.some((id) => id.startsWith('user/'))).toBe(false);
    await context.close();
    expect(foreign).toEqual([]);
  });
});
