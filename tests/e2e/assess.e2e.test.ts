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
    await page.getByTestId('index-status').filter({ hasText: /verified/i }).waitFor({ timeout: 240_000 });
    await page.evaluate(async () => {
      await navigator.serviceWorker.ready;
    });
    await page.reload();
    await page.waitForFunction(() => Boolean(navigator.serviceWorker.controller), null, { timeout: 60_000 });
    await context.setOffline(true);
    await page.goto(`${server.url}?device=wasm#/assess`);
    await page.getByTestId('index-status').filter({ hasText: /verified/i }).waitFor({ timeout: 240_000 });

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
