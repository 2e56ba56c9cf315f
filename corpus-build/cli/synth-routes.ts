/**
 * `npm run synth:routes -- --model <file.gguf> [--seeds 2] [--threads 2]`
 *
 * Writes synthetic routing questions (corpus-build/data/route-questions.jsonl, committed) for
 * every table the SORA calculator holds: `database` questions (a value looked up for the values
 * given) and `both` questions (the value plus an obligation or explanation), each table and path
 * with `--seeds` sampling seeds. Resumable: a (table, path, seed, prompt version) already written
 * is skipped; each record is appended as soon as it is written. A meta file records the model's
 * SHA-256, the prompt version, the sampling settings and the data file's SHA-256.
 * The router is trained on these and on the passage questions (`npm run train:router`).
 * Never run in CI (about 15 minutes on two cores with the 1.5B model).
 */
import { appendFileSync, createReadStream, existsSync, readFileSync, writeFileSync } from 'node:fs';
import { createHash } from 'node:crypto';
import { basename, resolve } from 'node:path';
import { parseArgs } from 'node:util';
import { chunkSources } from '../build/pipeline.js';
import { gridForChunk } from '../../src/core/sora/tables/grid.js';
import { cleanQuestions } from '../synth/prompt.js';
import { repeatsRouteExample } from '../synth/route-prompt.js';
import {
  EXAMPLE_REPLIES,
  EXAMPLE_TABLE,
  ROUTE_FILE,
  ROUTE_PROMPT_VERSION,
  ROUTE_STYLES,
  ROUTE_SYSTEM_PROMPT,
  type RoutePathKind,
  type RouteQuestions,
  routeSchema,
  tablePrompt,
} from '../synth/route-prompt.js';
import { DATA_DIR, parseJsonl } from '../synth/store.js';

const HELP = `Usage: npm run synth:routes -- --model <file.gguf> [--seeds 2] [--threads 2] [--temperature 0.8]

Writes corpus-build/data/route-questions.jsonl: synthetic database / both routing questions
for each table the calculator holds (committed; never run in CI).`;

const { values } = parseArgs({
  options: {
    model: { type: 'string' },
    seeds: { type: 'string', default: '2' },
    threads: { type: 'string', default: '2' },
    temperature: { type: 'string', default: '0.8' },
    help: { type: 'boolean', short: 'h', default: false },
  },
});
if (values.help) {
  console.log(HELP);
  process.exit(0);
}
const fail = (msg: string): never => {
  console.error(`synth:routes: ${msg}`);
  process.exit(2);
};
if (!values.model) fail(`--model is required.\n\n${HELP}`);
const modelPath = resolve(values.model!);
if (!existsSync(modelPath)) fail(`model file not found: ${modelPath}`);
const seeds = Number(values.seeds);
if (!Number.isInteger(seeds) || seeds < 1) fail('--seeds must be a positive integer');

const settings = { temperature: Number(values.temperature), topK: 40, topP: 0.95, maxTokens: 500, contextSize: 3072, threads: Number(values.threads), seeds };
const outPath = resolve(DATA_DIR, ROUTE_FILE);
const metaPath = resolve(DATA_DIR, ROUTE_FILE.replace(/\.jsonl$/, '.meta.json'));

async function fileSha(path: string): Promise<string> {
  const h = createHash('sha256');
  for await (const b of createReadStream(path)) h.update(b as Buffer);
  return h.digest('hex');
}
const seedOf = (s: string): number => {
  let h = 0x811c9dc5;
  for (let i = 0; i < s.length; i++) h = Math.imul(h ^ s.charCodeAt(i), 0x01000193) >>> 0;
  return h;
};

const { chunks } = await chunkSources({});
const tables = chunks.filter((c) => gridForChunk(c));
if (!tables.length) fail('no calculator table found among the chunks: is CORPUS_DIR set?');
const existing = existsSync(outPath)
  ? parseJsonl<RouteQuestions>(readFileSync(outPath, 'utf8'), ROUTE_FILE).filter((r) => r.prompt === ROUTE_PROMPT_VERSION)
  : [];
const have = new Set(existing.map((r) => `${r.table}\u0000${r.path}\u0000${r.seed}`));
const todo: { table: (typeof tables)[number]; path: RoutePathKind; seed: number }[] = [];
for (const table of tables)
  for (const path of Object.keys(ROUTE_STYLES) as RoutePathKind[])
    for (let seed = 0; seed < seeds; seed++) if (!have.has(`${table.id}\u0000${path}\u0000${seed}`)) todo.push({ table, path, seed });
console.error(`${tables.length} tables, ${have.size} records already written, ${todo.length} to write.`);

const { getLlama, LlamaChatSession } = await import('node-llama-cpp');
const model = { name: basename(modelPath).replace(/\.gguf$/i, ''), file: basename(modelPath), sha256: await fileSha(modelPath) };
const llama = await getLlama({ gpu: false, build: 'never', logLevel: 'error' as never });
const llm = await llama.loadModel({ modelPath });
const context = await llm.createContext({ contextSize: settings.contextSize, threads: settings.threads });
const session = new LlamaChatSession({ contextSequence: context.getSequence(), systemPrompt: ROUTE_SYSTEM_PROMPT });
const t0 = Date.now();
let n = 0;
let unusable = 0;
for (const { table, path, seed } of todo) {
  const grammar = await llama.createGrammarForJsonSchema(routeSchema(path) as never);
  session.setChatHistory([
    { type: 'system', text: ROUTE_SYSTEM_PROMPT },
    { type: 'user', text: tablePrompt(path, EXAMPLE_TABLE.caption, EXAMPLE_TABLE.text) },
    { type: 'model', response: [JSON.stringify(EXAMPLE_REPLIES[path])] },
  ]);
  const text = await session.prompt(tablePrompt(path, table.title, table.text), {
    grammar,
    temperature: settings.temperature,
    topK: settings.topK,
    topP: settings.topP,
    seed: seedOf(`${table.id}#${path}#${seed}`),
    maxTokens: settings.maxTokens,
  });
  n++;
  let out: Record<string, string[]> | null = null;
  try {
    out = JSON.parse(text) as Record<string, string[]>;
  } catch {
    unusable++;
  }
  if (out) {
    // a reply that is not a question (a copied cell, a statement) is dropped, so is one repeating the example
    const questions = ROUTE_STYLES[path].flatMap((s) =>
      cleanQuestions(out![s.key] ?? [])
        .filter((q) => q.endsWith('?') && !repeatsRouteExample(q))
        .map((q) => ({ style: s.key, q })),
    );
    const rec: RouteQuestions = { table: table.id, path, seed, prompt: ROUTE_PROMPT_VERSION, questions };
    appendFileSync(outPath, `${JSON.stringify(rec)}\n`);
  }
  const s = (Date.now() - t0) / 1000;
  console.error(
    `  ${n}/${todo.length} ${s.toFixed(0)} s, ETA ${(((todo.length - n) * s) / n / 60).toFixed(1)} min  ${table.title.slice(0, 50)} · ${path} · seed ${seed}${out ? '' : ' (unusable reply: left for the next run)'}`,
  );
}
// deterministic order: table order of the corpus, then path, then seed
const all = parseJsonl<RouteQuestions>(existsSync(outPath) ? readFileSync(outPath, 'utf8') : '', ROUTE_FILE).filter((r) => r.prompt === ROUTE_PROMPT_VERSION);
const order = new Map(tables.map((t, i) => [t.id, i]));
const latest = new Map(all.map((r) => [`${r.table}\u0000${r.path}\u0000${r.seed}`, r]));
const sorted = [...latest.values()]
  .filter((r) => order.has(r.table))
  .sort((a, b) => order.get(a.table)! - order.get(b.table)! || a.path.localeCompare(b.path) || a.seed - b.seed);
writeFileSync(outPath, sorted.map((r) => JSON.stringify(r)).join('\n') + '\n');
const meta = {
  formatVersion: 1,
  model,
  generator: `corpus-build/cli/synth-routes.ts (${ROUTE_PROMPT_VERSION})`,
  settings: { ...settings, seed: 'FNV-1a 32-bit of "<table chunk id>#<path>#<seed index>"', grammar: 'JSON schema of corpus-build/synth/route-prompt.ts' },
  file: { name: ROUTE_FILE, sha256: await fileSha(outPath), records: sorted.length, questions: sorted.reduce((a, r) => a + r.questions.length, 0) },
  lastRun: { seconds: Math.round((Date.now() - t0) / 1000), written: n - unusable, unusableReplies: unusable },
};
writeFileSync(metaPath, `${JSON.stringify(meta, null, 2)}\n`);
console.log(`${ROUTE_FILE}: ${meta.file.records} records, ${meta.file.questions} questions; sha256 ${meta.file.sha256}`);
await context.dispose();
await llm.dispose();
