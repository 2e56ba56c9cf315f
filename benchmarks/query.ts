/**
 * `npm run bench:query [-- --questions <file.jsonl>] [--runs N]`: p50/p95 per
 * retrieval stage over the dev questions in Node (warm: one untimed pass first).
 */
import { readFileSync } from 'node:fs';
import { cpus } from 'node:os';
import { parseArgs } from 'node:util';
import { nodeEngine } from '../corpus-build/node/engine.js';

const { values } = parseArgs({
  options: {
    questions: { type: 'string', default: '../shared/eval/retrieval-dev.jsonl' },
    runs: { type: 'string', default: '2' },
    rerank: { type: 'boolean', default: false },
  },
});
const questions = readFileSync(values.questions!, 'utf8')
  .split('\n')
  .filter((l) => l.trim())
  .map((l) => (JSON.parse(l) as { question: string }).question);
const { engine } = await nodeEngine();
const config = values.rerank ? { rerank: { enabled: true } } : {};
for (const q of questions) await engine.retrieve(q, { config }); // warm-up
const perStage = new Map<string, number[]>();
const after: number[] = [];
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
  }
}
const pct = (xs: number[], p: number) => {
  const s = [...xs].sort((a, b) => a - b);
  return s[Math.min(s.length - 1, Math.floor((p / 100) * s.length))]!;
};
console.log(`machine: ${cpus().length} × ${cpus()[0]?.model ?? 'cpu'}, node ${process.version}; ${questions.length} questions × ${values.runs} runs${values.rerank ? ', rerank on' : ''}`);
console.log(`${'stage'.padEnd(18)} ${'p50 ms'.padStart(8)} ${'p95 ms'.padStart(8)}`);
for (const [k, xs] of perStage) console.log(`${k.padEnd(18)} ${pct(xs, 50).toFixed(2).padStart(8)} ${pct(xs, 95).toFixed(2).padStart(8)}`);
console.log(`${'after embedding'.padEnd(18)} ${pct(after, 50).toFixed(2).padStart(8)} ${pct(after, 95).toFixed(2).padStart(8)}`);
