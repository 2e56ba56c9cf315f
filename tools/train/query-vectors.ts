/**
 * `npx tsx tools/train/query-vectors.ts [model id] [split]`: one embedding model's query vectors of
 * the question bank's questions of one split (default: EmbeddingGemma, train), for
 * tools/train/query_adapter_cv.py. Writes .cache/query-vectors/<model slug>-<split>.f32 (rows in
 * the order of the .jsonl next to it: id, passage, CV fold). The held-out part is never asked for by
 * the adapter experiment.
 */
import { mkdirSync, readFileSync, writeFileSync } from 'node:fs';
import { nodeEmbedder } from '../../corpus-build/node/model.js';

const model = process.argv[2] ?? 'google/embeddinggemma-300m';
const split = process.argv[3] ?? 'train';
const bank = readFileSync('corpus-build/data/question-bank.jsonl', 'utf8')
  .split('\n')
  .filter(Boolean)
  .map((l) => JSON.parse(l) as { id: string; chunk: string; fold: number; split: string; q: string });
const qs = bank.filter((q) => q.split === split && q.q);
const embedder = await nodeEmbedder('q8', model);
const rows: number[] = [];
const t0 = Date.now();
for (let i = 0; i < qs.length; i += 16) {
  for (const v of await embedder.embed(
    qs.slice(i, i + 16).map((q) => q.q),
    'query',
  ))
    rows.push(...v);
  if (i % 320 === 0) console.error(`${i}/${qs.length} questions, ${((Date.now() - t0) / 1000).toFixed(0)} s`);
}
const base = `.cache/query-vectors/${model.replace('/', '--')}-${split}`;
mkdirSync('.cache/query-vectors', { recursive: true });
writeFileSync(`${base}.f32`, Buffer.from(new Float32Array(rows).buffer));
writeFileSync(`${base}.jsonl`, qs.map((q) => JSON.stringify({ id: q.id, chunk: q.chunk, fold: q.fold })).join('\n') + '\n');
console.error(`${qs.length} query vectors in ${((Date.now() - t0) / 1000).toFixed(0)} s → ${base}.f32`);
