/** Building the retrieval engine in Node (CLI, eval, bench). */
import { createRetrievalEngine, type RetrievalEngine } from '../../src/core/retrieval/engine.js';
import { DEFAULT_RETRIEVAL_CONFIG, type RetrievalConfig } from '../../src/core/retrieval/config.js';
import { voyBackend, type DenseBackend, type VoyConstructor } from '../../src/core/retrieval/dense.js';
import { MaxSimReranker } from '../../src/core/retrieval/rerank.js';
import type { LoadedIndex } from '../../src/core/index/load.js';
import type { Embedder } from '../../src/core/embedding/embedder.js';
import { loadIndexFromDir } from './index-fs.js';
import { nodeEmbedder } from './model.js';

export interface NodeEngine {
  engine: RetrievalEngine;
  index: LoadedIndex;
  embedder: Embedder;
}

/** voy loads only with --experimental-wasm-modules; without it the voy backend is unavailable. */
async function tryVoy(index: LoadedIndex): Promise<DenseBackend | undefined> {
  try {
    const mod = (await import('voy-search/voy_search.js')) as unknown as { Voy: VoyConstructor };
    return voyBackend(mod.Voy, index.vectors, index.manifest.dimension);
  } catch {
    return undefined;
  }
}

export async function nodeEngine(opts: { indexDir?: string; config?: RetrievalConfig; voy?: boolean } = {}): Promise<NodeEngine> {
  const index = await loadIndexFromDir(opts.indexDir);
  const embedder = await nodeEmbedder(index.manifest.model.dtype as 'fp32' | 'q8');
  const voy = opts.voy ? await tryVoy(index) : undefined;
  if (opts.voy && !voy) throw new Error('The voy backend needs Node started with --experimental-wasm-modules (npm scripts set it).');
  const engine = createRetrievalEngine({
    index,
    embedder,
    config: opts.config ?? DEFAULT_RETRIEVAL_CONFIG,
    backends: voy ? { voy } : {},
    reranker: new MaxSimReranker(embedder),
  });
  return { engine, index, embedder };
}
