/**
 * The runtime in the current thread, composed of its parts: the static index fetched and verified
 * against its manifest (and the manifest's SHA-256 for the audit record), the embedding model on the
 * device device-choice.ts picks, the retrieval-model switcher (retrieval-models.ts), the Ask turn's
 * retrieval port (core/ask/retrieve.ts), the Library's reads (library.ts) and the user's documents
 * (user-documents.ts). The Web Worker hosts exactly this.
 */
import { createLocalRetrieval, draftRequirementsLocal, type LocalRetrievalDeps } from '../core/ask/retrieve.js';
import { createScope, type Scope } from '../core/ask/scope.js';
import type { DecisionModel } from '../core/coverage/decide.js';
import COVERAGE from '../core/coverage/coverage.json';
import DECISION_MODEL from '../core/coverage/decision-model.json';
import UNIT_RANKER_JSON from '../core/answer/unit-ranker.json';
import type { UnitRankerModel } from '../core/answer/unit-ranker.js';
import { type AgentConfig, agentConfigForEmbedder, createDocumentAgents } from '../core/agents/agents.js';
import type { Embedder } from '../core/embedding/embedder.js';
import { embedderSpec } from '../core/embedding/models.js';
import { createTransformersEmbedder } from '../core/embedding/transformers-embedder.js';
import { loadIndexFromBytes, type LoadedIndex } from '../core/index/load.js';
import { IndexIntegrityError, parseManifest, sha256Hex, type IndexManifest } from '../core/index/manifest.js';
import { configForEmbedder, DEFAULT_RETRIEVAL_CONFIG, gateForEmbedder, gateForIndexModel, withConfig, type RetrievalConfig } from '../core/retrieval/config.js';
import { createCrossEncoderReranker, RERANKER_ID } from '../core/retrieval/cross-encoder.js';
import { voyBackend, type DenseBackend, type VoyConstructor } from '../core/retrieval/dense.js';
import { createRetrievalEngine } from '../core/retrieval/engine.js';
import type { Reranker } from '../core/retrieval/rerank.js';
import { withUserRows } from '../core/userdocs/user-index.js';
import { createUserDocsStore, type UserDocsStore } from '../storage/user-docs-store.js';
import { DEFAULT_RUNTIME_OPTIONS } from './defaults.js';
import { env as transformersEnv } from '@huggingface/transformers';
import { watchDownloads, type FetchHolder, type WatchDownloads } from './download-progress.js';
import { chooseDevice, probeAdapter, retrievalModelDevice, type AdapterProbe, type DeviceChoice, type EmbeddingDevice } from './device-choice.js';
import { IndexSourceError, RuntimeError, RuntimeNotReadyError, type ProblemSource } from './errors.js';
import { installModelVerification, loadModelIntegrity, sriFromHex, type ModelIntegrity, type TransformersEnvLike } from './model-integrity.js';
import { absoluteUrl, fetchBytes } from './fetch-bytes.js';
import { createLibrary, type Library } from './library.js';
import { ortWasmPaths } from './ort-files.js';
import { applyOrtThreads, chooseOrtThreads, threadEnvironment, type OnnxEnvLike, type OrtThreading, type ThreadEnvironment } from './ort-threads.js';
import { createRetrievalModels, type RetrievalModels } from './retrieval-models.js';
import type { DownloadProgress, RetrievalModelStatus, RuntimeOptions, RuntimeStatus, SkyCiteRuntime } from './types.js';
import { createImportScheduler, createUserDocuments, type UserDocuments } from './user-documents.js';
import { cachingFetch } from './vector-set-cache.js';

export interface InProcessDeps {
  fetchImpl?: typeof fetch;
  /** Inject an embedder (tests); default loads the model folder with transformers.js (`onProgress`: its files' download). */
  createEmbedder?: (device: 'webgpu' | 'wasm', opts: RuntimeOptions, modelId: string, onProgress?: (p: DownloadProgress) => void) => Promise<Embedder>;
  /** Tests: the WebGPU adapter as the device choice sees it (default: navigator.gpu). */
  probeAdapter?: () => Promise<AdapterProbe>;
  /** Tests: time of a warm embedding on a device (default: measured). */
  timeEmbedding?: (embedder: Embedder) => Promise<number>;
  /** Inject a reranker (tests); default loads the cross-encoder with transformers.js on WASM. */
  createReranker?: (opts: RuntimeOptions) => Promise<Reranker>;
  baseUrl?: string;
  /** The evidence gate of another embedder's vector set (default: its calibration, config.ts gateForEmbedder). */
  gateFor?: (modelId: string) => RetrievalConfig['gate'];
  /** The document agents' configuration with an embedder (`null`: the built-in one; default: agents.ts agentConfigForEmbedder). */
  agentConfigFor?: (modelId: string | null) => AgentConfig;
  /** Loads voy's WASM module (the worker: from the app's assets; Node: from node_modules). Without it the dense stage is exact. */
  loadVoy?: () => Promise<VoyConstructor>;
  /** The store of the user's documents (tests: fake-indexeddb, or null for none); default IndexedDB where it exists. */
  userDocStore?: UserDocsStore | null;
  /** Coverage data and decision model (tests); null: no scope verdicts; default: the shipped src/core/coverage files. */
  scope?: { coverage: unknown; model: DecisionModel } | null;
  /** Tests: cross-origin isolation and cores as the thread choice sees them (default: this global's). */
  threadEnvironment?: ThreadEnvironment;
  /** Tests: where the thread count is set (default: onnxruntime-web's env through transformers.js). */
  applyThreads?: (threads: number) => void;
}

/** The unit ranker trained on the question bank (npm run train:units): quoted answers. */
const UNIT_RANKER = UNIT_RANKER_JSON as unknown as UnitRankerModel;

export const NO_ADAPTER: AdapterProbe = { available: false, software: false, name: '', unavailableReason: 'no WebGPU adapter' };

/** What init() put together; null before it. */
interface Loaded {
  /** What retrieval searches now: the static index with the user's documents merged (searchOver replaces it). */
  search: { index: LoadedIndex };
  /** The index's own embedder (highlights, the grounding check, the user's documents). */
  embedder: Embedder;
  models: RetrievalModels;
  library: Library;
  userDocs: UserDocuments;
  /** What the documents do not hold, bound to this index (null when its data cannot be read). */
  scope: Scope | null;
}

/** Model downloads' progress, read through transformers.js's fetch (wrapped once, on first use). */
let downloads: WatchDownloads | null = null;
const modelDownloads = (): WatchDownloads => (downloads ??= watchDownloads(transformersEnv as unknown as FetchHolder));

/** The model files' SHA-256 of the build this runtime was last initialised with (model-integrity.ts reads it at each use). */
let modelIntegrity: ModelIntegrity | null = null;

/**
 * Verify every model file transformers.js reads, in its cache and as it fetches it (model-integrity.ts),
 * once per thread. The download progress is wrapped first, so it counts the bytes as they arrive.
 */
function verifyModelFiles(): void {
  modelDownloads();
  const caches = (globalThis as { caches?: CacheStorage }).caches;
  installModelVerification(transformersEnv as unknown as TransformersEnvLike, { integrity: () => modelIntegrity, caches });
}

/** The first error in a cause chain that says where its problem is (a model file's, through ModelLoadError). */
function sourced(e: unknown): RuntimeError | null {
  for (let x: unknown = e, depth = 0; x instanceof Error && depth < 5; x = x.cause, depth++) if (x instanceof RuntimeError && x.source) return x;
  return null;
}

/**
 * Where the index files that failed came from: this device's stored copy when the offline copy holds
 * exactly these bytes (the service worker answered from it), else the server (a first visit, or a file
 * the host changed).
 */
async function indexFilesSource(files: readonly { url: string; bytes: Uint8Array }[]): Promise<ProblemSource> {
  const caches = (globalThis as { caches?: CacheStorage }).caches;
  if (!caches) return 'host';
  for (const f of files) {
    const hit = await caches.match(f.url, { ignoreSearch: true }).catch(() => undefined);
    if (!hit) continue;
    const stored = new Uint8Array(await hit.arrayBuffer());
    if (stored.length === f.bytes.length && stored.every((b, i) => b === f.bytes[i])) return 'device';
  }
  return 'host';
}

/** An index file that is not what the build made: the error again, saying whose copy it is (the host's, or this device's). */
async function withSource<T>(files: readonly { url: string; bytes: Uint8Array }[], read: () => Promise<T>): Promise<T> {
  try {
    return await read();
  } catch (e) {
    if (e instanceof IndexIntegrityError) throw new IndexSourceError(await indexFilesSource(files), e);
    throw e;
  }
}

/** What every step of init() works with: the options asked for, where the app is, how it fetches, what is injected. */
interface InitContext {
  readonly deps: InProcessDeps;
  readonly opts: RuntimeOptions;
  /** The URL the options' paths resolve against. */
  readonly base: string;
  readonly fetchImpl: typeof fetch;
}

const manifestUrl = (ctx: InitContext): string => absoluteUrl(`${ctx.opts.indexBaseUrl}manifest.json`, ctx.base);

// ------------------------------------------------------------------------------------------------
// init, step by step

/** The index manifest's bytes and the model it names: read first, so the model loads while the index is fetched. */
async function readManifest(ctx: InitContext): Promise<{ bytes: Uint8Array; model: IndexManifest['model'] }> {
  const url = manifestUrl(ctx);
  const bytes = await fetchBytes(url, ctx.fetchImpl);
  return withSource([{ url, bytes }], async () => ({ bytes, model: parseManifest(new TextDecoder().decode(bytes)).model }));
}

/**
 * The build's SHA-256 of every model file (where the browser keeps caches: the app, not Node), with the
 * index's own model bound by the manifest too, and transformers.js' reads verified against it.
 */
async function verifyModels(ctx: InitContext, list: Promise<ModelIntegrity | null>, model: IndexManifest['model']): Promise<void> {
  modelIntegrity = await list;
  if (!modelIntegrity) return;
  if (model.dtype === 'q8') {
    // the index binds its model's weights by SHA-256 too (the list, when present, says the same)
    const onnx = new URL(`${ctx.opts.modelBaseUrl}${model.id}/onnx/model_quantized.onnx`, ctx.base).pathname;
    if (!modelIntegrity.byPath.has(onnx)) modelIntegrity.byPath.set(onnx, sriFromHex(model.sha256));
  }
  verifyModelFiles();
}

/** ONNX Runtime's threads, fixed by its first session: set before any model loads (ort-threads.ts). */
function setThreads(ctx: InitContext): OrtThreading {
  const threads = chooseOrtThreads(ctx.deps.threadEnvironment ?? threadEnvironment(), ctx.opts.threads);
  (ctx.deps.applyThreads ?? ((n: number) => applyOrtThreads(transformersEnv.backends.onnx as OnnxEnvLike | undefined, n)))(threads.threads);
  return threads;
}

/** An embedding model loaded with transformers.js from the app's models folder (`onProgress`: its files' download). */
async function transformersEmbedder(ctx: InitContext, device: EmbeddingDevice, modelId: string, onProgress?: (p: DownloadProgress) => void): Promise<Embedder> {
  // a path, not a full URL: transformers.js only looks up local files (e.g. tokenizer.json) by path
  const localModelPath = new URL(ctx.opts.modelBaseUrl, ctx.base).pathname;
  const stop = onProgress ? modelDownloads()(`${localModelPath}${modelId}/`, onProgress) : () => undefined;
  try {
    return await createTransformersEmbedder({
      modelId,
      dtype: 'q8',
      localModelPath,
      device,
      batchSize: 8,
      ortWasmPaths: ortWasmPaths(device, ctx.opts.ortBaseUrl, ctx.base),
    });
  } finally {
    stop();
  }
}

/** How embedders are made in this runtime, and what the first one fixed: the ORT build (ort-files.ts) and the adapter probed. */
interface Embedders {
  make(device: EmbeddingDevice, modelId: string, onProgress?: (p: DownloadProgress) => void): Promise<Embedder>;
  /** The ORT build the worker started with, the first model's (WebGPU needs the asyncify one); null before any. */
  readonly ortBuild: EmbeddingDevice | null;
  /** The WebGPU adapter as the built-in model's device choice found it; null when it did not probe. */
  readonly probed: AdapterProbe | null;
  probe(): Promise<AdapterProbe>;
}

function embedders(ctx: InitContext): Embedders {
  let ortBuild: EmbeddingDevice | null = null;
  let probed: AdapterProbe | null = null;
  const probe = ctx.deps.probeAdapter ?? (() => probeAdapter());
  return {
    make(device, modelId, onProgress) {
      ortBuild ??= device;
      return ctx.deps.createEmbedder ? ctx.deps.createEmbedder(device, ctx.opts, modelId, onProgress) : transformersEmbedder(ctx, device, modelId, onProgress);
    },
    get ortBuild() {
      return ortBuild;
    },
    get probed() {
      return probed;
    },
    probe: async () => (probed = await probe()),
  };
}

/** The index's own model on the device device-choice.ts picks; a model file no verified copy could be had of throws its own error, which says where the problem is. */
async function loadBuiltInModel(ctx: InitContext, make: Embedders, modelId: string): Promise<{ embedder: Embedder; choice: DeviceChoice; ms: number }> {
  const t = performance.now();
  try {
    const chosen = await chooseDevice({
      requested: ctx.opts.device,
      probe: make.probe,
      make: (d) => make.make(d, modelId),
      ...(ctx.deps.timeEmbedding ? { time: ctx.deps.timeEmbedding } : {}),
    });
    return { ...chosen, ms: performance.now() - t };
  } catch (e) {
    throw sourced(e) ?? e;
  }
}

/** The static index's files, fetched and verified against the manifest, and the manifest's SHA-256 (for the audit record). */
async function loadStaticIndex(ctx: InitContext, manifestBytes: Uint8Array): Promise<{ index: LoadedIndex; manifestSha: string }> {
  const fetched = [{ url: manifestUrl(ctx), bytes: manifestBytes }];
  return withSource(fetched, async () => {
    const manifestJson = new TextDecoder().decode(manifestBytes);
    const manifest = parseManifest(manifestJson);
    const files: Record<string, Uint8Array> = {};
    await Promise.all(
      Object.keys(manifest.artifacts).map(async (name) => {
        const url = absoluteUrl(`${ctx.opts.indexBaseUrl}${name}`, ctx.base);
        files[name] = await fetchBytes(url, ctx.fetchImpl);
        fetched.push({ url, bytes: files[name] });
      }),
    );
    return { index: await loadIndexFromBytes(manifestJson, files), manifestSha: await sha256Hex(manifestBytes) };
  });
}

/** The cross-encoder, when asked for: on WASM (transformers.js issue 1181: identical scores on WebGPU for this model type); its files missing or broken leave retrieval with the fused order. */
async function loadReranker(ctx: InitContext): Promise<{ reranker: Reranker | null; status: RuntimeStatus['reranker'] }> {
  if (!ctx.opts.rerank) return { reranker: null, status: { state: 'off', loadMs: null } };
  const t = performance.now();
  const load =
    ctx.deps.createReranker ??
    ((opts: RuntimeOptions) =>
      createCrossEncoderReranker({
        modelId: RERANKER_ID,
        dtype: 'q8',
        localModelPath: new URL(opts.modelBaseUrl, ctx.base).pathname,
        device: 'wasm',
        ortWasmPaths: ortWasmPaths('wasm', opts.ortBaseUrl, ctx.base),
      }));
  try {
    const reranker = await load(ctx.opts);
    return { reranker, status: { state: 'on', loadMs: performance.now() - t } };
  } catch (e) {
    return { reranker: null, status: { state: 'unavailable', loadMs: null, note: (e as Error).message } };
  }
}

/** An engine and its document agents over an index view (the built-in vectors or a vector set's). */
function makeEngine(ctx: InitContext, idx: LoadedIndex, emb: Embedder, voy: DenseBackend | null, reranker: Reranker | null, gateOf: string | null) {
  const e = createRetrievalEngine({
    index: idx,
    embedder: emb,
    // the engine's defaults with the dense backend and reranking chosen here (config.ts keeps 'exact' for Node, eval and bench);
    // another embedder brings its own calibrated evidence gate and cross-validated choices
    config: withConfig(DEFAULT_RETRIEVAL_CONFIG, {
      dense: { backend: voy ? 'voy' : 'exact' },
      rerank: { enabled: ctx.opts.rerank },
      // (the built-in model's gate is checked against the build the index names)
      ...(gateOf ? configForEmbedder(gateOf, ctx.deps.gateFor ?? gateForEmbedder) : { gate: gateForIndexModel(idx.manifest.model) }),
    }),
    backends: voy ? { voy } : {},
    ...(reranker ? { reranker } : {}),
  });
  // the document agents' in-document searches skip the cross-encoder: it runs once per question, on the flat ranking
  const agentCfg = (ctx.deps.agentConfigFor ?? agentConfigForEmbedder)(gateOf);
  return { engine: e, agents: createDocumentAgents(idx, e, { ...agentCfg, inDocument: { ...agentCfg.inDocument, rerank: { enabled: false } } }) };
}

/** The retrieval-model switcher over the static index: the built-in model, and a downloaded one with its vector set. */
function retrievalModels(ctx: InitContext, staticIndex: LoadedIndex, make: Embedders, reranker: Reranker | null): RetrievalModels {
  return createRetrievalModels({
    fetch: cachingFetch(ctx.fetchImpl),
    indexUrl: absoluteUrl(ctx.opts.indexBaseUrl, ctx.base),
    modelsUrl: absoluteUrl(ctx.opts.modelBaseUrl, ctx.base),
    staticIndex,
    // WebGPU only on a real (non-fallback) adapter with the WebGPU build loaded, else WASM, whose 8-bit
    // MatMulNBits weights are what was validated (docs/retrieval.md); a failed WebGPU load falls back to WASM
    loadEmbedder: async (id, onProgress) => {
      const { device: d, reason } = retrievalModelDevice({ requested: ctx.opts.device, probe: make.probed, ortBuild: make.ortBuild });
      if (d === 'webgpu') {
        try {
          return { embedder: await make.make('webgpu', id, onProgress), device: 'webgpu', deviceReason: reason };
        } catch (e) {
          if (ctx.opts.device === 'webgpu') throw e;
          const why = `WebGPU failed to load it (${(e as Error).message})`;
          return { embedder: await make.make('wasm', id, onProgress), device: 'wasm', deviceReason: why };
        }
      }
      return { embedder: await make.make('wasm', id, onProgress), device: 'wasm', deviceReason: reason };
    },
    denseFor: async (view) => (await denseBackendFor(view, ctx.opts.denseBackend, ctx.deps.loadVoy)).voy,
    makeEngine: (view, emb, voy, id) => makeEngine(ctx, view, emb, voy, reranker, id),
  });
}

/** "Not in these documents" bound to this index; null when its data cannot be read (tests/coverage checks the shipped file) or none is wanted. */
function scopeOf(ctx: InitContext, index: LoadedIndex, manifestSha: string, embedder: Embedder): Scope | null {
  if (ctx.deps.scope === null) return null;
  try {
    return createScope(ctx.deps.scope?.coverage ?? COVERAGE, ctx.deps.scope?.model ?? (DECISION_MODEL as DecisionModel), index.manifest, manifestSha, embedder);
  } catch {
    return null; // unreadable coverage data: questions are answered without scope verdicts
  }
}

// ------------------------------------------------------------------------------------------------

export function createInProcessRuntime(deps: InProcessDeps = {}): SkyCiteRuntime {
  const fetchImpl = deps.fetchImpl ?? globalThis.fetch.bind(globalThis);
  const base = deps.baseUrl ?? globalThis.location?.href ?? 'http://localhost/';
  let loaded: Loaded | null = null;
  let store: UserDocsStore | null | undefined;
  // the device store of the user's documents, opened on first use (none where IndexedDB is missing, e.g. Node)
  const userDocStore = (): UserDocsStore | null =>
    store !== undefined ? store : (store = deps.userDocStore !== undefined ? deps.userDocStore : globalThis.indexedDB ? createUserDocsStore() : null);

  const ready = (): Loaded => {
    if (!loaded) throw new RuntimeNotReadyError();
    return loaded;
  };
  /** What the Ask turn's retrieval runs on now: the active model's engine and agents, the index's own embedder for highlights and grounding. */
  const current = (): LocalRetrievalDeps => {
    const { search, embedder, models, scope } = ready();
    const s = models.current();
    return { index: search.index, engine: s.engine, agents: s.agents, queryEmbedder: s.queryEmbedder ?? embedder, embedder, scope, unitRanker: UNIT_RANKER };
  };
  const local = createLocalRetrieval(current);
  // a question's work goes before the next batch of a document import (user-documents.ts)
  const scheduler = createImportScheduler();
  const { foreground } = scheduler;

  async function init(partial: Partial<RuntimeOptions> = {}): Promise<RuntimeStatus> {
    const ctx: InitContext = { deps, opts: { ...DEFAULT_RUNTIME_OPTIONS, ...partial }, base, fetchImpl };
    const t0 = performance.now();
    const integrityList = (globalThis as { caches?: unknown }).caches
      ? loadModelIntegrity(absoluteUrl(ctx.opts.appBaseUrl, base), fetchImpl)
      : Promise.resolve(null);
    const manifest = await readManifest(ctx);
    await verifyModels(ctx, integrityList, manifest.model);
    const threads = setThreads(ctx);
    const make = embedders(ctx);
    // the dense backend (voy's wasm and its tree) is built from the index while the model loads
    const [indexLoad, modelLoad] = await Promise.all([
      loadStaticIndex(ctx, manifest.bytes).then(async (l) => ({
        ...l,
        ms: performance.now() - t0,
        dense: await denseBackendFor(l.index, ctx.opts.denseBackend, deps.loadVoy),
      })),
      loadBuiltInModel(ctx, make, manifest.model.id),
    ]);
    const { index: staticIndex, dense } = indexLoad;
    const { embedder } = modelLoad;
    if (embedder.modelId !== staticIndex.manifest.model.id) {
      throw new IndexIntegrityError(
        `The static index was built with ${staticIndex.manifest.model.id} but the app loads ${embedder.modelId}. Rebuild the index with \`npm run index\`.`,
      );
    }
    const rerank = await loadReranker(ctx);
    await loaded?.models.dispose();
    const models = retrievalModels(ctx, staticIndex, make, rerank.reranker);
    const builtIn: RetrievalModelStatus = {
      id: staticIndex.manifest.model.id,
      label: embedderSpec(staticIndex.manifest.model.id).label,
      state: 'default',
      loadMs: modelLoad.ms,
      device: modelLoad.choice.device,
    };
    // (re)built on start and whenever the user's documents change (user-documents.ts merges them onto the static index);
    // while another retrieval model is in use, its engine keeps answering and this one waits for the switch back
    const search = { index: staticIndex };
    const library = createLibrary(() => search.index);
    const searchOver = (merged: LoadedIndex) => {
      search.index = merged;
      library.invalidate();
      const voy = dense.voy ? withUserRows(dense.voy, merged.vectors, merged.manifest.dimension, staticIndex.chunks.length) : null;
      models.setBuiltIn(makeEngine(ctx, merged, embedder, voy, rerank.reranker, null), builtIn);
    };
    searchOver(staticIndex);
    const scope = scopeOf(ctx, staticIndex, indexLoad.manifestSha, embedder);
    const userDocs = createUserDocuments({ base: staticIndex, embedder, store: userDocStore, apply: searchOver, scheduler });
    loaded = { search, embedder, models, library, userDocs, scope };
    return {
      manifest: staticIndex.manifest,
      manifestSha: indexLoad.manifestSha,
      scope: scope?.binding ?? 'unavailable',
      device: modelLoad.choice.device,
      deviceChoice: modelLoad.choice,
      chunkCount: staticIndex.chunks.length,
      loadMs: { index: indexLoad.ms, model: modelLoad.ms },
      dense: dense.status,
      reranker: rerank.status,
      retrievalModel: builtIn,
      threads,
    };
  }

  return {
    init,
    retrievalModels: () => ready().models.list(),
    useRetrievalModel: (id, onProgress) => ready().models.use(id, onProgress),

    retrieve: (query, request) => foreground(() => local.retrieve(query, request)),
    coverage: (query, result) => foreground(() => local.coverage(query, result)),
    evidenceOnly: (question, result) => foreground(() => local.evidenceOnly(question, result)),
    checkGrounding: (answer, ids) => foreground(() => local.checkGrounding(answer, ids)),

    draftRequirements: (description, options = {}) =>
      foreground(async () => {
        const deps = current();
        return draftRequirementsLocal({ ...deps, agents: deps.agents! }, description, options);
      }),

    getChunk: (id) => foreground(async () => ready().library.getChunk(id)),
    outline: () => foreground(async () => ready().library.outline()),
    keywordSearch: (text, limit) => foreground(async () => ready().library.keywordSearch(text, limit)),

    loadUserDocuments: (onProgress) => ready().userDocs.load(onProgress),
    listUserDocuments: async () => ready().userDocs.list(),
    syncUserDocuments: (onProgress) => ready().userDocs.sync(onProgress),
    addUserDocument: (input, onProgress) => ready().userDocs.add(input, onProgress),
    removeUserDocument: (id) => ready().userDocs.remove(id),
    reindexUserDocument: (id, onProgress) => ready().userDocs.reindex(id, onProgress),
    exportUserDocument: async (id) => ready().userDocs.export(id),
    cancelUserDocumentImport: async () => loaded?.userDocs.cancel() ?? false,

    dispose() {
      void loaded?.embedder.dispose?.();
      void loaded?.models.dispose();
      store?.close();
      loaded = null;
    },
  };
}

/**
 * The dense backend the runtime uses: voy built from the index's vectors when asked for and
 * loadable, the exact scan otherwise (with the reason).
 */
export async function denseBackendFor(
  index: Pick<LoadedIndex, 'vectors' | 'manifest'>,
  wanted: 'voy' | 'exact',
  loadVoy: (() => Promise<VoyConstructor>) | undefined,
): Promise<{ voy: DenseBackend | null; status: RuntimeStatus['dense'] }> {
  if (wanted === 'exact') return { voy: null, status: { backend: 'exact', buildMs: null } };
  if (!loadVoy) return { voy: null, status: { backend: 'exact', buildMs: null, note: 'voy is not available in this runtime: exact scan.' } };
  const t = performance.now();
  try {
    const voy = voyBackend(await loadVoy(), index.vectors, index.manifest.dimension);
    return { voy, status: { backend: 'voy', buildMs: performance.now() - t } };
  } catch (e) {
    return { voy: null, status: { backend: 'exact', buildMs: null, note: `voy could not be loaded (${(e as Error).message}): exact scan, same results.` } };
  }
}
