/**
 * `npm run bench:app`: the production build in Debian Chromium (WASM embedding).
 * Prints the first-load transfer split by asset, time to interactive (index
 * verified and model loaded), submit → evidence shown (warm), and the JS heap
 * after 20 questions; then time to interactive and submit → evidence again in a
 * fresh browser context with the exact dense scan (`?dense=exact`) instead of voy
 * (the worker's default); writes screenshots of Ask (sources open), Library and
 * Settings at 1024×768 and 768×1024 into docs/screenshots/.
 * Run `npm run build` first (and `npm run index` if the index is stale).
 */
import { mkdirSync } from 'node:fs';
import { cpus } from 'node:os';
import { launchChromium } from '../tests/e2e/browser.js';
import { serveDist } from '../tests/e2e/static-server.js';

const QUESTIONS = [
  'Annex B principles: can the final GRC be lowered below the controlled ground area value?',
  'What does the contingency volume mean and what must the crew do there?',
  'How is the SAIL determined from the final GRC and the residual ARC?',
  'Which OSOs apply at SAIL II?',
  'What is an airspace observer?',
];

const server = await serveDist();
const browser = await launchChromium();
const context = await browser.newContext({ viewport: { width: 1024, height: 768 } });
const page = await context.newPage();
const t0 = Date.now();
await page.goto(`${server.url}?device=wasm`);
await page.getByTestId('index-status').filter({ hasText: /verified/i }).waitFor({ timeout: 300_000 });
const tti = Date.now() - t0;
const denseStatus = async (p: typeof page) => ({
  text: ((await p.getByTestId('dense-status').textContent()) ?? '').trim(),
  buildMs: await p.getByTestId('dense-status').getAttribute('data-build-ms'),
});
const voyStatus = await denseStatus(page);
// let the service worker finish precaching, then read the transfer
await page.evaluate(async () => {
  await navigator.serviceWorker.ready;
});
await page.waitForTimeout(3000);
const groups = new Map<string, number>();
for (const [path, bytes] of server.served) {
  const g = path.startsWith('/static-index/')
    ? 'static index'
    : path.startsWith('/models/')
      ? 'embedding model'
      : path.startsWith('/ort/')
        ? 'ORT wasm'
        : /\.js$/.test(path)
          ? 'JavaScript'
          : 'other (html, css, icons, manifest)';
  groups.set(g, (groups.get(g) ?? 0) + bytes);
}

const askOn = async (p: typeof page, q: string): Promise<number> => {
  const turns = await p.getByTestId('turn').count();
  const start = Date.now();
  await p.getByTestId('question-input').fill(q);
  await p.getByTestId('ask-submit').click();
  await p.getByTestId('turn').nth(turns).getByTestId('sources-list').waitFor({ timeout: 120_000 });
  return Date.now() - start;
};
const ask = (q: string) => askOn(page, q);
const twenty = async (p: typeof page): Promise<number[]> => {
  await askOn(p, QUESTIONS[0]!); // warm-up
  const out: number[] = [];
  for (let i = 0; i < 20; i++) out.push(await askOn(p, QUESTIONS[i % QUESTIONS.length]!));
  return out.sort((a, b) => a - b);
};
const times = await twenty(page);
const cdp = await context.newCDPSession(page);
await cdp.send('HeapProfiler.collectGarbage');
const heap = (await cdp.send('Runtime.getHeapUsage')) as { usedSize: number; totalSize: number };

// the same with the exact scan, in a fresh context (nothing cached)
const exactContext = await browser.newContext({ viewport: { width: 1024, height: 768 } });
const exactPage = await exactContext.newPage();
const t1 = Date.now();
await exactPage.goto(`${server.url}?device=wasm&dense=exact`);
await exactPage.getByTestId('index-status').filter({ hasText: /verified/i }).waitFor({ timeout: 300_000 });
const ttiExact = Date.now() - t1;
const exactStatus = await denseStatus(exactPage);
const timesExact = await twenty(exactPage);
await exactContext.close();

console.log(`machine: ${cpus().length} × ${cpus()[0]?.model ?? 'cpu'}; Chromium headless, WASM embedding`);
console.log('first load transfer (bytes served to the browser, incl. service-worker precache):');
let total = 0;
for (const [g, b] of [...groups].sort((a, b) => b[1] - a[1])) {
  total += b;
  console.log(`  ${g.padEnd(36)} ${(b / 1e6).toFixed(2)} MB`);
}
console.log(`  ${'total'.padEnd(36)} ${(total / 1e6).toFixed(2)} MB`);
console.log(`dense backend as the app reports it: "${voyStatus.text}" (voy load + build ${voyStatus.buildMs ?? '?'} ms in the worker)`);
console.log(`time to interactive (index verified, model loaded): ${(tti / 1000).toFixed(2)} s`);
console.log(`submit → evidence shown (warm, 20 questions): p50 ${times[10]} ms, p95 ${times[18]} ms`);
console.log(`with ?dense=exact ("${exactStatus.text}"), fresh context: time to interactive ${(ttiExact / 1000).toFixed(2)} s; submit → evidence p50 ${timesExact[10]} ms, p95 ${timesExact[18]} ms`);
console.log(`JS heap after 20 questions (main thread, after GC): ${(heap.usedSize / 1e6).toFixed(1)} MB used of ${(heap.totalSize / 1e6).toFixed(1)} MB`);

// screenshots
mkdirSync('docs/screenshots', { recursive: true });
for (const [w, h] of [
  [1024, 768],
  [768, 1024],
] as const) {
  await page.setViewportSize({ width: w, height: h });
  await page.goto(`${server.url}?device=wasm#/ask`);
  await page.getByTestId('index-status').filter({ hasText: /verified/i }).waitFor({ timeout: 300_000 });
  await ask(QUESTIONS[0]!);
  await page.getByTestId('turn').last().getByTestId('open-passage').first().click();
  await page.getByTestId('chunk-viewer').waitFor();
  await page.screenshot({ path: `docs/screenshots/ask-${w}x${h}.png` });
  await page.getByTestId('chunk-viewer-close').click();
  await page.goto(`${server.url}?device=wasm#/library`);
  await page.getByTestId('index-status').filter({ hasText: /verified/i }).waitFor({ timeout: 300_000 });
  await page.waitForTimeout(500);
  await page.screenshot({ path: `docs/screenshots/library-${w}x${h}.png` });
  await page.goto(`${server.url}?device=wasm#/settings`);
  await page.getByTestId('index-status').filter({ hasText: /verified/i }).waitFor({ timeout: 300_000 });
  await page.waitForTimeout(800);
  await page.screenshot({ path: `docs/screenshots/settings-${w}x${h}.png` });
}
console.log('screenshots written to docs/screenshots/');
await browser.close();
await server.close();
