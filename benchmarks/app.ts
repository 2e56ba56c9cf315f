/**
 * `npm run bench:app [-- --json | --shots-only]`: the production build in Debian Chromium with WebGPU enabled
 * (headless Chromium then offers its SwiftShader software adapter), on the app's default device
 * choice (no ?device=):
 *  - first load: bytes of every file the page and the service worker's precache fetched, each
 *    path counted once (`firstLoadUniqueMB`, 1 MB = 10^6 bytes), and the total served;
 *  - time to interactive: navigation → the status line says the index is verified (index fetched
 *    and verified, embedding model loaded on the chosen device, voy built); without --json also on
 *    a return visit (reloads served by the service worker);
 *  - submit → evidence shown: 20 questions after one warm-up, p50 and p95;
 *  - the JS heap after 20 questions.
 * Without --json it also measures fresh contexts with `?dense=exact` and with the other device
 * forced (`?device=webgpu` on SwiftShader, 5 questions, when the default chose WASM), prints the
 * transfer by asset, and writes screenshots (Ask with the calculator's table, Ask with a source open, Assess,
 * Library, Settings at 1024×768 and 768×1024) into docs/screenshots/.
 * With --json it prints one line: {"device", "threads", "firstLoadUniqueMB", "ttiMs", "submitToEvidenceP50Ms", "submitToEvidenceP95Ms"}.
 * The server sends the cross-origin isolation headers (COOP/COEP, as `npm start` does), so the
 * retrieval models run on min(4, cores) threads; `--no-isolation` serves without them (a plain static
 * host's first visit: single-threaded), `--threads N` asks for N threads (`?threads=N`), `--rerank`
 * turns the cross-encoder on (`?rerank=on`).
 * Run `npm run build` first (and `npm run index` if the index is stale).
 */
import { existsSync, mkdirSync } from 'node:fs';
import { cpus } from 'node:os';
import type { Page } from 'playwright-core';
import { ISOLATION_HEADERS } from '../src/pwa/csp.js';
import { launchChromium } from '../tests/e2e/browser.js';
import { serveDist } from '../tests/e2e/static-server.js';
import { askOn, BENCH_QUESTIONS } from './questions.js';

const json = process.argv.includes('--json');
const shotsOnly = process.argv.includes('--shots-only');
const isolation = !process.argv.includes('--no-isolation');
const threadsArg = process.argv.indexOf('--threads');
const threadsN = threadsArg >= 0 ? Number(process.argv[threadsArg + 1]) : null;
if (threadsN !== null && !(Number.isInteger(threadsN) && threadsN >= 1 && threadsN <= 16)) {
  console.error('bench:app: --threads needs a count from 1 to 16.');
  process.exit(2);
}
const rerank = process.argv.includes('--rerank');
/** The page's query: `?threads=N` and `?rerank=on` when asked for. */
const appParams = [...(threadsN !== null ? [`threads=${threadsN}`] : []), ...(rerank ? ['rerank=on'] : [])];
const appQuery = appParams.length ? `?${appParams.join('&')}` : '';
if (!existsSync('dist/index.html')) {
  console.error('bench:app: dist/ is missing. Run `npm run build` first (and `npm run index` if the index is stale).');
  process.exit(2);
}

const TABLE_QUESTION = 'What is the iGRC of a 1.2 m quadcopter flying 15 m/s over a sparsely populated area?';

const server = await serveDist(undefined, {}, new Map(), isolation ? { ...ISOLATION_HEADERS } : {});
const browser = await launchChromium({ webgpu: true });
const context = await browser.newContext({ viewport: { width: 1024, height: 768 } });
const page = await context.newPage();
const verified = (p: Page) =>
  p
    .getByTestId('index-status')
    .filter({ hasText: /verified/i })
    .waitFor({ timeout: 300_000 });
const t0 = Date.now();
await page.goto(`${server.url}${appQuery}`);
await verified(page);
const tti = Date.now() - t0;
const isolated = await page.evaluate(() => globalThis.crossOriginIsolated === true);
const device = (await page.getByTestId('device-status').getAttribute('data-device')) ?? 'unknown';
const deviceText = ((await page.getByTestId('device-status').textContent()) ?? '').trim();
const denseStatus = async (p: Page) => ({
  text: ((await p.getByTestId('dense-status').textContent()) ?? '').trim(),
  buildMs: await p.getByTestId('dense-status').getAttribute('data-build-ms'),
});
const voyStatus = await denseStatus(page);
// the service worker is active once its install (the precache) has finished
await page.evaluate(async () => {
  await navigator.serviceWorker.ready;
});
await page.waitForTimeout(2000);
const unique = [...server.sizes.values()].reduce((a, b) => a + b, 0);
const groups = new Map<string, number>();
for (const [path, bytes] of server.sizes) {
  const g = path.startsWith('/static-index/')
    ? 'static index'
    : path.startsWith('/models/')
      ? 'embedding model'
      : path.startsWith('/ort/')
        ? 'ORT wasm'
        : /\.js$/.test(path)
          ? 'JavaScript'
          : 'other (html, css, icons, manifest, voy wasm)';
  groups.set(g, (groups.get(g) ?? 0) + bytes);
}
const servedTotal = [...server.served.values()].reduce((a, b) => a + b, 0);

/** ONNX Runtime's threads as Settings reports them (src/runtime/ort-threads.ts). */
async function threadsLine(p: Page): Promise<{ threads: number; line: string }> {
  const hash = await p.evaluate(() => location.hash);
  await p.evaluate(() => (location.hash = '#/settings'));
  const el = p.getByTestId('settings-threads');
  await el.waitFor({ timeout: 60_000 });
  const out = { threads: Number(await el.getAttribute('data-threads')), line: ((await el.textContent()) ?? '').trim() };
  await p.evaluate((h) => (location.hash = h || '#/ask'), hash);
  return out;
}

const twenty = async (p: Page): Promise<number[]> => {
  await askOn(p, BENCH_QUESTIONS[0]!); // warm-up
  const out: number[] = [];
  for (let i = 0; i < 20; i++) out.push(await askOn(p, BENCH_QUESTIONS[i % BENCH_QUESTIONS.length]!));
  return out.sort((a, b) => a - b);
};
const times = await twenty(page);
const p50 = times[10]!;
const p95 = times[18]!;
const MB = (b: number) => Math.round(b / 1e4) / 100;

if (json) {
  const threads = await threadsLine(page);
  process.stdout.write(
    `${JSON.stringify({ device, threads: threads.threads, isolated, firstLoadUniqueMB: MB(unique), ttiMs: tti, submitToEvidenceP50Ms: p50, submitToEvidenceP95Ms: p95 })}\n`,
  );
  await browser.close();
  await server.close();
  process.exit(0);
}

// --shots-only: the screenshots alone (the README's), without the slower measurements below
if (!shotsOnly) {
  const cdp = await context.newCDPSession(page);
  await cdp.send('HeapProfiler.collectGarbage');
  const heap = (await cdp.send('Runtime.getHeapUsage')) as { usedSize: number; totalSize: number };

  // a returning user: the same profile, the app now served by its service worker (3 reloads, median)
  const repeat: number[] = [];
  for (let i = 0; i < 3; i++) {
    const t = Date.now();
    await page.reload();
    await verified(page);
    repeat.push(Date.now() - t);
  }
  repeat.sort((a, b) => a - b);
  const controlled = await page.evaluate(() => navigator.serviceWorker.controller !== null);

  // the same with the exact scan, in a fresh context (nothing cached)
  const exactContext = await browser.newContext({ viewport: { width: 1024, height: 768 } });
  const exactPage = await exactContext.newPage();
  const t1 = Date.now();
  await exactPage.goto(`${server.url}?${['dense=exact', ...appParams].join('&')}`);
  await verified(exactPage);
  const ttiExact = Date.now() - t1;
  const exactStatus = await denseStatus(exactPage);
  const timesExact = await twenty(exactPage);
  await exactContext.close();

  // the other device, forced, in a fresh context: WebGPU on the SwiftShader adapter when the default
  // chose WASM (a few questions only: each takes seconds there), WASM otherwise
  const other = device === 'wasm' ? 'webgpu' : 'wasm';
  const otherContext = await browser.newContext({ viewport: { width: 1024, height: 768 } });
  const otherPage = await otherContext.newPage();
  const t2 = Date.now();
  await otherPage.goto(`${server.url}?${[`device=${other}`, ...appParams].join('&')}`);
  await verified(otherPage);
  const ttiOther = Date.now() - t2;
  // on the software adapter one question takes minutes: two, each allowed ten minutes
  const OTHER_N = other === 'webgpu' ? 2 : 20;
  const OTHER_TIMEOUT = other === 'webgpu' ? 600_000 : 120_000;
  await askOn(otherPage, BENCH_QUESTIONS[0]!, OTHER_TIMEOUT); // warm-up
  const timesOther: number[] = [];
  for (let i = 0; i < OTHER_N; i++) timesOther.push(await askOn(otherPage, BENCH_QUESTIONS[i % BENCH_QUESTIONS.length]!, OTHER_TIMEOUT));
  timesOther.sort((a, b) => a - b);
  await otherContext.close();
  const median = (xs: number[]) => xs[Math.floor(xs.length / 2)]!;

  console.log(`machine: ${cpus().length} × ${cpus()[0]?.model ?? 'cpu'}; Chromium headless with WebGPU enabled (SwiftShader adapter)`);
  console.log(`device chosen by default: ${device} — "${deviceText}"`);
  const threadsReport = await threadsLine(page);
  console.log(
    `cross-origin isolation headers: ${isolation ? 'sent' : 'not sent (--no-isolation)'}; page isolated: ${isolated}; retrieval models: ${threadsReport.line}`,
  );
  console.log('first load (each path once: the page and the service worker precache):');
  for (const [g, b] of [...groups].sort((a, b) => b[1] - a[1])) console.log(`  ${g.padEnd(44)} ${(b / 1e6).toFixed(2)} MB`);
  console.log(`  ${'unique total'.padEnd(44)} ${(unique / 1e6).toFixed(2)} MB (served: ${(servedTotal / 1e6).toFixed(2)} MB, the test server sends no-cache)`);
  console.log(`dense backend: "${voyStatus.text}" (voy load + build ${voyStatus.buildMs ?? '?'} ms in the worker)`);
  console.log(
    `time to interactive (index verified, model loaded): ${(tti / 1000).toFixed(2)} s first visit; ${(repeat[1]! / 1000).toFixed(2)} s on a return visit (median of 3 reloads, ${controlled ? 'served by the service worker' : 'NOT served by the service worker'}: ${repeat.map((r) => (r / 1000).toFixed(2)).join(', ')} s)`,
  );
  console.log(`submit → evidence shown (warm, 20 questions): p50 ${p50} ms, p95 ${p95} ms`);
  console.log(
    `with ?dense=exact ("${exactStatus.text}"), fresh context: time to interactive ${(ttiExact / 1000).toFixed(2)} s; submit → evidence p50 ${timesExact[10]} ms, p95 ${timesExact[18]} ms`,
  );
  console.log(
    `forced ?device=${other}, fresh context: time to interactive ${(ttiOther / 1000).toFixed(2)} s; submit → evidence (warm, ${OTHER_N} questions) median ${median(timesOther)} ms, max ${timesOther[timesOther.length - 1]} ms`,
  );
  console.log(`JS heap after 20 questions (main thread, after GC): ${(heap.usedSize / 1e6).toFixed(1)} MB used of ${(heap.totalSize / 1e6).toFixed(1)} MB`);
}

// screenshots
mkdirSync('docs/screenshots', { recursive: true });
const open = async (hash: string) => {
  await page.goto(`${server.url}${hash}`);
  await verified(page);
};
for (const [w, h] of [
  [1024, 768],
  [768, 1024],
] as const) {
  await page.setViewportSize({ width: w, height: h });
  await open('#/ask');
  await askOn(page, TABLE_QUESTION);
  await page.waitForTimeout(300);
  await page.screenshot({ path: `docs/screenshots/ask-table-${w}x${h}.png` });
  await open('#/ask');
  await askOn(page, BENCH_QUESTIONS[0]!);
  const last = page.getByTestId('turn').last();
  // a quoted answer folds its passages under the quotes: unfold them to open one
  const folded = last.getByTestId('quoted-passages');
  if (await folded.count()) await folded.locator('summary').click();
  await last.getByTestId('open-passage').first().click();
  await page.getByTestId('chunk-viewer').waitFor();
  await page.waitForTimeout(300);
  await page.screenshot({ path: `docs/screenshots/ask-${w}x${h}.png` });
  await page.getByTestId('chunk-viewer-close').click();
  await open('#/assess');
  for (const [field, value] of [
    ['mtom_category', 'below_4kg'],
    ['visual_mode', 'VLOS'],
    ['ground_environment', 'sparsely_populated'],
    ['airspace_type', 'uncontrolled'],
    ['max_altitude_category', 'up_to_120m'],
    ['population_band', '<50'],
    ['residual_arc', 'b'],
  ] as const) {
    await page.getByTestId(`assess-field-${field}`).selectOption(value);
  }
  await page.getByTestId('assess-field-characteristic_dimension_m').fill('1.2');
  await page.getByTestId('assess-field-max_speed_ms').fill('15');
  await page.getByTestId('assess-run').click();
  await page.locator('[data-testid="assess-card"][data-indicator="sail"]').waitFor({ timeout: 120_000 });
  await page.getByTestId('assess-results').scrollIntoViewIfNeeded();
  await page.evaluate(() => document.querySelector('[data-testid="assess-results"]')?.scrollIntoView({ block: 'start' }));
  await page.waitForTimeout(300);
  await page.screenshot({ path: `docs/screenshots/assess-${w}x${h}.png` });
  await open('#/library?q=ground%20risk%20buffer');
  await page.getByTestId('library-excerpt').first().waitFor({ timeout: 60_000 });
  await page.waitForTimeout(300);
  await page.screenshot({ path: `docs/screenshots/library-${w}x${h}.png` });
  await open('#/settings');
  await page.waitForTimeout(800);
  await page.evaluate(() => document.querySelector('#device-h')?.scrollIntoView({ block: 'start' }));
  await page.waitForTimeout(200);
  await page.screenshot({ path: `docs/screenshots/settings-${w}x${h}.png` });
}
console.log('screenshots written to docs/screenshots/');
await browser.close();
await server.close();
