#!/usr/bin/env node
/**
 * Load a converted model in the real WebLLM runtime (headless Chromium, WebGPU)
 * and generate a few tokens. Standalone: not part of the app or its tests.
 *
 *   node tools/models/check-webllm.mjs --webllm /path/to/node_modules/@mlc-ai/web-llm \
 *     [--models .cache/models] [--model-id Qwen2.5-Coder-0.5B-Instruct-q4f32_1-SkyCite] \
 *     [--prompt "What is a drone? Answer in one short sentence."] [--system TEXT] [--max-tokens 4] \
 *     [--chromium /usr/bin/chromium] [--playwright /path/to/playwright-core] [--json out.json]
 *
 * --webllm is the @mlc-ai/web-llm package folder (or its lib/index.js); the
 * prebuilt libraries of .cache/models/libs need web-llm <= 0.2.79. It serves
 * the models folder and web-llm on http://localhost:<free port> (localhost only), opens
 * a page that calls CreateMLCEngine with an appConfig pointing at that server
 * (model and model_lib URLs read from .cache/models/manifest.json), and prints
 * the load time, prefill and decode tokens/s and the generated text. Exit 0 on
 * success. Headless Chromium's WebGPU here is SwiftShader (CPU): expect about
 * 12 s per decoded token for 0.5B, and only q4f32_1 (no shader-f16).
 */
import { createServer } from 'node:http';
import { createReadStream, existsSync, readFileSync, statSync, writeFileSync } from 'node:fs';
import { createRequire } from 'node:module';
import { dirname, extname, join, resolve, sep } from 'node:path';
import { pathToFileURL } from 'node:url';
import { parseArgs } from 'node:util';

const ROOT = resolve(import.meta.dirname, '..', '..');
const { values: opt } = parseArgs({
  options: {
    webllm: { type: 'string' },
    models: { type: 'string', default: join(ROOT, '.cache', 'models') },
    'model-id': { type: 'string', default: 'Qwen2.5-Coder-0.5B-Instruct-q4f32_1-SkyCite' },
    prompt: { type: 'string', default: 'What is a drone? Answer in one short sentence.' },
    system: { type: 'string' },
    'max-tokens': { type: 'string', default: '4' },
    chromium: { type: 'string', default: '/usr/bin/chromium' },
    playwright: { type: 'string' },
    json: { type: 'string' },
    'timeout-min': { type: 'string', default: '20' },
  },
});

function fail(msg) {
  console.error(`check-webllm: ${msg}`);
  process.exit(1);
}

if (!opt.webllm) fail('--webllm PATH is required (the @mlc-ai/web-llm package folder, version <= 0.2.79).');
let webllmFile = resolve(opt.webllm);
if (existsSync(webllmFile) && statSync(webllmFile).isDirectory()) webllmFile = join(webllmFile, 'lib', 'index.js');
if (!existsSync(webllmFile)) fail(`web-llm bundle not found at ${webllmFile}`);
const pkgFile = join(dirname(dirname(webllmFile)), 'package.json');
const webllmVersion = existsSync(pkgFile) ? JSON.parse(readFileSync(pkgFile, 'utf8')).version : 'unknown';

const modelsDir = resolve(opt.models);
const manifestFile = join(modelsDir, 'manifest.json');
if (!existsSync(manifestFile)) fail(`${manifestFile} not found; run npm run models:prepare first.`);
const manifest = JSON.parse(readFileSync(manifestFile, 'utf8'));
const entry = manifest.models.find((m) => m.model_id === opt['model-id']);
if (!entry) fail(`model ${opt['model-id']} is not in ${manifestFile} (has: ${manifest.models.map((m) => m.model_id).join(', ')})`);
if (!existsSync(opt.chromium)) fail(`Chromium not found at ${opt.chromium} (Debian: apt-get install -y chromium)`);

async function loadPlaywright() {
  const tries = [];
  if (opt.playwright) tries.push(opt.playwright);
  tries.push(join(ROOT, 'package.json'), join(dirname(dirname(webllmFile)), 'package.json'));
  for (const from of tries) {
    try {
      const req = createRequire(existsSync(from) && statSync(from).isDirectory() ? join(from, 'x.js') : from);
      const path = opt.playwright && from === opt.playwright ? req.resolve(resolve(opt.playwright)) : req.resolve('playwright-core');
      return await import(pathToFileURL(path).href);
    } catch {
      /* try the next place */
    }
  }
  fail('playwright-core not found: run npm ci in the project, install it next to web-llm, or pass --playwright PATH.');
}

const TYPES = { '.json': 'application/json', '.wasm': 'application/wasm', '.js': 'text/javascript', '.bin': 'application/octet-stream', '.html': 'text/html' };

const PAGE = `<!doctype html><meta charset="utf-8"><title>web-llm check</title>
<script type="module">
import * as webllm from '/webllm/index.js';
window.runCheck = async (cfg) => {
  const out = { progress: [] };
  const adapter = await navigator.gpu?.requestAdapter();
  if (!adapter) throw new Error('navigator.gpu.requestAdapter() returned nothing: no WebGPU');
  const info = adapter.info ?? {};
  out.adapter = { vendor: info.vendor, architecture: info.architecture, description: info.description,
    isFallbackAdapter: adapter.isFallbackAdapter ?? info.isFallbackAdapter, shaderF16: adapter.features.has('shader-f16') };
  const appConfig = { model_list: [{ model: cfg.modelUrl, model_id: cfg.modelId, model_lib: cfg.modelLib,
    required_features: cfg.requiredFeatures }], useIndexedDBCache: false };
  let last = 0;
  const t0 = performance.now();
  const engine = await webllm.CreateMLCEngine(cfg.modelId, { appConfig, initProgressCallback: (p) => {
    const now = performance.now();
    if (now - last > 5000 || p.progress === 1) { last = now; out.progress.push(((now - t0) / 1000).toFixed(1) + 's ' + p.text); console.log('[progress] ' + p.text); }
  } });
  out.loadSeconds = (performance.now() - t0) / 1000;
  const t1 = performance.now();
  const messages = cfg.system ? [{ role: 'system', content: cfg.system }] : [];
  messages.push({ role: 'user', content: cfg.prompt });
  const reply = await engine.chat.completions.create({ messages,
    max_tokens: cfg.maxTokens, temperature: 0 });
  out.generateSeconds = (performance.now() - t1) / 1000;
  out.text = reply.choices[0].message.content;
  out.finishReason = reply.choices[0].finish_reason;
  out.usage = reply.usage;
  await engine.unload();
  return out;
};
window.ready = true;
</script>`;

const server = createServer((req, res) => {
  const url = new URL(req.url, 'http://localhost');
  let file;
  if (url.pathname === '/favicon.ico') {
    res.writeHead(204);
    return res.end();
  } else if (url.pathname === '/') {
    res.writeHead(200, { 'content-type': 'text/html' });
    return res.end(PAGE);
  } else if (url.pathname === '/webllm/index.js') {
    file = webllmFile;
  } else if (url.pathname.startsWith('/models/')) {
    file = resolve(modelsDir, decodeURIComponent(url.pathname.slice('/models/'.length)));
    if (!file.startsWith(modelsDir + sep)) file = undefined;
  }
  if (!file || !existsSync(file) || !statSync(file).isFile()) {
    console.log(`  [server] 404 ${url.pathname}`);
    res.writeHead(404);
    return res.end('not found');
  }
  res.writeHead(200, { 'content-type': TYPES[extname(file)] ?? 'application/octet-stream', 'content-length': statSync(file).size });
  createReadStream(file).pipe(res);
});
await new Promise((ok) => server.listen(0, '127.0.0.1', ok));
const origin = `http://localhost:${server.address().port}`;

const playwright = await loadPlaywright();
const chromium = playwright.chromium ?? playwright.default?.chromium;
const browser = await chromium.launch({
  executablePath: opt.chromium,
  headless: true,
  args: [
    '--headless',
    '--no-sandbox',
    '--disable-background-networking',
    '--disable-component-update',
    '--disable-sync',
    '--no-first-run',
    '--enable-unsafe-webgpu',
  ],
});
let code = 0;
const result = {
  modelId: entry.model_id,
  webllmVersion,
  chromium: browser.version(),
  prompt: opt.prompt,
  system: opt.system ?? null,
  maxTokens: Number(opt['max-tokens']),
};
try {
  const page = await browser.newPage();
  page.setDefaultTimeout(Number(opt['timeout-min']) * 60_000);
  page.on('console', (m) => {
    const t = m.text();
    if (m.type() === 'error' || m.type() === 'warning' || t.startsWith('[progress]')) console.log(`  [page ${m.type()}] ${t.slice(0, 300)}`);
  });
  page.on('pageerror', (e) => console.log(`  [page error] ${e.message}`));
  await page.goto(origin + '/');
  await page.waitForFunction(() => window.ready === true);
  console.log(`check-webllm: web-llm ${webllmVersion}, ${browser.version()}, model ${entry.model_id}`);
  const out = await page.evaluate((cfg) => window.runCheck(cfg), {
    modelUrl: `${origin}/models/${entry.model_url}`,
    modelLib: `${origin}/models/${entry.model_lib}`,
    modelId: entry.model_id,
    requiredFeatures: entry.required_features,
    prompt: opt.prompt,
    system: opt.system,
    maxTokens: Number(opt['max-tokens']),
  });
  Object.assign(result, out, { ok: true });
  const x = out.usage?.extra ?? {};
  console.log(`  adapter: ${JSON.stringify(out.adapter)}`);
  console.log(
    `  load ${out.loadSeconds.toFixed(1)} s; generate ${out.generateSeconds.toFixed(1)} s for ${out.usage?.prompt_tokens} prompt + ${out.usage?.completion_tokens} output tokens`,
  );
  console.log(
    `  prefill ${x.prefill_tokens_per_s?.toFixed(3)} tokens/s, decode ${x.decode_tokens_per_s?.toFixed(3)} tokens/s, time to first token ${x.time_to_first_token_s?.toFixed(1)} s`,
  );
  console.log(`  text (${out.finishReason}): ${JSON.stringify(out.text)}`);
} catch (err) {
  result.ok = false;
  result.error = String(err?.message ?? err);
  console.error(`check-webllm: FAILED: ${result.error}`);
  code = 1;
} finally {
  await browser.close();
  server.close();
}
if (opt.json) writeFileSync(opt.json, JSON.stringify(result, null, 2) + '\n');
process.exit(code);
