/**
 * Issue 26, items 3 and 9, and issue 23's "not in these documents", as an inspector meets them
 * (production build, 768×1024 and 1024×768): a question whose rule lives outside these documents is
 * answered first with where it lives, labelled so, before the closest passages; a follow-up is searched
 * with its own words; the conversation and the Assess form come back after a reload.
 */
import { afterAll, beforeAll, describe, expect, it } from 'vitest';
import type { Browser, Page } from 'playwright-core';
import { launchChromium } from './browser.js';
import { serveDist, type StaticServer } from './static-server.js';

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

const ready = (page: Page) =>
  page
    .getByTestId('index-status')
    .filter({ hasText: /verified/i })
    .waitFor({ timeout: 240_000 });

async function ask(page: Page, question: string): Promise<void> {
  const before = await page.getByTestId('turn').count();
  await page.getByTestId('question-input').fill(question);
  await page.getByTestId('ask-submit').click();
  await page.waitForFunction((n) => document.querySelectorAll('[data-testid="turn"]').length > n, before);
  await page.locator('[data-testid="turn"]').last().locator('[data-testid="turn-mode"]').waitFor({ timeout: 60_000 });
}

describe.each([
  [768, 1024],
  [1024, 768],
])('at %i×%i', (width, height) => {
  it('says first that the rule is not in these documents, then keeps the conversation and the form across a reload', async () => {
    const context = await browser.newContext({ viewport: { width, height } });
    const page = await context.newPage();
    await page.goto(`${server.url}?device=wasm#/ask`);
    await ready(page);

    await ask(page, 'How high can I fly my drone in subcategory A1?');
    const turn = page.getByTestId('turn').last();
    await turn.getByTestId('scope-notice').waitFor({ timeout: 30_000 });
    expect(await turn.getByTestId('scope-notice').textContent()).toMatch(/Not in these documents\..*UAS\.OPEN.*not included in these documents/);
    expect(await turn.getByTestId('turn-route').textContent()).toBe('Not in these documents');
    expect(await turn.getByTestId('answer-edition-note').count()).toBe(0);

    await ask(page, 'What does OSO #09 require for the training of the remote crew?');
    await ask(page, 'and at a higher SAIL?');
    expect(await page.getByTestId('turn').count()).toBe(3);

    await page.evaluate(() => (location.hash = '#/assess'));
    await page.getByTestId('assess-form').waitFor();
    await page.getByTestId('assess-field-max_speed_ms').fill('30 m/s');
    await page.waitForTimeout(500); // the form is stored as it is edited

    await page.reload();
    await ready(page);
    expect(await page.getByTestId('assess-field-max_speed_ms').inputValue()).toBe('30 m/s');
    await page.evaluate(() => (location.hash = '#/ask'));
    await page.getByTestId('turn').nth(2).waitFor({ timeout: 30_000 });
    expect(await page.getByTestId('turn').count()).toBe(3);
    expect(await page.getByTestId('turn').first().getByTestId('scope-notice').count()).toBe(1);
    await page.getByTestId('ask-clear').click();
    expect(await page.getByTestId('turn').count()).toBe(0);
    await context.close();
  });
});
