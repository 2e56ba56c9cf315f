/**
 * `npm run bench:import [-- --chars 60000] [--browser] [--json]`: how fast this machine adds a document of
 * its own, with the app's code: the in-process runtime the worker hosts, the built static index
 * (static-index/) and the built-in MiniLM (q8, onnxruntime-node on the CPU, as `npm run index` embeds).
 * With `--browser`: the production build (dist/, `npm run build` first) in Debian Chromium, WASM,
 * the file added in the Library and the worker's progress read from the page (texts/s from the
 * first to the last progress seen).
 * The document is prose made of the built-in passages' text, `--chars` characters long.
 * Prints the passages and texts embedded (each passage is embedded as its retrieval string, its
 * summary and its windows), the embedding throughput (passages/s, texts/s, characters/s), the whole
 * add, the latency of a question asked idle and of one asked while the document is embedded, and
 * the machine. IMPORT_LIMITS (src/runtime/user-documents.ts) is derived from these figures
 * (docs/agents.md, "Imports in the background").
 */
import { readFileSync } from 'node:fs';
import { arch, cpus, platform } from 'node:os';
import { join } from 'node:path';
import { parseArgs } from 'node:util';
import { DEFAULT_INDEX_DIR } from '../corpus-build/node/index-fs.js';
import { nodeEmbedder } from '../corpus-build/node/model.js';
import type { Chunk } from '../src/core/model/chunk.js';
import { createInProcessRuntime, NO_ADAPTER } from '../src/runtime/in-process.js';
import { IMPORT_LIMITS, type UserDocumentProgress } from '../src/runtime/user-documents.js';

const { values } = parseArgs({
  options: { chars: { type: 'string', default: '60000' }, json: { type: 'boolean', default: false }, browser: { type: 'boolean', default: false } },
});
const chars = Number(values.chars);
if (values.browser) {
  await inBrowser();
  process.exit(0);
}

// the index files from disk, as the worker fetches them from the app's origin
const fetchImpl = (async (url: string | URL) =>
  new Response(readFileSync(join(DEFAULT_INDEX_DIR, new URL(String(url)).pathname.replace(/^\/static-index\//, ''))))) as typeof fetch;
const rt = createInProcessRuntime({
  baseUrl: 'http://localhost/',
  probeAdapter: async () => NO_ADAPTER,
  createEmbedder: async (_device, _opts, modelId) => nodeEmbedder('q8', modelId),
  fetchImpl,
  userDocStore: null,
});
const status = await rt.init({ denseBackend: 'exact', rerank: false });

/** Paragraphs of the built-in passages' prose (no tables of dots or cover pages), repeated up to `n` characters. */
function prose(n: number): string {
  const chunks = JSON.parse(readFileSync(join(DEFAULT_INDEX_DIR, 'chunks.json'), 'utf8')) as Chunk[];
  const paragraphs = chunks
    .filter((c) => c.kind !== 'front-matter')
    .flatMap((c) => c.text.split(/\n\s*\n/))
    .map((p) => p.replace(/\s+/g, ' ').trim())
    .filter((p) => p.length > 200 && !/\.{5,}/.test(p));
  const out: string[] = [];
  let len = 0;
  for (let i = 0; len < n; i++) {
    const p = paragraphs[i % paragraphs.length]!;
    if (i % 12 === 0) out.push(`Chapter ${i / 12 + 1}`);
    out.push(p);
    len += p.length + 2;
  }
  return out.join('\n\n').slice(0, n);
}

const QUESTION = 'Which operational category applies to a flight over assemblies of people?';
const timeQuestion = async () => {
  const t = performance.now();
  await rt.retrieve(QUESTION);
  return performance.now() - t;
};
await timeQuestion(); // warm
const idleMs = (await Promise.all([0, 1, 2].map(() => timeQuestion()))).sort((a, b) => a - b)[1]!;

const text = prose(chars);
let readStart = 0;
let embedStart = 0;
let embedEnd = 0;
let texts = 0;
let during: Promise<number> | null = null;
const t0 = performance.now();
const info = await rt.addUserDocument(
  { title: 'Benchmark manual', jurisdiction: 'EU', edition: 'bench', fileName: 'bench.txt', format: 'text', pages: text },
  (p: UserDocumentProgress) => {
    if (p.stage === 'reading') readStart = performance.now();
    if (p.stage !== 'embedding') return;
    if (p.done === 0) embedStart = performance.now();
    texts = p.total;
    embedEnd = performance.now();
    // a question posted while a third of the document is embedded (a message arrives as a task)
    if (!during && p.done >= p.total / 3) during = new Promise((resolve) => setTimeout(() => void timeQuestion().then(resolve), 0));
  },
);
const addMs = performance.now() - t0;
const duringMs = await (during ?? Promise.resolve(NaN));
const embedS = (embedEnd - embedStart) / 1000;

const cpu = cpus();
const r = {
  machine: `${cpu[0]?.model ?? 'unknown CPU'}, ${cpu.length} cores, ${platform()} ${arch()}, Node ${process.version}`,
  model: `${status.manifest.model.id} (q8, onnxruntime-node on the CPU)`,
  chars: text.length,
  passages: info.chunkCount,
  texts,
  embedSeconds: +embedS.toFixed(1),
  passagesPerSecond: +(info.chunkCount / embedS).toFixed(2),
  textsPerSecond: +(texts / embedS).toFixed(2),
  charsPerSecond: Math.round(text.length / embedS),
  /** Chunking (and the windows' texts), before the first batch: the one step a question waits for. */
  chunkSeconds: +((embedStart - readStart) / 1000).toFixed(2),
  addSeconds: +(addMs / 1000).toFixed(1),
  questionIdleMs: Math.round(idleMs),
  questionDuringImportMs: Math.round(duringMs),
  limit: { ...IMPORT_LIMITS, minutesAtThisRate: +(IMPORT_LIMITS.maxTextChars / (text.length / embedS) / 60).toFixed(1) },
};
rt.dispose();
if (values.json) console.log(JSON.stringify(r));
else {
  console.log(`machine: ${r.machine}\nmodel:   ${r.model}`);
  console.log(`document: ${r.chars} characters → ${r.passages} passages, ${r.texts} texts embedded`);
  console.log(
    `embedding: ${r.embedSeconds} s → ${r.passagesPerSecond} passages/s, ${r.textsPerSecond} texts/s, ${r.charsPerSecond} characters/s (whole add ${r.addSeconds} s, chunking ${r.chunkSeconds} s)`,
  );
  console.log(`a question: ${r.questionIdleMs} ms idle, ${r.questionDuringImportMs} ms while the document is embedded`);
  console.log(
    `limit: ${IMPORT_LIMITS.maxTextChars} characters ≈ ${r.limit.minutesAtThisRate} min of embedding at this rate (budget ${IMPORT_LIMITS.budgetMinutes} min)`,
  );
}

/** The same document added in the Library of the production build, in Chromium on WASM. */
async function inBrowser(): Promise<void> {
  const { existsSync } = await import('node:fs');
  const { launchChromium } = await import('../tests/e2e/browser.js');
  const { serveDist } = await import('../tests/e2e/static-server.js');
  if (!existsSync('dist/index.html')) {
    console.error('bench:import --browser: dist/ is missing. Run `npm run build` first.');
    process.exit(2);
  }
  const server = await serveDist();
  const browser = await launchChromium();
  const page = await browser.newPage();
  await page.goto(`${server.url}?device=wasm#/library`);
  await page
    .getByTestId('index-status')
    .filter({ hasText: /verified/i })
    .waitFor({ timeout: 300_000 });
  const text = prose(chars);
  await page.getByTestId('userdoc-file').setInputFiles({ name: 'bench.txt', mimeType: 'text/plain', buffer: Buffer.from(text) });
  await page.getByTestId('userdoc-title').fill('Benchmark manual');
  await page.getByTestId('userdoc-jurisdiction').fill('EU');
  await page.getByTestId('userdoc-edition').fill('bench');
  const t0 = performance.now();
  await page.getByTestId('userdoc-add').click();
  let first: { t: number; done: number } | null = null;
  let last: { t: number; done: number; total: number } | null = null;
  for (;;) {
    const busy = await page
      .getByTestId('userdoc-busy')
      .textContent({ timeout: 1000 })
      .catch(() => null);
    if (busy === null && (await page.getByTestId('userdoc').count())) break;
    const m = /Embedding (\d+) of (\d+) texts/.exec(busy ?? '');
    if (m) {
      const seen = { t: performance.now(), done: Number(m[1]), total: Number(m[2]) };
      if (!first && seen.done > 0) first = seen;
      last = seen;
    }
    await new Promise((r) => setTimeout(r, 250));
  }
  const addMs = performance.now() - t0;
  const line = (await page.getByTestId('userdoc').first().textContent()) ?? '';
  const passages = Number(/(\d+) passages?/.exec(line)?.[1] ?? NaN);
  await browser.close();
  await server.close();
  const embedS = first && last ? (last.t - first.t) / 1000 : NaN;
  const texts = first && last ? last.done - first.done : NaN;
  const cpu = cpus();
  const r = {
    machine: `${cpu[0]?.model ?? 'unknown CPU'}, ${cpu.length} cores, ${platform()} ${arch()}; Debian Chromium, WASM`,
    chars: text.length,
    passages,
    texts: last?.total ?? NaN,
    textsPerSecond: +(texts / embedS).toFixed(2),
    passagesPerSecond: +((passages * texts) / (last?.total ?? NaN) / embedS).toFixed(2),
    charsPerSecond: Math.round((text.length * texts) / (last?.total ?? NaN) / embedS),
    addSeconds: +(addMs / 1000).toFixed(1),
  };
  if (values.json) console.log(JSON.stringify(r));
  else {
    console.log(`machine: ${r.machine}`);
    console.log(`document: ${r.chars} characters → ${r.passages} passages, ${r.texts} texts embedded`);
    console.log(`embedding: ${r.passagesPerSecond} passages/s, ${r.textsPerSecond} texts/s, ${r.charsPerSecond} characters/s (whole add ${r.addSeconds} s)`);
    console.log(
      `limit: ${IMPORT_LIMITS.maxTextChars} characters ≈ ${(IMPORT_LIMITS.maxTextChars / r.charsPerSecond / 60).toFixed(1)} min of embedding at this rate (budget ${IMPORT_LIMITS.budgetMinutes} min)`,
    );
  }
}
