/** Building the retrieval engine in Node (CLI, eval, bench). */
import { createRetrievalEngine, type RetrievalEngine } from '../../src/core/retrieval/engine.js';
import { configForEmbedder, DEFAULT_RETRIEVAL_CONFIG, gateForIndexModel, type RetrievalConfig, withConfig } from '../../src/core/retrieval/config.js';
import { voyBackend, type DenseBackend } from '../../src/core/retrieval/dense.js';
import type { Reranker } from '../../src/core/retrieval/rerank.js';
import { createCrossEncoderReranker, RERANKER_ID } from '../../src/core/retrieval/cross-encoder.js';
import { existsSync } from 'node:fs';
import { resolve } from 'node:path';
import type { LoadedIndex } from '../../src/core/index/load.js';
import type { Embedder } from '../../src/core/embedding/embedder.js';
import { DEFAULT_INDEX_DIR, loadIndexFromDir, loadVectorSetFromDir } from './index-fs.js';
import { MODELS_DIR, nodeEmbedder } from './model.js';
import { loadVoyInNode } from './voy.js';
import { createLocalRetrieval } from '../../src/core/ask/retrieve.js';
import { createScope, type Scope } from '../../src/core/ask/scope.js';
import type { DecisionModel } from '../../src/core/coverage/decide.js';
import { createHash } from 'node:crypto';
import { readFileSync } from 'node:fs';
import type { AskRetrieval } from '../../src/core/ask/types.js';
import type { DocumentAgents } from '../../src/core/agents/agents.js';
import type { UnitRankerModel } from '../../src/core/answer/unit-ranker.js';

export interface NodeEngine {
  engine: RetrievalEngine;
  index: LoadedIndex;
  /** The model retrieval runs with (the index's, or the vector set's with `embedder`). */
  embedder: Embedder;
  /** The index's built-in model: the source check's (its thresholds are calibrated on it), as in the app. */
  baseEmbedder: Embedder;
  /** The cross-encoder, when its model folder is present (public/models/skycite/…). */
  reranker: Reranker | null;
  /** The index as built (with the built-in model's vectors): the highlights' and the source check's, as in the app. */
  baseIndex: LoadedIndex;
}

/**
 * The Ask turn's retrieval port over a Node engine, as the runtime worker serves it in the app:
 * queries embedded with the retrieval model, highlights and the source check on the built-in model.
 */
export function nodeRetrieval(loaded: NodeEngine, agents: DocumentAgents | null): AskRetrieval {
  const deps = {
    index: loaded.baseIndex,
    engine: loaded.engine,
    agents,
    queryEmbedder: loaded.embedder,
    embedder: loaded.baseEmbedder,
    scope: nodeScope(loaded),
    unitRanker: nodeUnitRanker(),
  };
  return createLocalRetrieval(() => deps);
}

/**
 * "Not in these documents" as the app decides it (core/ask/scope.ts), bound to the index on disk; null
 * with the reason on stderr when the coverage data does not match it (rebuild with `npm run coverage:build`).
 */
export function nodeScope(loaded: Pick<NodeEngine, 'baseIndex' | 'baseEmbedder'>, indexDir = DEFAULT_INDEX_DIR): Scope | null {
  const manifestSha = createHash('sha256')
    .update(readFileSync(resolve(indexDir, 'manifest.json')))
    .digest('hex');
  const coverage = JSON.parse(readFileSync(resolve(COVERAGE_DIR, 'coverage.json'), 'utf8')) as unknown;
  const model = JSON.parse(readFileSync(resolve(COVERAGE_DIR, 'decision-model.json'), 'utf8')) as DecisionModel;
  const scope = createScope(coverage, model, loaded.baseIndex.manifest, manifestSha, loaded.baseEmbedder);
  if (scope.binding === 'stale') {
    console.error(
      'The coverage data (src/core/coverage/coverage.json) was built from other chunks than this index: no "not in these documents" verdicts. Rebuild it with npm run coverage:build.',
    );
    return null;
  }
  return scope;
}

const COVERAGE_DIR = resolve('src/core/coverage');

/** The trained cross-encoder from public/models, or null (with the reason on stderr) when it is missing or broken. */
export async function nodeReranker(): Promise<Reranker | null> {
  const dir = resolve(MODELS_DIR, RERANKER_ID);
  if (!existsSync(dir)) {
    console.error(
      `Reranker model not found in ${dir}: retrieval without reranking. Restore it with git checkout -- public/models, or train it (docs/reranker.md).`,
    );
    return null;
  }
  try {
    return await createCrossEncoderReranker({ modelId: RERANKER_ID, localModelPath: `${MODELS_DIR}/`, dtype: 'q8', device: 'cpu' });
  } catch (e) {
    console.error((e as Error).message);
    return null;
  }
}

/** The voy backend over the index's vectors (built now, as the browser worker builds it at load). */
async function voyFor(index: LoadedIndex): Promise<DenseBackend> {
  return voyBackend(await loadVoyInNode(), index.vectors, index.manifest.dimension);
}

/**
 * `embedder`: retrieve with another model's vector set (static-index/vectors/, `npm run
 * index:vectors`), as the app does once the user has downloaded that model. Default: the
 * model the index was built with.
 */
export async function nodeEngine(
  opts: {
    indexDir?: string;
    config?: RetrievalConfig;
    voy?: boolean;
    reranker?: boolean;
    embedder?: string;
    /** calibrate:gate only: the gate is what is being calibrated (every call overrides it), so no calibration is checked or applied. */
    uncalibratedGate?: boolean;
  } = {},
): Promise<NodeEngine> {
  const base = await loadIndexFromDir(opts.indexDir);
  const other = opts.embedder && opts.embedder !== base.manifest.model.id ? opts.embedder : null;
  const index = other ? await loadVectorSetFromDir(base, other, opts.indexDir) : base;
  // the model the index (or the vector set) was built with, as the browser does
  const embedder = await nodeEmbedder(index.manifest.model.dtype as 'fp32' | 'q8', index.manifest.model.id);
  // the source check keeps the built-in model (its thresholds are calibrated on it), as the app does
  const baseEmbedder = other ? await nodeEmbedder(base.manifest.model.dtype as 'fp32' | 'q8', base.manifest.model.id) : embedder;
  const voy = opts.voy ? await voyFor(index) : undefined;
  const reranker = opts.reranker === false ? null : await nodeReranker();
  const engine = createRetrievalEngine({
    index,
    embedder,
    // another embedder's vectors come with their own calibrated gate and cross-validated choices
    config: opts.uncalibratedGate
      ? (opts.config ?? DEFAULT_RETRIEVAL_CONFIG)
      : other
        ? withConfig(opts.config ?? DEFAULT_RETRIEVAL_CONFIG, configForEmbedder(other))
        : // the built-in model's gate, checked against the build the index names (throws on another build); a given config keeps its own
          (opts.config ?? withConfig(DEFAULT_RETRIEVAL_CONFIG, { gate: gateForIndexModel(index.manifest.model) })),
    backends: voy ? { voy } : {},
    ...(reranker ? { reranker } : {}),
  });
  return { engine, index, embedder, baseEmbedder, reranker, baseIndex: base };
}

/** The unit ranker the app ships (src/core/answer/unit-ranker.json, `npm run train:units`), or null when it is missing. */
export function nodeUnitRanker(): UnitRankerModel | null {
  const file = resolve('src/core/answer/unit-ranker.json');
  if (!existsSync(file)) {
    console.error('No unit ranker (src/core/answer/unit-ranker.json): evidence-only answers highlight sentences. Train it with npm run train:units.');
    return null;
  }
  return JSON.parse(readFileSync(file, 'utf8')) as UnitRankerModel;
}
