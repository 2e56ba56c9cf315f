/**
 * `npm run index:vectors -- [--model google/embeddinggemma-300m] [--index static-index] [--no-cache]`:
 * embed the static index's texts with a second model and write its vector set
 * (static-index/vectors/<model>/, listed in static-index/vector-sets.json). The model
 * folder must exist under public/models (EmbeddingGemma: `npm run models:prepare -- --embedder`).
 */
import { createHash } from 'node:crypto';
import { existsSync, readFileSync } from 'node:fs';
import { parseArgs } from 'node:util';
import { EMBEDDING_GEMMA_ID } from '../../src/core/embedding/models.js';
import { buildVectorSet } from '../build/vector-set.js';
import { consoleProgress } from '../build/progress.js';
import { cachedEmbedder } from '../node/embed-cache.js';
import { DEFAULT_INDEX_DIR, loadIndexFromDir } from '../node/index-fs.js';
import { modelFile, nodeEmbedder } from '../node/model.js';

const USAGE = `Usage: npm run index:vectors -- [--model <id>] [--index <dir>] [--no-cache]
  --model     embedder folder under public/models (default ${EMBEDDING_GEMMA_ID})
  --index     the static index to extend (default static-index)
  --no-cache  embed everything again (default: reuse .cache/embeddings/ for texts embedded before)`;

const { values } = parseArgs({
  options: {
    model: { type: 'string', default: EMBEDDING_GEMMA_ID },
    index: { type: 'string', default: DEFAULT_INDEX_DIR },
    'no-cache': { type: 'boolean', default: false },
    help: { type: 'boolean', default: false },
  },
});
if (values.help) {
  console.log(USAGE);
  process.exit(0);
}

const t0 = performance.now();
try {
  const file = modelFile('q8', values.model);
  if (!existsSync(file)) {
    throw new Error(
      `${file} is missing. ${values.model === EMBEDDING_GEMMA_ID ? 'Write it with `npm run models:prepare -- --embedder` (docs/models.md).' : 'Put the model folder under public/models.'}`,
    );
  }
  const index = await loadIndexFromDir(values.index);
  process.stderr.write(`Loading ${values.model}…\n`);
  const modelSha = createHash('sha256').update(readFileSync(file)).digest('hex');
  const base = await nodeEmbedder('q8', values.model);
  const embedder = values['no-cache'] ? null : cachedEmbedder(base, `.cache/embeddings/${modelSha.slice(0, 16)}.bin`, modelSha);
  try {
    const r = await buildVectorSet({
      index,
      indexDir: values.index,
      embedder: embedder ?? base,
      modelFile: file,
      modelDtype: 'q8',
      progress: consoleProgress(),
    });
    for (const t of r.timings) console.log(`${t.stage.padEnd(44)} ${(t.ms / 1000).toFixed(1)} s`);
    console.log(`vector set: ${(r.bytes / 1e6).toFixed(2)} MB in ${r.dir}`);
  } finally {
    embedder?.save();
    if (embedder) console.log(`embedding cache: ${embedder.stats().hits} reused, ${embedder.stats().misses} computed`);
  }
  console.log(`total ${((performance.now() - t0) / 1000).toFixed(1)} s`);
  await base.dispose?.();
} catch (e) {
  console.error(`\nVector set build failed: ${(e as Error).message}`);
  process.exit(1);
}
