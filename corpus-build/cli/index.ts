/**
 * `npm run index [-- --sources id,id] [--out dir] [--synthetic]`: build the static index
 * (`--synthetic`: with the committed synthetic questions as an extra BM25 field and vectors).
 */
import { parseArgs } from 'node:util';
import { join, resolve } from 'node:path';
import { buildIndex, type QuestionSource } from '../build/pipeline.js';
import { checkBank, readBank } from '../bank/store.js';
import type { Chunk } from '../../src/core/model/chunk.js';
import { consoleProgress } from '../build/progress.js';
import { createHash } from 'node:crypto';
import { readFileSync } from 'node:fs';
import { INDEX_DTYPE, modelFile, nodeEmbedder } from '../node/model.js';
import { cachedEmbedder } from '../node/embed-cache.js';

const { values } = parseArgs({
  options: {
    sources: { type: 'string' },
    out: { type: 'string', default: 'static-index' },
    offline: { type: 'boolean', default: false },
    'no-cache': { type: 'boolean', default: false },
    // synthetic questions as an extra BM25 field and vectors: opt-in while they cover only part of the
    // corpus (covered passages then outrank uncovered ones: docs/retrieval.md, "Synthetic questions")
    synthetic: { type: 'boolean', default: false },
    'no-synthetic': { type: 'boolean', default: false },
    // the questions indexed with their passages (pipeline.ts QuestionSource); docs/retrieval.md says why the default
    questions: { type: 'string' },
  },
});

const t0 = performance.now();
try {
  process.stderr.write('Loading the embedding model…\n');
  const modelSha = createHash('sha256').update(readFileSync(modelFile())).digest('hex');
  const base = await nodeEmbedder();
  // embeddings of texts already embedded with this exact model file are reused (.cache/, never committed)
  const embedder = values['no-cache'] ? null : cachedEmbedder(base, `.cache/embeddings/${modelSha.slice(0, 16)}.bin`, modelSha);
  const report = await buildIndex({
    outDir: values.out,
    sources: values.sources ? values.sources.split(',').map((s) => s.trim()) : undefined,
    embedder: embedder ?? base,
    modelFile: modelFile(),
    modelDtype: INDEX_DTYPE,
    progress: consoleProgress(),
    allowDownload: values.offline ? false : undefined,
    synthetic: values.synthetic && !values['no-synthetic'],
    ...(values.questions ? { questions: values.questions as QuestionSource } : {}),
  });
  for (const s of report.perSource) console.log(`${s.id}: ${s.chunks} chunks (from ${s.via})`);
  for (const w of report.warnings) console.log(`warning: ${w}`);
  for (const t of report.timings) console.log(`${t.stage.padEnd(26)} ${(t.ms / 1000).toFixed(2)} s`);
  const total = Object.values(report.artifacts).reduce((a, b) => a + b, 0);
  console.log(`static index: ${report.chunkCount} chunks, ${(total / 1e6).toFixed(2)} MB in ${report.outDir}`);
  console.log(`total ${((performance.now() - t0) / 1000).toFixed(1)} s`);
  reportBank(join(report.outDir, 'chunks.json'));
  if (embedder) {
    embedder.save();
    const { hits, misses } = embedder.stats();
    console.log(`embedding cache: ${hits} reused, ${misses} computed`);
  }
  await base.dispose?.();
} catch (e) {
  console.error(`\nIndex build failed: ${(e as Error).message}\nThe previous static-index/ (if any) was left untouched.`);
  process.exit(1);
}

/** The question bank held against the chunks just built: moved spans are carried, lost questions named by id (never dropped silently). */
function reportBank(chunksFile: string): void {
  let bank;
  try {
    bank = readBank(resolve('corpus-build/data'));
  } catch (e) {
    console.log(`question bank: not checked (${(e as Error).message})`);
    return;
  }
  const chunks = JSON.parse(readFileSync(chunksFile, 'utf8')) as Chunk[];
  const r = checkBank(bank, chunks);
  console.log(`question bank: ${bank.length} questions, ${r.current} current, ${r.moved.length} found again after the passages changed, ${r.lost.length} lost`);
  for (const l of r.lost) console.log(`  lost ${l.id} (${l.chunk}): ${l.why} — rewrite it (docs/question-bank.md)`);
}
