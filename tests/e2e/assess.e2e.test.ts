/**
 * End-to-end: the "Assess an operation" form, offline, without a generative
 * model: invalid input names the fields; a valid operation gets
 * calculator-backed iGRC / final GRC / SAIL cards citing the tables.
 */
import { afterAll, beforeAll, describe, expect, it } from 'vitest';
import type { Browser } from 'playwright-core';
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

describe('Assess an operation (offline, no model)', () => {
  it('validates the form and returns calculator-backed cards with table citations', async () => {
    const context = await browser.newContext();
    const page = await context.newPage();
    await page.goto(`${server.url}?device=wasm`);
    await page
      .getByTestId('index-status')
      .filter({ hasText: /verified/i })
      .waitFor({ timeout: 240_000 });
    await page.evaluate(async () => {
      await navigator.serviceWorker.ready;
    });
    await page.reload();
    await page.waitForFunction(() => Boolean(navigator.serviceWorker.controller), null, { timeout: 60_000 });
    await context.setOffline(true);
    await page.goto(`${server.url}?device=wasm#/assess`);
    await page
      .getByTestId('index-status')
      .filter({ hasText: /verified/i })
      .waitFor({ timeout: 240_000 });

    // an empty form names the required fields
    await page.getByTestId('assess-run').click();
    await page.getByTestId('assess-error-mtom_category').waitFor();
    await expect(page.getByTestId('assess-error-visual_mode').textContent()).resolves.toMatch(/VLOS|BVLOS/);

    // an invalid number is refused with the field named
    await page.getByTestId('assess-field-characteristic_dimension_m').fill('two metres');
    await page.getByTestId('assess-run').click();
    await page.getByTestId('assess-error-characteristic_dimension_m').waitFor();

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

    const card = (name: string) => page.locator(`[data-testid="assess-card"][data-indicator="${name}"]`);
    await card('sail').waitFor({ timeout: 240_000 });
    // Table 1: 1 m column (≤ 1 m, ≤ 25 m/s), < 50 people/km² → iGRC 3; no mitigations; Table 3: GRC 3, ARC-a → SAIL II
    await expect(card('igrc').getByTestId('assess-card-value').textContent()).resolves.toMatch(/\b3\b/);
    await expect(card('final_grc').getByTestId('assess-card-value').textContent()).resolves.toMatch(/\b3\b/);
    await expect(card('sail').getByTestId('assess-card-value').textContent()).resolves.toMatch(/\bII\b/);
    await expect(card('igrc').textContent()).resolves.toMatch(/Table 1 — Intrinsic ground risk class/);
    await expect(card('sail').textContent()).resolves.toMatch(/Table 3 — SAIL determination/);
    await expect(page.getByTestId('assess-disclaimer').textContent()).resolves.toMatch(/indicative/i);
    await context.close();
  });
});

const LANDSCAPE = { width: 1024, height: 768 };
const PORTRAIT = { width: 768, height: 1024 };

describe('Assess: one reading of the ground, no stale result left unmarked', () => {
  for (const viewport of [PORTRAIT, LANDSCAPE]) {
    it(`at ${viewport.width}×${viewport.height}: "Sparsely populated area" with "< 500" raises nothing; the band is read from the environment; an invalid entry marks the results out of date`, async () => {
      const context = await browser.newContext({ viewport });
      const page = await context.newPage();
      await page.goto(`${server.url}?device=wasm#/assess`);
      await page
        .getByTestId('index-status')
        .filter({ hasText: /verified/i })
        .waitFor({ timeout: 240_000 });
      const card = (name: string) => page.locator(`[data-testid="assess-card"][data-indicator="${name}"]`);

      await page.getByTestId('assess-field-mtom_category').selectOption('below_25kg');
      await page.getByTestId('assess-field-visual_mode').selectOption('VLOS');
      await page.getByTestId('assess-field-ground_environment').selectOption('sparsely_populated');
      await page.getByTestId('assess-field-airspace_type').selectOption('uncontrolled');
      await page.getByTestId('assess-field-max_altitude_category').selectOption('up_to_120m');
      await page.getByTestId('assess-field-characteristic_dimension_m').fill('2 m');
      await page.getByTestId('assess-field-max_speed_ms').fill('108 km/h');

      // before the run: what each result needs, the band read from the environment (Table 2), the residual ARC needed for SAIL
      await expect(page.getByTestId('assess-conversion-max_speed_ms').textContent()).resolves.toContain('108 km/h = 30 m/s');
      await expect(page.getByTestId('assess-needs-sail').textContent()).resolves.toMatch(/Still needed: Residual ARC/);
      await expect(page.getByTestId('assess-needs-igrc').getAttribute('data-ready')).resolves.toBe('true');
      await expect(page.getByTestId('assess-ground-reading').textContent()).resolves.toMatch(
        /band read from the ground environment: < ?500 people\/km² \(Table 2, .*p\. 26\)/,
      );
      await expect(page.locator('label[for="f-residual_arc"]').textContent()).resolves.toMatch(/needed for SAIL/);

      // no band: iGRC and final GRC computed from the Table 2 band, and they say so
      await page.getByTestId('assess-run').click();
      await card('igrc').waitFor({ timeout: 240_000 });
      await expect(card('igrc').getByTestId('assess-card-value').textContent()).resolves.toMatch(/\b5\b/); // Table 1: 3 m / 35 m/s column, < 500 → 5
      await expect(card('igrc').textContent()).resolves.toMatch(/read from the ground environment/);

      // the band Table 2 gives, stated: no disagreement raised
      await page.getByTestId('assess-field-population_band').selectOption('<500');
      await page.getByTestId('assess-field-residual_arc').selectOption('b');
      await page.getByTestId('assess-run').click();
      await card('sail').waitFor({ timeout: 240_000 });
      await expect(card('sail').getByTestId('assess-card-value').textContent()).resolves.toMatch(/\bIV\b/);
      const coherence = await page.getByTestId('assess-coherence').textContent();
      expect(coherence).not.toMatch(/different grounds|sparsely_populated|"<500"/);
      await expect(page.getByTestId('assess-results').getAttribute('data-stale')).resolves.toBe('false');

      // an invalid entry: the field error, and the previous results marked out of date at once
      await page.getByTestId('assess-field-max_speed_ms').fill('0');
      await page.getByTestId('assess-stale').waitFor();
      await expect(page.getByTestId('assess-results').getAttribute('data-stale')).resolves.toBe('true');
      await expect(page.getByTestId('assess-stale').textContent()).resolves.toMatch(/Out of date: .*Maximum speed.*Correct the fields marked/);
      await expect(page.getByTestId('assess-error-max_speed_ms').textContent()).resolves.toMatch(/greater than 0/);
      const notice = await page.getByTestId('assess-stale').boundingBox();
      const sail = await card('sail').boundingBox();
      expect(notice && sail && notice.y < sail.y).toBe(true); // said above the old values

      // a wrong-dimension unit: a precise error; the same value with its unit: current again
      await page.getByTestId('assess-field-max_speed_ms').fill('30 m');
      await expect(page.getByTestId('assess-error-max_speed_ms').textContent()).resolves.toMatch(/"30 m" is a length, not a speed/);
      await page.getByTestId('assess-field-max_speed_ms').fill('30 m/s');
      await expect(page.getByTestId('assess-results').getAttribute('data-stale')).resolves.toBe('false');
      expect(await page.getByTestId('assess-stale').count()).toBe(0);
      await context.close();
    });
  }
});
