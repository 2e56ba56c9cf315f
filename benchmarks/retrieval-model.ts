/**
 * `npm run bench:retrieval-model [-- --model google/embeddinggemma-300m] [--questions N]`: the optional
 * retrieval model in the production build, in Debian Chromium (headless, WASM on the CPU):
 *  - download + load: Settings → "Download … and use it" → the status says retrieval uses it;
 *    the bytes served for it (model files and its vector set) and the time;
 *  - submit → evidence shown with it: N questions after one warm-up, p50 and p95 (the same
 *    questions as bench:app), and each retrieval stage's median (the turns' audit records);
 *  - a reload: the model comes back from the browser's cache (bytes served again, time until
 *    retrieval uses it), and the same reload offline.
 * The server sends the cross-origin isolation headers (as `npm start` does: the models run on
 * min(4, cores) threads); `--no-isolation` serves without them, `--threads N` asks for N (`?threads=N`).
 * Needs `npm run models:prepare -- --embedder`, `npm run index:vectors` and `npm run build` first.
 */
import { existsSync, mkdtempSync, rmSync } from 'node:fs';
import { tmpdir } from 'node:os';
import { join } from 'node:path';
import { cpus } from 'node:os';
import { parseArgs } from 'node:util';
import type { Page } from 'playwright-core';
import { launchPersistentChromium } from '../tests/e2e/browser.js';
import { serveDist } from '../tests/e2e/static-server.js';
import { askOn, BENCH_QUESTIONS } from './questions.js';
import { EMBEDDING_GEMMA_ID } from '../src/core/embedding/models.js';
import { ISOLATION_HEADERS } from '../src/pwa/csp.js';

const { values } = parseArgs({
  options: {
    model: { type: 'string', default: EMBEDDING_GEMMA_ID },
    questions: { type: 'string', default: '10' },
    json: { type: 'boolean', default: false },
    'no-isolation': { type: 'boolean', default: false },
    threads: { type: 'string' },
  },
});
const threadsN = values.threads === undefined ? null : Number(values.threads);
if (threadsN !== null && !(Number.isInteger(threadsN) && threadsN >= 1 && threadsN <= 16)) {
  console.error('bench:retrieval-model: --threads needs a count from 1 to 16.');
  process.exit(2);
}
/** The page's query: WASM forced (as measured so far), and `threads=N` when asked for. */
const q = `?device=wasm${threadsN !== null ? `&threads=${threadsN}` : ''}`;
const model = values.model!;
if (!existsSync('dist/static-index/vector-sets.json') || !existsSync(`dist/models/${model}`)) {
  console.error(
    `bench:retrieval-model: dist/ has no vector set or no model folder for ${model}. Run npm run models:prepare -- --embedder, npm run index:vectors, then npm run build.`,
  );
  process.exit(2);
}

const server = await serveDist(undefined, {}, new Map(), values['no-isolation'] ? {} : { ...ISOLATION_HEADERS });
// a profile on disk, as a user's browser has (an in-memory context cannot cache a 327 MB file)
const profile = mkdtempSync(join(tmpdir(), 'skycite-bench-profile-'));
const context = await launchPersistentChromium(profile);
const page = context.pages()[0] ?? (await context.newPage());
const verified = (p: Page) =>
  p
    .getByTestId('index-status')
    .filter({ hasText: /verified/i })
    .waitFor({ timeout: 300_000 });
/** Until retrieval uses the model; throws with the app's message when the switch failed. */
const using = async (p: Page) => {
  await p
    .locator(`[data-testid="retrieval-model-status"][data-model="${model}"]`)
    .or(p.getByTestId('retrieval-model-warning'))
    .first()
    .waitFor({ state: 'attached', timeout: 1_800_000 });
  if (await p.getByTestId('retrieval-model-warning').count()) {
    await p.goto(`${server.url}${q}#/settings`);
    throw new Error(`the switch failed: ${(await p.getByTestId('retrieval-model-error').textContent()) ?? '(no message)'}`);
  }
};
page.on('pageerror', (e) => console.error('[page error]', e.message));
page.on('console', (m) => m.type() === 'warning' && /cache/i.test(m.text()) && console.error('[console]', m.text()));
const servedBytes = () => [...server.served.values()].reduce((a, b) => a + b, 0);

await page.goto(`${server.url}${q}`);
await verified(page);
await page.evaluate(async () => void (await navigator.serviceWorker.ready));
await page.goto(`${server.url}${q}#/settings`);
await verified(page);
const before = servedBytes();
const countsBefore = new Map([...server.served].map(([k, v]) => [k, v / (server.sizes.get(k) || 1)]));
const t0 = Date.now();
await page.locator(`[data-testid="retrieval-model-offer"][data-model="${model}"] [data-testid="retrieval-model-switch"]`).click();
await using(page);
const switchMs = Date.now() - t0;
const downloaded = servedBytes() - before;
// files fetched more than once during the download (each repeat is bytes the user pays for again)
const fetchedAgain = [...server.served]
  .map(([path, bytes]) => ({ path, times: Math.round(bytes / (server.sizes.get(path) || 1) - (countsBefore.get(path) ?? 0)) }))
  .filter((r) => r.times > 1);

await page.reload();
await page.goto(`${server.url}${q}#/ask`);
await verified(page);
const t1 = Date.now();
await using(page);
const restoreMs = Date.now() - t1;
await askOn(page, BENCH_QUESTIONS[0]!);
const n = Number(values.questions);
const times: number[] = [];
for (let i = 0; i < n; i++) times.push(await askOn(page, BENCH_QUESTIONS[i % BENCH_QUESTIONS.length]!));
times.sort((a, b) => a - b);
const pct = (p: number) => times[Math.min(times.length - 1, Math.floor((p / 100) * times.length))]!;
// where the time goes: each retrieval stage's median over the timed questions, from the audit records the turns wrote
const stageMedians = await page.evaluate(async (last: number) => {
  const db = await new Promise<IDBDatabase>((ok, ko) => {
    const r = indexedDB.open('skycite-user');
    r.onsuccess = () => ok(r.result);
    r.onerror = () => ko(r.error);
  });
  const all = await new Promise<{ time?: string; trace?: { stage: string; ms: number }[] }[]>((ok, ko) => {
    const r = db.transaction('audit').objectStore('audit').getAll();
    r.onsuccess = () => ok(r.result as never);
    r.onerror = () => ko(r.error);
  });
  const by = new Map<string, number[]>();
  for (const rec of all.slice(-last)) for (const t of rec.trace ?? []) by.set(t.stage, [...(by.get(t.stage) ?? []), t.ms]);
  return Object.fromEntries([...by].map(([k, v]) => [k, Math.round(v.sort((a, b) => a - b)[v.length >> 1]!)]));
}, n);

// offline reload: everything from the caches
await context.setOffline(true);
const t2 = Date.now();
await page.reload();
await verified(page);
let offlineRestore: number | string;
try {
  await using(page);
  offlineRestore = Date.now() - t2;
} catch (e) {
  offlineRestore = (e as Error).message;
}
await context.setOffline(false);

const result = {
  model,
  machine: `${cpus().length} × ${cpus()[0]?.model ?? 'cpu'}`,
  downloadedMB: Math.round(downloaded / 1e4) / 100,
  fetchedAgain,
  downloadAndLoadMs: switchMs,
  reloadUntilInUseMs: restoreMs,
  offlineReloadUntilInUseMs: offlineRestore,
  submitToEvidenceP50Ms: pct(50),
  submitToEvidenceP95Ms: pct(95),
  retrievalStageMedianMs: stageMedians,
  questions: n,
  isolated: await page.evaluate(() => globalThis.crossOriginIsolated === true),
  threads: threadsN ?? 'auto',
};
console.log(values.json ? JSON.stringify(result) : JSON.stringify(result, null, 2));
await context.close();
await server.close();
rmSync(profile, { recursive: true, force: true });
