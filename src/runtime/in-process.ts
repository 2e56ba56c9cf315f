/**
 * The runtime in the current thread, composed of its parts: the static index fetched and verified
 * against its manifest (and the manifest's SHA-256 for the audit record), the embedding model on the
 * device device-choice.ts picks, the retrieval-model switcher (retrieval-models.ts), the Ask turn's
 * retrieval port (core/ask/retrieve.ts), the Library's reads (library.ts) and the user's documents
 * (user-documents.ts). The Web Worker hosts exactly this.
 */
import { createLocalRetrieval, draftRequirementsLocal, windowBackedEmbedder, type LocalRetrievalDeps } from '../core/ask/retrieve.js';
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
import { IndexIntegrityError, parseManifest, sha256Hex } from '../core/index/manifest.js';
import { configForEmbedder, DEFAULT_RETRIEVAL_CONFIG, gateForEmbedder, withConfig, type RetrievalConfig } from '../core/retrieval/config.js';
import { createCrossEncoderReranker, RERANKER_ID } from '../core/retrieval/cross-encoder.js';
import { voyBackend, type DenseBackend, type VoyConstructor } from '../core/retrieval/dense.js';
import { createRetrievalEngine } from '../core/retrieval/engine.js';
import type { Reranker } from '../core/retrieval/rerank.js';
import { withUserRows } from '../core/userdocs/user-index.js';
import { createUserDocsStore, type UserDocsStore } from '../storage/user-docs-store.js';
import { DEFAULT_RUNTIME_OPTIONS } from './defaults.js';
import { env as transformersEnv } from '@huggingface/transformers';
import { watchDownloads, type FetchHolder, type WatchDownloads } from './download-progress.js';
import { chooseDevice, probeAdapter, retrievalModelDevice, type AdapterProbe, type EmbeddingDevice } from './device-choice.js';
import { IndexSourceError, RuntimeError, RuntimeNotReadyError, type ProblemSource } from './errors.js';
import { installModelVerification, loadModelIntegrity, sriFromHex, type ModelIntegrity, type TransformersEnvLike } from './model-integrity.js';
import { absoluteUrl, fetchBytes, IndexFetchError } from './fetch-bytes.js';
import { createLibrary, buildOutline, type Library } from './library.js';
import { ortWasmPaths } from './ort-files.js';
import { applyOrtThreads, chooseOrtThreads, threadEnvironment, type OnnxEnvLike, type ThreadEnvironment } from './ort-threads.js';
import { createRetrievalModels, RetrievalModelError, type RetrievalModels } from './retrieval-models.js';
import type { DownloadProgress, RetrievalModelStatus, RuntimeOptions, RuntimeStatus, SkyCiteRuntime } from './types.js';
import { createImportScheduler, createUserDocuments, type UserDocuments } from './user-documents.js';
import { cachingFetch } from './vector-set-cache.js';

export { DEFAULT_RUNTIME_OPTIONS, IndexFetchError, RetrievalModelError, buildOutline, windowBackedEmbedder };

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
  /** The index retrieval searches: the static one with the user's documents merged. */
  index: LoadedIndex;
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
    const { index, embedder, models, scope } = ready();
    const s = models.current();
    return { index, engine: s.engine, agents: s.agents, queryEmbedder: s.queryEmbedder ?? embedder, embedder, scope, unitRanker: UNIT_RANKER };
  };
  const local = createLocalRetrieval(current);
  // a question's work goes before the next batch of a document import (user-documents.ts)
  const scheduler = createImportScheduler();
  const { foreground } = scheduler;

  /** The embedder the loaded index was built with (its manifest names the model folder), or a vector set's. */
  const defaultEmbedder = async (
    device: 'webgpu' | 'wasm',
    opts: RuntimeOptions,
    modelId: string,
    onProgress?: (p: DownloadProgress) => void,
  ): Promise<Embedder> => {
    // a path, not a full URL: transformers.js only looks up local files (e.g. tokenizer.json) by path
    const localModelPath = new URL(opts.modelBaseUrl, base).pathname;
    const stop = onProgress ? modelDownloads()(`${localModelPath}${modelId}/`, onProgress) : () => undefined;
    try {
      return await createTransformersEmbedder({
        modelId,
        dtype: 'q8',
        localModelPath,
        device,
        batchSize: 8,
        ortWasmPaths: ortWasmPaths(device, opts.ortBaseUrl, base),
      });
    } finally {
      stop();
    }
  };

  // the cross-encoder runs on WASM (transformers.js issue 1181: identical scores on WebGPU for this model type)
  const defaultReranker = (opts: RuntimeOptions): Promise<Reranker> =>
    createCrossEncoderReranker({
      modelId: RERANKER_ID,
      dtype: 'q8',
      localModelPath: new URL(opts.modelBaseUrl, base).pathname,
      device: 'wasm',
      ortWasmPaths: ortWasmPaths('wasm', opts.ortBaseUrl, base),
    });

  /** An engine and its document agents over an index view (the built-in vectors or a vector set's). */
  const makeEngine = (idx: LoadedIndex, emb: Embedder, voy: DenseBackend | null, opts: RuntimeOptions, reranker: Reranker | null, gateOf: string | null) => {
    const e = createRetrievalEngine({
      index: idx,
      embedder: emb,
      // the engine's defaults with the dense backend and reranking chosen here (config.ts keeps 'exact' for Node, eval and bench);
      // another embedder brings its own calibrated evidence gate and cross-validated choices
      config: withConfig(DEFAULT_RETRIEVAL_CONFIG, {
        dense: { backend: voy ? 'voy' : 'exact' },
        rerank: { enabled: opts.rerank },
        ...(gateOf ? configForEmbedder(gateOf, deps.gateFor ?? gateForEmbedder) : {}),
      }),
      backends: voy ? { voy } : {},
      ...(reranker ? { reranker } : {}),
    });
    // the document agents' in-document searches skip the cross-encoder: it runs once per question, on the flat ranking
    const agentCfg = (deps.agentConfigFor ?? agentConfigForEmbedder)(gateOf);
    return { engine: e, agents: createDocumentAgents(idx, e, { ...agentCfg, inDocument: { ...agentCfg.inDocument, rerank: { enabled: false } } }) };
  };

  /** The static index's files, fetched and verified against the manifest, and the manifest's SHA-256 (for the audit record). */
  async function loadStaticIndex(opts: RuntimeOptions, manifestBytes: Uint8Array): Promise<{ index: LoadedIndex; manifestSha: string }> {
    const fetched = [{ url: absoluteUrl(`${opts.indexBaseUrl}manifest.json`, base), bytes: manifestBytes }];
    try {
      const manifestJson = new TextDecoder().decode(manifestBytes);
      const manifest = parseManifest(manifestJson);
      const files: Record<string, Uint8Array> = {};
      await Promise.all(
        Object.keys(manifest.artifacts).map(async (name) => {
          const url = absoluteUrl(`${opts.indexBaseUrl}${name}`, base);
          files[name] = await fetchBytes(url, fetchImpl);
          fetched.push({ url, bytes: files[name] });
        }),
      );
      return { index: await loadIndexFromBytes(manifestJson, files), manifestSha: await sha256Hex(manifestBytes) };
    } catch (e) {
      // a file that is not what the build made: say whose copy it is (the host's, or this device's)
      if (e instanceof IndexIntegrityError) throw new IndexSourceError(await indexFilesSource(fetched), e);
      throw e;
    }
  }

  return {
    retrievalModels: () => ready().models.list(),
    useRetrievalModel: (id, onProgress) => ready().models.use(id, onProgress),

    async init(partial = {}): Promise<RuntimeStatus> {
      const opts = { ...DEFAULT_RUNTIME_OPTIONS, ...partial };
      const t0 = performance.now();
      // the manifest names the model: read it first, then fetch and verify the artifacts while the model loads
      const appBase = absoluteUrl(opts.appBaseUrl, base);
      // the build's SHA-256 of every model file (where the browser keeps caches: the app, not Node)
      const integrityList = (globalThis as { caches?: unknown }).caches ? loadModelIntegrity(appBase, fetchImpl) : Promise.resolve(null);
      const manifestBytes = await fetchBytes(absoluteUrl(`${opts.indexBaseUrl}manifest.json`, base), fetchImpl);
      let manifestModel: ReturnType<typeof parseManifest>['model'];
      try {
        manifestModel = parseManifest(new TextDecoder().decode(manifestBytes)).model;
      } catch (e) {
        if (e instanceof IndexIntegrityError)
          throw new IndexSourceError(await indexFilesSource([{ url: absoluteUrl(`${opts.indexBaseUrl}manifest.json`, base), bytes: manifestBytes }]), e);
        throw e;
      }
      const modelId = manifestModel.id;
      modelIntegrity = await integrityList;
      if (modelIntegrity && manifestModel.dtype === 'q8') {
        // the index binds its model's weights by SHA-256 too (the list, when present, says the same)
        const onnx = new URL(`${opts.modelBaseUrl}${modelId}/onnx/model_quantized.onnx`, base).pathname;
        if (!modelIntegrity.byPath.has(onnx)) modelIntegrity.byPath.set(onnx, sriFromHex(manifestModel.sha256));
      }
      if (modelIntegrity) verifyModelFiles();
      // ONNX Runtime's threads, fixed by its first session: set before any model loads (ort-threads.ts)
      const threads = chooseOrtThreads(deps.threadEnvironment ?? threadEnvironment(), opts.threads);
      (deps.applyThreads ?? ((n: number) => applyOrtThreads(transformersEnv.backends.onnx as OnnxEnvLike | undefined, n)))(threads.threads);
      const createEmbedder = deps.createEmbedder ?? defaultEmbedder;
      // the ORT build the worker starts with is the first model's (ort-files.ts): WebGPU needs the asyncify one
      let ortBuild: EmbeddingDevice | null = null;
      const make: typeof createEmbedder = (d, ...rest) => {
        ortBuild ??= d;
        return createEmbedder(d, ...rest);
      };
      let probed: AdapterProbe | null = null;
      const probe = deps.probeAdapter ?? (() => probeAdapter());
      const loadModel = async () => {
        const t = performance.now();
        const chosen = await chooseDevice({
          requested: opts.device,
          probe: async () => (probed = await probe()),
          make: (d) => make(d, opts, modelId),
          ...(deps.timeEmbedding ? { time: deps.timeEmbedding } : {}),
        });
        return { ...chosen, ms: performance.now() - t };
      };
      // the dense backend (voy's wasm and its tree) is built from the index while the model loads
      const indexAndDense = loadStaticIndex(opts, manifestBytes).then(async (l) => ({
        ...l,
        ms: performance.now() - t0,
        dense: await denseBackendFor(l.index, opts.denseBackend, deps.loadVoy),
      }));
      const [indexLoad, modelLoad] = await Promise.all([
        indexAndDense,
        loadModel().catch((e: unknown) => {
          // a model file no verified copy could be had of: its own error, which says where the problem is
          throw sourced(e) ?? e;
        }),
      ]);
      const staticIndex = indexLoad.index;
      const embedder = modelLoad.embedder;
      const device = modelLoad.choice.device;
      if (embedder.modelId !== staticIndex.manifest.model.id) {
        throw new IndexIntegrityError(
          `The static index was built with ${staticIndex.manifest.model.id} but the app loads ${embedder.modelId}. Rebuild the index with \`npm run index\`.`,
        );
      }
      const dense = indexLoad.dense;
      let reranker: Reranker | null = null;
      let rerankerStatus: RuntimeStatus['reranker'] = { state: 'off', loadMs: null };
      if (opts.rerank) {
        const t3 = performance.now();
        try {
          reranker = await (deps.createReranker ?? defaultReranker)(opts);
          rerankerStatus = { state: 'on', loadMs: performance.now() - t3 };
        } catch (e) {
          rerankerStatus = { state: 'unavailable', loadMs: null, note: (e as Error).message };
        }
      }
      await loaded?.models.dispose();
      const models = createRetrievalModels({
        fetch: cachingFetch(fetchImpl),
        indexUrl: absoluteUrl(opts.indexBaseUrl, base),
        modelsUrl: absoluteUrl(opts.modelBaseUrl, base),
        staticIndex,
        // WebGPU only on a real (non-fallback) adapter with the WebGPU build loaded, else WASM, whose 8-bit
        // MatMulNBits weights are what was validated (docs/retrieval.md); a failed WebGPU load falls back to WASM
        loadEmbedder: async (id, onProgress) => {
          const { device: d, reason } = retrievalModelDevice({ requested: opts.device, probe: probed, ortBuild });
          if (d === 'webgpu') {
            try {
              return { embedder: await make('webgpu', opts, id, onProgress), device: 'webgpu', deviceReason: reason };
            } catch (e) {
              if (opts.device === 'webgpu') throw e;
              const why = `WebGPU failed to load it (${(e as Error).message})`;
              return { embedder: await make('wasm', opts, id, onProgress), device: 'wasm', deviceReason: why };
            }
          }
          return { embedder: await make('wasm', opts, id, onProgress), device: 'wasm', deviceReason: reason };
        },
        denseFor: async (view) => (await denseBackendFor(view, opts.denseBackend, deps.loadVoy)).voy,
        makeEngine: (view, emb, voy, id) => makeEngine(view, emb, voy, opts, reranker, id),
      });
      const builtInStatus: RetrievalModelStatus = {
        id: staticIndex.manifest.model.id,
        label: embedderSpec(staticIndex.manifest.model.id).label,
        state: 'default',
        loadMs: modelLoad.ms,
        device,
      };
      let scope: Scope | null = null;
      try {
        scope =
          deps.scope === null
            ? null
            : createScope(
                deps.scope?.coverage ?? COVERAGE,
                deps.scope?.model ?? (DECISION_MODEL as DecisionModel),
                staticIndex.manifest,
                indexLoad.manifestSha,
                embedder,
              );
      } catch {
        scope = null; // unreadable coverage data: questions are answered without scope verdicts (tests/coverage checks the shipped file)
      }
      const state: Loaded = {
        index: staticIndex,
        embedder,
        models,
        library: createLibrary(() => ready().index),
        userDocs: null as unknown as UserDocuments,
        scope,
      };
      // (re)built on start and whenever the user's documents change (user-documents.ts merges them onto the static index);
      // while another retrieval model is in use, its engine keeps answering and this one waits for the switch back
      const searchOver = (merged: LoadedIndex) => {
        state.index = merged;
        state.library.invalidate();
        const voy = dense.voy ? withUserRows(dense.voy, merged.vectors, merged.manifest.dimension, staticIndex.chunks.length) : null;
        models.setBuiltIn(makeEngine(merged, embedder, voy, opts, reranker, null), builtInStatus);
      };
      searchOver(staticIndex);
      state.userDocs = createUserDocuments({ base: staticIndex, embedder, store: userDocStore, apply: searchOver, scheduler });
      loaded = state;
      return {
        manifest: staticIndex.manifest,
        manifestSha: indexLoad.manifestSha,
        scope: scope?.binding ?? 'unavailable',
        device,
        deviceChoice: modelLoad.choice,
        chunkCount: staticIndex.chunks.length,
        loadMs: { index: indexLoad.ms, model: modelLoad.ms },
        dense: dense.status,
        reranker: rerankerStatus,
        retrievalModel: builtInStatus,
        threads,
      };
    },

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
