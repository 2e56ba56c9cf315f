/**
 * `npm run bench:query [-- --questions <file.jsonl>] [--runs N] [--no-rerank]`: p50/p95 per
 * retrieval stage over the dev questions in Node (warm: one untimed pass first), for both dense
 * backends — the exact scan (Node's default: eval, CLI) and voy (the browser worker's) — plus
 * the time voy takes to load and build from vectors.f32. The cross-encoder reranks the fused top 20
 * (the default) when its model is present; `--no-rerank` measures without it; the
 * total per query (embedding included) is printed last. `--embedder <id>` measures retrieval
 * with another model's vector set (npm run index:vectors), e.g. google/embeddinggemma-300m.
 */
import { readFileSync } from 'node:fs';
import { cpus } from 'node:os';
import { parseArgs } from 'node:util';
import { nodeEngine } from '../corpus-build/node/engine.js';
import { loadVoyInNode } from '../corpus-build/node/voy.js';
import type { RetrievalConfigOverrides } from '../src/core/retrieval/config.js';
import { voyBackend } from '../src/core/retrieval/dense.js';

const { values } = parseArgs({
  options: {
    questions: { type: 'string', default: '../shared/eval/retrieval-dev.jsonl' },
    runs: { type: 'string', default: '2' },
    rerank: { type: 'boolean', default: true },
    'no-rerank': { type: 'boolean', default: false },
    embedder: { type: 'string' },
  },
});
const questions = readFileSync(values.questions!, 'utf8')
  .split('\n')
  .filter((l) => l.trim())
  .map((l) => (JSON.parse(l) as { question: string }).question);
// voy's wasm instantiation, timed before the engine (which reuses the instance)
const tLoad = performance.now();
const Voy = await loadVoyInNode();
const loadMs = performance.now() - tLoad;
const { engine, index } = await nodeEngine({ voy: true, ...(values.embedder ? { embedder: values.embedder } : {}) });

const pct = (xs: number[], p: number) => {
  const s = [...xs].sort((a, b) => a - b);
  return s[Math.min(s.length - 1, Math.floor((p / 100) * s.length))]!;
};

// voy's build from the vectors, as the worker does it at start
const builds: number[] = [];
for (let i = 0; i < 5; i++) {
  const t = performance.now();
  voyBackend(Voy, index.vectors, index.manifest.dimension);
  builds.push(performance.now() - t);
}

console.log(
  `machine: ${cpus().length} × ${cpus()[0]?.model ?? 'cpu'}, node ${process.version}; ${questions.length} questions × ${values.runs} runs${values['no-rerank'] ? ', rerank off' : ', rerank on when the model is present'}; embedder ${index.manifest.model.id}`,
);
console.log(
  `voy: wasm instantiation ${loadMs.toFixed(1)} ms; build from ${index.chunks.length} × ${index.manifest.dimension} vectors p50 ${pct(builds, 50).toFixed(1)} ms (5 builds)`,
);

for (const backend of ['exact', 'voy'] as const) {
  const config: RetrievalConfigOverrides = { dense: { backend }, rerank: { enabled: !values['no-rerank'] } };
  for (const q of questions) await engine.retrieve(q, { config }); // warm-up
  const perStage = new Map<string, number[]>();
  const after: number[] = [];
  const total: number[] = [];
  for (let r = 0; r < Number(values.runs); r++) {
    for (const q of questions) {
      const res = await engine.retrieve(q, { config });
      let rest = 0;
      const sums = new Map<string, number>();
      for (const s of res.trace) {
        sums.set(s.stage, (sums.get(s.stage) ?? 0) + s.ms);
        if (s.stage !== 'embed query') rest += s.ms;
      }
      for (const [k, v] of sums) perStage.set(k, [...(perStage.get(k) ?? []), v]);
      after.push(rest);
      total.push(res.trace.reduce((a, x) => a + x.ms, 0));
    }
  }
  console.log(`\ndense backend: ${backend}`);
  console.log(`${'stage'.padEnd(20)} ${'p50 ms'.padStart(8)} ${'p95 ms'.padStart(8)}`);
  for (const [k, xs] of perStage) console.log(`${k.padEnd(20)} ${pct(xs, 50).toFixed(2).padStart(8)} ${pct(xs, 95).toFixed(2).padStart(8)}`);
  console.log(`${'after embedding'.padEnd(20)} ${pct(after, 50).toFixed(2).padStart(8)} ${pct(after, 95).toFixed(2).padStart(8)}`);
  console.log(`${'total'.padEnd(20)} ${pct(total, 50).toFixed(2).padStart(8)} ${pct(total, 95).toFixed(2).padStart(8)}`);
}
