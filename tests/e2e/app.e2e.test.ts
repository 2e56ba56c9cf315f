/**
 * End-to-end: the production build in Debian Chromium (playwright-core).
 * Query embedding on WebGPU (SwiftShader) and on WASM give the same top
 * evidence; an evidence-only answer with sources and pages; opening a source
 * shows the passage; offline reload still answers; HTML typed into the question
 * is inert. Each test checks that its own requests all stayed on the app's origin.
 */
import { readFileSync } from 'node:fs';
import { afterAll, beforeAll, describe, expect, it } from 'vitest';
import type { Browser, BrowserContext, Page } from 'playwright-core';
import { answered, launchChromium, reloadOffline } from './browser.js';
import { serveDist, type StaticServer } from './static-server.js';

const QUESTION = 'Annex B principles: can the final GRC be lowered below the controlled ground area value?';

let server: StaticServer;
let browser: Browser;

interface RequestLog {
  /** Requests to the app's origin (proves the watcher saw the page's traffic). */
  own: string[];
  /** Requests to any other origin (data: and blob: URLs are local). */
  foreign: string[];
}

/** Every request of the context, by origin; each test checks its own log. */
function watchRequests(context: BrowserContext, origin: string): RequestLog {
  const log: RequestLog = { own: [], foreign: [] };
  context.on('request', (req) => {
    const url = req.url();
    if (url.startsWith(origin)) log.own.push(url);
    else if (!url.startsWith('data:') && !url.startsWith('blob:')) log.foreign.push(url);
  });
  return log;
}

/** Nothing left the app's origin, and the log did see the app load (index, model, ort). */
function expectOnlyOwnOrigin(log: RequestLog): void {
  expect(log.foreign).toEqual([]);
  expect(log.own.some((u) => u.includes('/static-index/manifest.json'))).toBe(true);
  expect(log.own.some((u) => u.includes('/models/'))).toBe(true);
}

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

async function ask(page: Page, question: string): Promise<void> {
  await page.getByTestId('question-input').fill(question);
  await page.getByTestId('ask-submit').click();
  const turn = page.getByTestId('turn').last();
  // the evidence-only answer is complete when its passages (or the no-evidence reply) are shown
  await answered(turn);
}

async function topSourceIds(page: Page): Promise<string[]> {
  return page
    .getByTestId('turn')
    .last()
    .locator('[data-testid="source-item"], [data-testid="source-item-uncited"]')
    .evaluateAll((els) => els.map((e) => e.getAttribute('data-chunk-id') ?? ''));
}

beforeAll(async () => {
  server = await serveDist();
  browser = await launchChromium({ webgpu: true });
});

afterAll(async () => {
  await browser?.close();
  await server?.close();
});

describe('SkyCite in Chromium (production build)', () => {
  it('embeds the query on WebGPU and on WASM with the same top evidence', async () => {
    const ctxGpu = await browser.newContext();
    const gpuLog = watchRequests(ctxGpu, server.url);
    const gpu = await openApp(ctxGpu, '?device=webgpu');
    await expect(gpu.getByTestId('device-status').textContent()).resolves.toMatch(/WebGPU/i);
    await expect(gpu.getByTestId('dense-status').textContent()).resolves.toMatch(/voy index/); // built in the worker at load
    await ask(gpu, QUESTION);
    const gpuIds = await topSourceIds(gpu);
    await ctxGpu.close();

    const ctxWasm = await browser.newContext();
    const wasmLog = watchRequests(ctxWasm, server.url);
    const wasm = await openApp(ctxWasm, '?device=wasm');
    await expect(wasm.getByTestId('device-status').textContent()).resolves.toMatch(/WASM/i);
    await ask(wasm, QUESTION);
    const wasmIds = await topSourceIds(wasm);
    await ctxWasm.close();

    expect(gpuIds.length).toBeGreaterThan(0);
    expect(wasmIds.slice(0, 5)).toEqual(gpuIds.slice(0, 5));
    expectOnlyOwnOrigin(gpuLog);
    expectOnlyOwnOrigin(wasmLog);
  });

  it('answers evidence-only with sources and page numbers, opens the passage, keeps HTML inert, works offline after a reload and says why an out-of-scope question has no evidence', async () => {
    const context = await browser.newContext();
    const log = watchRequests(context, server.url);
    const page = await openApp(context, '?device=wasm');
    await ask(page, QUESTION);
    const turn = page.getByTestId('turn').last();
    await expect(turn.getByTestId('no-model-notice').count()).resolves.toBeGreaterThan(0);
    const sources = turn.getByTestId('source-item');
    expect(await sources.count()).toBeGreaterThan(0);
    expect((await sources.allTextContents()).join(' ')).toMatch(/pages? \d+/i);
    // the S.4.3.4(f) floor rule is among the evidence
    const texts = (await turn.getByTestId('evidence-passage').allTextContents()).join(' ');
    expect(texts).toMatch(/controlled\s+ground\s+area/i);
    // the passages come from the SORA 2.5 main body and the SORA 2.0-era curated set: the answer says so
    expect(await turn.getByTestId('answer-edition-note').textContent()).toMatch(/mixes SORA editions \(SORA 2\.0 and SORA 2\.5\)/);
    // the documents the agents consulted, with edition and why: the SORA main body, which holds the S.4.3.4 rule above
    const consulted = turn.getByTestId('documents-consulted');
    await consulted.locator('summary').click();
    const consultedText = (await consulted.textContent()) ?? '';
    expect(consultedText).toMatch(/Documents searched: \d of [1-3] used/);
    expect(consultedText).toMatch(/AMC & GM to Article 11 — Rules for conducting an operational risk assessment/);
    // why in plain words; the figures only under Technical details
    expect(consultedText).toMatch(/Used: (?:it holds the passage closest to your question|.* of the passages closest to your question)/);
    expect(consultedText).not.toMatch(/summary match|cosine/);
    const technical = turn.getByTestId('turn-technical');
    await technical.locator('summary').click();
    expect(await technical.textContent()).toMatch(/owns \d+ of the top 20 passages; closest summary: .*summary match \d\.\d\d/);

    // opening a source shows the chunk with the cited passage highlighted
    await turn.getByTestId('open-passage').first().click();
    await page.getByTestId('chunk-viewer').waitFor();
    expect(await page.getByTestId('chunk-highlight').count()).toBeGreaterThan(0);
    await page.getByTestId('chunk-viewer-close').click();

    // HTML and script typed into the question stay text
    await page.evaluate(() => ((window as unknown as { __xss?: number }).__xss = 0));
    const evil = '<img src=x onerror="window.__xss=1"><script>window.__xss=2</script> SAIL for GRC 4?';
    await page.getByTestId('question-input').fill(evil);
    await page.getByTestId('ask-submit').click();
    await page.getByTestId('turn').nth(1).waitFor();
    await page.waitForTimeout(1500);
    expect(await page.evaluate(() => (window as unknown as { __xss?: number }).__xss)).toBe(0);
    expect(await page.locator('[data-testid="turn"] img').count()).toBe(0);
    await expect(page.getByTestId('turn-question').nth(1).textContent()).resolves.toContain('<img src=x');

    // offline: the status line says when the offline copy is stored; then the service worker serves the app shell, index and model
    await page.getByTestId('offline-ready').waitFor({ timeout: 240_000 });
    expect(await page.getByTestId('online-status').textContent()).toMatch(/Ready for offline use/);
    await reloadOffline(page, context);
    await page
      .getByTestId('index-status')
      .filter({ hasText: /verified/i })
      .waitFor({ timeout: 240_000 });
    await expect(page.getByTestId('dense-status').textContent()).resolves.toMatch(/voy index/); // voy's wasm is precached
    await ask(page, QUESTION);
    expect(await page.getByTestId('turn').last().getByTestId('source-item').count()).toBeGreaterThan(0);

    // a question the documents never cover gets "no evidence" and the reason, not look-alike passages
    await ask(page, 'What is a good recipe for banana bread with walnuts?');
    const outOfScope = page.getByTestId('turn').last();
    await expect(outOfScope.getByTestId('no-answer-reason').textContent()).resolves.toMatch(/no passage of the indexed documents/i);
    expect(await outOfScope.getByTestId('source-item').count()).toBe(0);
    await context.close();
    expectOnlyOwnOrigin(log);
  });

  it('drafts evidence-only requirements with their sources, exports them as CSV and records the draft in the audit log', async () => {
    const context = await browser.newContext({ acceptDownloads: true });
    const log = watchRequests(context, server.url);
    const page = await openApp(context, '?device=wasm#/requirements');
    await page.getByTestId('requirements-input').fill('loss of the command and control link over a populated area');
    await page.getByTestId('requirements-submit').click();
    const result = page.getByTestId('requirements-result');
    await result.waitFor({ timeout: 240_000 });
    const items = result.getByTestId('requirement');
    expect(await items.count()).toBeGreaterThan(0);
    // every candidate is a normative sentence with its source (document, section, pages)
    for (const t of await items.allTextContents()) {
      expect(t).toMatch(/\b(shall|should|must|required)\b/i);
      expect(t).toMatch(/pages? \d+|no page/);
    }
    const [download] = await Promise.all([page.waitForEvent('download'), result.getByTestId('requirements-export-csv').click()]);
    expect(download.suggestedFilename()).toBe('skycite-requirements.csv');
    const csv = readFileSync((await download.path())!, 'utf8');
    expect(csv.split('\r\n')[0]).toBe('id,group,modal,statement,document,edition,section,pages,chunk_id,source_verbatim,rationale');
    expect(csv.trimEnd().split('\r\n').length).toBeGreaterThanOrEqual(2);
    // the draft is in the audit log, with its description and as many candidates as were shown
    await result.getByTestId('requirements-audit-saved').waitFor();
    const shown = await items.count();
    await page.goto(`${server.url}?device=wasm#/settings`);
    const record = page.getByTestId('audit-item').first();
    await record.waitFor({ timeout: 60_000 });
    await expect(record.innerText()).resolves.toMatch(new RegExp(`requirements draft · ${shown} candidates[\\s\\S]*loss of the command and control link`));
    await context.close();
    expectOnlyOwnOrigin(log);
  });
});
