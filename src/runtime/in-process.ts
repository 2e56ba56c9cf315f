/**
 * The runtime in the current thread: fetches the static index, verifies it
 * against its manifest, loads MiniLM from the app's own files (on the device
 * device-choice.ts picks: WASM on a software adapter or when WebGPU is slower) and serves retrieval, evidence-only answers,
 * grounding checks and the library. The Web Worker hosts exactly this.
 */
import { RuntimeError } from './errors.js';
import { createLocalRetrieval, draftRequirementsLocal, windowBackedEmbedder, type LocalRetrievalDeps } from '../core/ask/retrieve.js';
import type { Embedder } from '../core/embedding/embedder.js';
import { createTransformersEmbedder } from '../core/embedding/transformers-embedder.js';
import { loadIndexFromBytes, type LoadedIndex } from '../core/index/load.js';
import { createLibrarySearch } from '../core/index/library-search.js';
import { IndexIntegrityError, parseManifest } from '../core/index/manifest.js';
import type { Chunk } from '../core/model/chunk.js';
import { DEFAULT_RETRIEVAL_CONFIG, withConfig } from '../core/retrieval/config.js';
import { voyBackend, type DenseBackend, type VoyConstructor } from '../core/retrieval/dense.js';
import { createRetrievalEngine, type RetrievalEngine } from '../core/retrieval/engine.js';
import { type AgentConfig, agentConfigForEmbedder, createDocumentAgents, type AgentResult, type DocumentAgents } from '../core/agents/agents.js';
import { createCrossEncoderReranker, RERANKER_ID } from '../core/retrieval/cross-encoder.js';
import type { Reranker } from '../core/retrieval/rerank.js';
import type {
  AskResult,
  DocumentOutline,
  DownloadProgress,
  KeywordHit,
  OutlineNode,
  RetrievalModelInfo,
  RetrievalModelStatus,
  RuntimeOptions,
  RuntimeStatus,
  SkyCiteRuntime,
} from './types.js';
import { embedderSpec } from '../core/embedding/models.js';
import { cachingFetch } from './vector-set-cache.js';
import { applyVectorSet, parseVectorSets, VECTOR_SET_ARTIFACTS, VECTOR_SET_MANIFEST, VECTOR_SETS_FILE, type VectorSetEntry } from '../core/index/vector-set.js';
import { configForEmbedder, gateForEmbedder, type RetrievalConfig } from '../core/retrieval/config.js';

import { DEFAULT_RUNTIME_OPTIONS } from './defaults.js';
import { withUserRows } from '../core/userdocs/user-index.js';
import { createUserDocsStore, type UserDocsStore } from '../storage/user-docs-store.js';
import { createUserDocuments, type UserDocuments } from './user-documents.js';
import { chooseDevice, probeAdapter, type AdapterProbe } from './device-choice.js';
import { ortWasmPaths } from './ort-files.js';
export { DEFAULT_RUNTIME_OPTIONS };

export class RuntimeNotReadyError extends RuntimeError {
  override name = 'RuntimeNotReadyError';
  constructor() {
    super('The retrieval runtime is not initialised yet: call init() first (the app does this on start).');
  }
}

/** A retrieval model could not be switched to; retrieval keeps the model it had. */
export class RetrievalModelError extends RuntimeError {
  override name = 'RetrievalModelError';
}

/** Offline before the first full load, or a missing file: say which and what to do. */
export class IndexFetchError extends RuntimeError {
  override name = 'IndexFetchError';
}

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
}

const abs = (path: string, base: string): string => new URL(path, base).href;

export const NO_ADAPTER: AdapterProbe = { available: false, software: false, name: '', unavailableReason: 'no WebGPU adapter' };

export function createInProcessRuntime(deps: InProcessDeps = {}): SkyCiteRuntime {
  const fetchImpl = deps.fetchImpl ?? globalThis.fetch.bind(globalThis);
  // the vector sets (and their list) are kept in Cache Storage for offline starts (vector-set-cache.ts)
  const setFetch = cachingFetch(fetchImpl);
  const base = deps.baseUrl ?? globalThis.location?.href ?? 'http://localhost/';
  let index: LoadedIndex | null = null;
  let embedder: Embedder | null = null;
  let engine: RetrievalEngine | null = null;
  let agents: DocumentAgents | null = null;
  let library: ReturnType<typeof createLibrarySearch> | null = null;
  let runtimeOpts: RuntimeOptions = DEFAULT_RUNTIME_OPTIONS;
  /** What the built-in engine was made of, so switching back needs no reload. */
  let builtIn: { engine: RetrievalEngine; agents: DocumentAgents; status: RetrievalModelStatus } | null = null;
  let reranker: Reranker | null = null;
  /** The model retrieval runs with now; its index view and embedder when it is not the built-in one. */
  let active: { status: RetrievalModelStatus; embedder: Embedder } | null = null;
  let vectorSets: VectorSetEntry[] | null = null;
  /** The static index as loaded (the base of a vector set's view; user documents are merged onto it for the built-in model). */
  let staticIdx: LoadedIndex | null = null;
  let userDocs: UserDocuments | null = null;
  let store: UserDocsStore | null | undefined;
  // the device store of the user's documents, opened on first use (none where IndexedDB is missing, e.g. Node)
  const userDocStore = (): UserDocsStore | null =>
    store !== undefined ? store : (store = deps.userDocStore !== undefined ? deps.userDocStore : globalThis.indexedDB ? createUserDocsStore() : null);
  const mine = (): UserDocuments => {
    if (!userDocs) throw new RuntimeNotReadyError();
    return userDocs;
  };

  const ready = () => {
    if (!index || !embedder || !engine) throw new RuntimeNotReadyError();
    return { index, embedder, engine };
  };
  /** What the Ask turn's retrieval runs on now: the active model's engine and agents, the index's own embedder for highlights and grounding. */
  const current = (): LocalRetrievalDeps => {
    const { index: idx, embedder: emb, engine: e } = ready();
    return { index: idx, engine: e, agents, queryEmbedder: active?.embedder ?? emb, embedder: emb };
  };
  const local = createLocalRetrieval(current);

  async function fetchBytes(url: string, via: typeof fetch = fetchImpl): Promise<Uint8Array> {
    let res: Response;
    try {
      res = await via(url);
    } catch (e) {
      throw new IndexFetchError(
        `Could not fetch ${url} (${(e as Error).message}). If you are offline, SkyCite needs one complete load while online before it works offline; reconnect and reload.`,
      );
    }
    if (!res.ok) throw new IndexFetchError(`Fetching ${url} failed with HTTP ${res.status}. The deployment is incomplete: redeploy static-index/ as built by npm run index.`);
    return new Uint8Array(await res.arrayBuffer());
  }

  /** The embedder the loaded index was built with (its manifest names the model folder), or a vector set's. */
  const defaultEmbedder = async (device: 'webgpu' | 'wasm', opts: RuntimeOptions, modelId: string, onProgress?: (p: DownloadProgress) => void): Promise<Embedder> =>
    createTransformersEmbedder({
      modelId,
      dtype: 'q8',
      // a path, not a full URL: transformers.js only looks up local files (e.g. tokenizer.json) by path
      localModelPath: new URL(opts.modelBaseUrl, base).pathname,
      device,
      batchSize: 8,
      ...(onProgress ? { onProgress } : {}),
      ortWasmPaths: ortWasmPaths(device, opts.ortBaseUrl, base),
    });

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
  const makeEngine = (idx: LoadedIndex, emb: Embedder, voy: DenseBackend | null, opts: RuntimeOptions, gateOf: string | null) => {
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

  /** static-index/vector-sets.json, or none when the deployment has no vector sets (404). */
  async function listVectorSets(): Promise<VectorSetEntry[]> {
    if (vectorSets) return vectorSets;
    const url = abs(`${runtimeOpts.indexBaseUrl}${VECTOR_SETS_FILE}`, base);
    let res: Response;
    try {
      res = await setFetch(url);
    } catch {
      return [];
    }
    if (res.status === 404) return (vectorSets = []);
    if (!res.ok) return [];
    vectorSets = parseVectorSets(await res.text());
    return vectorSets;
  }

  async function switchTo(id: string, onProgress?: (p: DownloadProgress) => void): Promise<RetrievalModelStatus> {
    // the vector set covers the static index; the user's documents stay with the built-in model (their vectors are its)
    const idx = staticIdx!;
    const t = performance.now();
    const entry = (await listVectorSets()).find((v) => v.id === id);
    if (!entry) throw new Error(`this deployment has no vector set for ${id} (static-index/${VECTOR_SETS_FILE}); build it with \`npm run index:vectors -- --model ${id}\``);
    const setBase = `${runtimeOpts.indexBaseUrl}${entry.dir}/`;
    const setJson = new TextDecoder().decode(await fetchBytes(abs(`${setBase}${VECTOR_SET_MANIFEST}`, base), setFetch));
    const files: Record<string, Uint8Array> = {};
    let loaded = 0;
    for (const name of VECTOR_SET_ARTIFACTS) {
      files[name] = await fetchBytes(abs(`${setBase}${name}`, base), setFetch);
      loaded += files[name].byteLength;
      onProgress?.({ file: `static-index/${entry.dir}/${name}`, loaded, total: entry.bytes });
    }
    const view = await applyVectorSet(idx, setJson, files, id);
    // a large model on WASM: its 8-bit MatMulNBits weights are what was validated (docs/retrieval.md)
    const emb = await (deps.createEmbedder ?? defaultEmbedder)('wasm', runtimeOpts, id, onProgress);
    if (emb.dimension !== view.manifest.dimension) {
      throw new Error(`the model gives ${emb.dimension}-dimensional vectors but its vector set holds ${view.manifest.dimension}; rebuild it with \`npm run index:vectors -- --model ${id}\``);
    }
    const dense = await denseBackendFor(view, runtimeOpts.denseBackend, deps.loadVoy);
    const made = makeEngine(view, emb, dense.voy, runtimeOpts, id);
    await active?.embedder.dispose?.();
    engine = made.engine;
    agents = made.agents;
    const status: RetrievalModelStatus = { id, label: embedderSpec(id).label, state: 'on', loadMs: performance.now() - t, device: 'wasm' };
    active = { status, embedder: emb };
    return status;
  }

  return {
    async retrievalModels(): Promise<RetrievalModelInfo[]> {
      const { index: idx } = ready();
      const own = embedderSpec(idx.manifest.model.id);
      const current = active?.status.id ?? own.id;
      const sets = await listVectorSets();
      return [
        { id: own.id, label: own.label, builtIn: true, active: current === own.id, downloadBytes: 0, licence: own.licence },
        ...sets.map((v) => {
          const spec = embedderSpec(v.id);
          return { id: v.id, label: spec.label, builtIn: false, active: current === v.id, downloadBytes: spec.downloadBytes + v.bytes, licence: spec.licence };
        }),
      ];
    },

    async useRetrievalModel(id, onProgress) {
      const { index: idx } = ready();
      if (id === null || id === idx.manifest.model.id) {
        if (builtIn) ({ engine, agents } = builtIn);
        await active?.embedder.dispose?.();
        active = null;
        return builtIn!.status;
      }
      if (active?.status.id === id) return active.status;
      try {
        return await switchTo(id, onProgress);
      } catch (e) {
        const was = active?.status.label ?? builtIn?.status.label ?? 'the built-in model';
        throw new RetrievalModelError(`Could not switch retrieval to ${embedderSpec(id).label}: ${(e as Error).message}. Retrieval keeps using ${was}.`);
      }
    },

    async init(partial = {}): Promise<RuntimeStatus> {
      const opts = { ...DEFAULT_RUNTIME_OPTIONS, ...partial };
      const t0 = performance.now();
      const manifestUrl = abs(`${opts.indexBaseUrl}manifest.json`, base);
      const manifestJson = new TextDecoder().decode(await fetchBytes(manifestUrl));
      const manifest = parseManifest(manifestJson);
      const modelId = manifest.model.id;
      const make = deps.createEmbedder ?? defaultEmbedder;
      // the index's artifacts are fetched and verified while the embedding model loads (both take seconds)
      const loadIndex = async () => {
        const files: Record<string, Uint8Array> = {};
        await Promise.all(
          Object.keys(manifest.artifacts).map(async (name) => {
            files[name] = await fetchBytes(abs(`${opts.indexBaseUrl}${name}`, base));
          }),
        );
        const loaded = await loadIndexFromBytes(manifestJson, files);
        return { loaded, ms: performance.now() - t0 };
      };
      const loadModel = async () => {
        const t = performance.now();
        const chosen = await chooseDevice({
          requested: opts.device,
          probe: deps.probeAdapter ?? (() => probeAdapter()),
          make: (d) => make(d, opts, modelId),
          ...(deps.timeEmbedding ? { time: deps.timeEmbedding } : {}),
        });
        return { ...chosen, ms: performance.now() - t };
      };
      // the dense backend (voy's wasm and its tree) is built from the index while the model loads
      const indexAndDense = loadIndex().then(async (loadedIndex) => ({ ...loadedIndex, dense: await denseBackendFor(loadedIndex.loaded, opts.denseBackend, deps.loadVoy) }));
      const [indexLoad, modelLoad] = await Promise.all([indexAndDense, loadModel()]);
      index = indexLoad.loaded;
      library = null;
      embedder = modelLoad.embedder;
      const choice = modelLoad.choice;
      const device = choice.device;
      if (embedder.modelId !== index.manifest.model.id) {
        throw new IndexIntegrityError(
          `The static index was built with ${index.manifest.model.id} but the app loads ${embedder.modelId}. Rebuild the index with \`npm run index\`.`,
        );
      }
      const dense = indexLoad.dense;
      let rerankerLoaded: Reranker | null = null;
      let rerankerStatus: RuntimeStatus['reranker'] = { state: 'off', loadMs: null };
      if (opts.rerank) {
        const t3 = performance.now();
        try {
          rerankerLoaded = await (deps.createReranker ?? defaultReranker)(opts);
          rerankerStatus = { state: 'on', loadMs: performance.now() - t3 };
        } catch (e) {
          rerankerStatus = { state: 'unavailable', loadMs: null, note: (e as Error).message };
        }
      }
      reranker = rerankerLoaded;
      runtimeOpts = opts;
      active = null;
      const staticIndex = index;
      staticIdx = staticIndex;
      const emb = embedder;
      const builtInStatus: RetrievalModelStatus = { id: staticIndex.manifest.model.id, label: embedderSpec(staticIndex.manifest.model.id).label, state: 'default', loadMs: modelLoad.ms, device };
      // (re)built on start and whenever the user's documents change (user-documents.ts merges them onto the static index);
      // while another retrieval model is in use, its engine keeps answering and this one waits for the switch back
      const searchOver = (merged: LoadedIndex) => {
        index = merged;
        library = null;
        const voy = dense.voy ? withUserRows(dense.voy, merged.vectors, merged.manifest.dimension, staticIndex.chunks.length) : null;
        const made = makeEngine(merged, emb, voy, opts, null);
        builtIn = { ...made, status: builtInStatus };
        if (!active) ({ engine, agents } = made);
      };
      searchOver(staticIndex);
      userDocs = createUserDocuments({ base: staticIndex, embedder: emb, store: userDocStore, apply: searchOver });
      return {
        manifest: staticIndex.manifest,
        device,
        deviceChoice: choice,
        chunkCount: staticIndex.chunks.length,
        loadMs: { index: indexLoad.ms, model: modelLoad.ms },
        dense: dense.status,
        reranker: rerankerStatus,
        retrievalModel: builtInStatus,
      };
    },

    retrieve: (query, request) => local.retrieve(query, request),
    evidenceOnly: (question, result) => local.evidenceOnly(question, result),
    checkGrounding: (answer, ids) => local.checkGrounding(answer, ids),

    async draftRequirements(description, options = {}) {
      const deps = current();
      if (!deps.agents) throw new RuntimeNotReadyError();
      return draftRequirementsLocal({ ...deps, agents: deps.agents }, description, options);
    },

    async getChunk(id) {
      const { index: idx } = ready();
      const row = idx.rowOf.get(id);
      return row === undefined ? null : idx.chunks[row]!;
    },

    async outline(): Promise<DocumentOutline[]> {
      const { index: idx } = ready();
      return buildOutline(idx);
    },

    async keywordSearch(text, limit = 30): Promise<KeywordHit[]> {
      const { index: idx } = ready();
      if (!text.trim()) return [];
      library ??= createLibrarySearch(idx.chunks);
      return library
        .search(text, limit)
        .map((h) => {
          const c = idx.chunks[idx.rowOf.get(h.id)!]!;
          return { id: c.id, title: c.title, docId: c.docId, pageStart: c.pageStart, pageEnd: c.pageEnd, score: h.score };
        });
    },

    loadUserDocuments: (onProgress) => mine().load(onProgress),
    listUserDocuments: async () => mine().list(),
    addUserDocument: (input, onProgress) => mine().add(input, onProgress),
    removeUserDocument: (id) => mine().remove(id),
    reindexUserDocument: (id, onProgress) => mine().reindex(id, onProgress),
    exportUserDocument: async (id) => mine().export(id),

    dispose() {
      void embedder?.dispose?.();
      store?.close();
      userDocs = null;
      index = null;
      library = null;
      embedder = null;
      engine = null;
      agents = null;
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

export { windowBackedEmbedder };

/** Section tree per document from the chunks' section paths, in document order. */
export function buildOutline(idx: Pick<LoadedIndex, 'manifest' | 'chunks'>): DocumentOutline[] {
  return idx.manifest.sources.map((s) => {
    const root: OutlineNode = { title: s.title, chunkIds: [], children: [] };
    for (const c of idx.chunks) {
      if (c.docId !== s.id) continue;
      let node = root;
      const path = c.kind === 'table' ? c.sectionPath.slice(0, -1) : c.sectionPath;
      for (const title of path) {
        let child = node.children.find((n) => n.title === title);
        if (!child) {
          child = { title, chunkIds: [], children: [] };
          node.children.push(child);
        }
        node = child;
      }
      node.chunkIds.push(c.id);
    }
    return {
      docId: s.id,
      title: s.title,
      edition: s.edition,
      verbatim: s.verbatim,
      reuseNotice: s.reuseNotice,
      editionNote: s.editionNote,
      sections: root.children,
    };
  });
}
