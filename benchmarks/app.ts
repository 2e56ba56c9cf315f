/**
 * `npm run bench:app`: the production build in Debian Chromium (WASM embedding).
 * Prints the first-load transfer split by asset, time to interactive (index
 * verified and model loaded), submit → evidence shown (warm), and the JS heap
 * after 20 questions; writes screenshots of Ask (sources open), Library and
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

const ask = async (q: string): Promise<number> => {
  const turns = await page.getByTestId('turn').count();
  const start = Date.now();
  await page.getByTestId('question-input').fill(q);
  await page.getByTestId('ask-submit').click();
  await page.getByTestId('turn').nth(turns).getByTestId('sources-list').waitFor({ timeout: 120_000 });
  return Date.now() - start;
};
await ask(QUESTIONS[0]!); // warm-up
const times: number[] = [];
for (let i = 0; i < 20; i++) times.push(await ask(QUESTIONS[i % QUESTIONS.length]!));
const cdp = await context.newCDPSession(page);
await cdp.send('HeapProfiler.collectGarbage');
const heap = (await cdp.send('Runtime.getHeapUsage')) as { usedSize: number; totalSize: number };

console.log(`machine: ${cpus().length} × ${cpus()[0]?.model ?? 'cpu'}; Chromium headless, WASM embedding`);
console.log('first load transfer (bytes served to the browser, incl. service-worker precache):');
let total = 0;
for (const [g, b] of [...groups].sort((a, b) => b[1] - a[1])) {
  total += b;
  console.log(`  ${g.padEnd(36)} ${(b / 1e6).toFixed(2)} MB`);
}
console.log(`  ${'total'.padEnd(36)} ${(total / 1e6).toFixed(2)} MB`);
console.log(`time to interactive (index verified, model loaded): ${(tti / 1000).toFixed(2)} s`);
const sorted = [...times].sort((a, b) => a - b);
console.log(`submit → evidence shown (warm, 20 questions): p50 ${sorted[10]} ms, p95 ${sorted[18]} ms`);
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
