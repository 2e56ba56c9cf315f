/**
 * Which model retrieval runs with: the index's own (built in, first load) or a downloaded one with
 * its vector set (static-index/vector-sets.json). Switching downloads the model and its vectors,
 * builds their engine and agents, and keeps the built-in engine for switching back without a
 * reload; on failure retrieval keeps the model it had.
 */
import type { DocumentAgents } from '../core/agents/agents.js';
import type { Embedder } from '../core/embedding/embedder.js';
import { embedderSpec } from '../core/embedding/models.js';
import type { LoadedIndex } from '../core/index/load.js';
import {
  applyVectorSet,
  MODEL_FOLDER_MANIFEST,
  modelFilesBytes,
  modelFolderMismatch,
  parseModelFolderManifest,
  parseVectorSetManifest,
  parseVectorSets,
  VECTOR_SET_ARTIFACTS,
  VECTOR_SET_MANIFEST,
  VECTOR_SETS_FILE,
  type ModelFolderManifest,
  type VectorSetEntry,
} from '../core/index/vector-set.js';
import type { DenseBackend } from '../core/retrieval/dense.js';
import type { RetrievalEngine } from '../core/retrieval/engine.js';
import { RuntimeError } from './errors.js';
import { absoluteUrl, fetchBytes } from './fetch-bytes.js';
import type { DownloadProgress, RetrievalModelInfo, RetrievalModelStatus } from './types.js';

/** A retrieval model could not be switched to; retrieval keeps the model it had. */
export class RetrievalModelError extends RuntimeError {
  override name = 'RetrievalModelError';
  override readonly code = 'retrieval-model';
}

export interface RetrievalModelsDeps {
  /** Vector sets and their list come through Cache Storage for offline starts (vector-set-cache.ts). */
  fetch: typeof fetch;
  /** The static index's base URL (absolute). */
  indexUrl: string;
  /**
   * The models folder's URL (absolute). Its `<id>/manifest.json` (when the folder has one) gives
   * the download size shown before consent and the hashes a vector set must match.
   */
  modelsUrl?: string;
  /** The static index as loaded: the base of a vector set's view. */
  staticIndex: LoadedIndex;
  /**
   * Loads a model's embedder and says on which device (WASM, or WebGPU on a real adapter:
   * device-choice.ts retrievalModelDevice) and why.
   */
  loadEmbedder: (
    modelId: string,
    onProgress?: (p: DownloadProgress) => void,
  ) => Promise<{ embedder: Embedder; device: 'webgpu' | 'wasm'; deviceReason?: string }>;
  /** The dense backend over a view's vectors. */
  denseFor: (view: LoadedIndex) => Promise<DenseBackend | null>;
  /** An engine and its agents over a view, with the model's own calibrated gate and choices. */
  makeEngine: (view: LoadedIndex, embedder: Embedder, voy: DenseBackend | null, modelId: string) => { engine: RetrievalEngine; agents: DocumentAgents };
}

export interface Searcher {
  engine: RetrievalEngine;
  agents: DocumentAgents;
  /** The embedder of its query vectors, when not the built-in one. */
  queryEmbedder: Embedder | null;
}

export interface RetrievalModels {
  /** The engine the built-in model answers with (rebuilt when the user's documents change). */
  setBuiltIn(searcher: Omit<Searcher, 'queryEmbedder'>, status: RetrievalModelStatus): void;
  /** What retrieval runs with now. */
  current(): Searcher;
  status(): RetrievalModelStatus;
  list(): Promise<RetrievalModelInfo[]>;
  use(id: string | null, onProgress?: (p: DownloadProgress) => void): Promise<RetrievalModelStatus>;
  dispose(): Promise<void>;
}

export function createRetrievalModels(deps: RetrievalModelsDeps): RetrievalModels {
  let builtIn: { searcher: Omit<Searcher, 'queryEmbedder'>; status: RetrievalModelStatus } | null = null;
  let active: { searcher: Searcher; status: RetrievalModelStatus; embedder: Embedder } | null = null;
  let sets: VectorSetEntry[] | null = null;
  const ownId = deps.staticIndex.manifest.model.id;

  /** static-index/vector-sets.json, or none when the deployment has no vector sets (404). */
  async function listSets(): Promise<VectorSetEntry[]> {
    if (sets) return sets;
    let res: Response;
    try {
      res = await deps.fetch(absoluteUrl(VECTOR_SETS_FILE, deps.indexUrl));
    } catch {
      return [];
    }
    if (res.status === 404) return (sets = []);
    if (!res.ok) return [];
    sets = parseVectorSets(await res.text());
    return sets;
  }

  /** The model folder's manifest.json, or null when the deployment has none (or it cannot be read now). */
  const folderManifests = new Map<string, ModelFolderManifest | null>();
  async function folderManifest(id: string): Promise<ModelFolderManifest | null> {
    if (!deps.modelsUrl) return null;
    if (folderManifests.has(id)) return folderManifests.get(id)!;
    let m: ModelFolderManifest | null = null;
    try {
      const res = await deps.fetch(absoluteUrl(`${id}/${MODEL_FOLDER_MANIFEST}`, deps.modelsUrl));
      if (res.ok) m = parseModelFolderManifest(await res.text());
    } catch {
      return null; // offline and not cached: checked again at the next try
    }
    folderManifests.set(id, m);
    return m;
  }

  async function switchTo(id: string, onProgress?: (p: DownloadProgress) => void): Promise<RetrievalModelStatus> {
    // the vector set covers the static index; the user's documents stay with the built-in model (their vectors are its)
    const t = performance.now();
    const entry = (await listSets()).find((v) => v.id === id);
    if (!entry)
      throw new RetrievalModelError(
        `this deployment has no vector set for ${id} (static-index/${VECTOR_SETS_FILE}); build it with \`npm run index:vectors -- --model ${id}\``,
      );
    const setUrl = absoluteUrl(`${entry.dir}/`, deps.indexUrl);
    const setJson = new TextDecoder().decode(await fetchBytes(absoluteUrl(VECTOR_SET_MANIFEST, setUrl), deps.fetch));
    // before any large download: the set must have been made with the model this site serves
    const folder = await folderManifest(id);
    const onnxFile = embedderSpec(id).files.find((f) => f.endsWith('.onnx'));
    if (folder && onnxFile) {
      const mismatch = modelFolderMismatch(parseVectorSetManifest(setJson, id), folder, onnxFile);
      if (mismatch) throw new RetrievalModelError(mismatch);
    }
    const files: Record<string, Uint8Array> = {};
    let loaded = 0;
    for (const name of VECTOR_SET_ARTIFACTS) {
      files[name] = await fetchBytes(absoluteUrl(name, setUrl), deps.fetch);
      loaded += files[name].byteLength;
      onProgress?.({ file: `static-index/${entry.dir}/${name}`, loaded, total: entry.bytes });
    }
    const view = await applyVectorSet(deps.staticIndex, setJson, files, id);
    // a gzip-encoded body has no usable length: the folder's manifest gives each file's size
    const withTotal = onProgress && ((p: DownloadProgress) => onProgress({ ...p, total: p.total || folder?.files[p.file]?.bytes || 0 }));
    const { embedder: emb, device, deviceReason } = await deps.loadEmbedder(id, withTotal);
    if (emb.dimension !== view.manifest.dimension) {
      throw new RetrievalModelError(
        `the model gives ${emb.dimension}-dimensional vectors but its vector set holds ${view.manifest.dimension}; rebuild it with \`npm run index:vectors -- --model ${id}\``,
      );
    }
    const made = deps.makeEngine(view, emb, await deps.denseFor(view), id);
    await active?.embedder.dispose?.();
    const status: RetrievalModelStatus = {
      id,
      label: embedderSpec(id).label,
      state: 'on',
      loadMs: performance.now() - t,
      device,
      ...(deviceReason ? { deviceReason } : {}),
    };
    active = { searcher: { ...made, queryEmbedder: emb }, status, embedder: emb };
    return status;
  }

  const built = () => {
    if (!builtIn) throw new RetrievalModelError('The built-in retrieval model is not loaded yet.');
    return builtIn;
  };

  return {
    setBuiltIn(searcher, status) {
      builtIn = { searcher, status };
    },
    current: () => active?.searcher ?? { ...built().searcher, queryEmbedder: null },
    status: () => active?.status ?? built().status,
    async list() {
      const own = embedderSpec(ownId);
      const current = active?.status.id ?? own.id;
      return [
        { id: own.id, label: own.label, builtIn: true, active: current === own.id, downloadBytes: 0, licence: own.licence },
        ...(await Promise.all(
          (await listSets()).map(async (v) => {
            const spec = embedderSpec(v.id);
            // the size of the build this site serves (a trimmed or 4-bit build differs from the spec's figure)
            const folder = await folderManifest(v.id);
            const modelBytes = (folder && modelFilesBytes(folder, spec.files)) ?? spec.downloadBytes;
            return { id: v.id, label: spec.label, builtIn: false, active: current === v.id, downloadBytes: modelBytes + v.bytes, licence: spec.licence };
          }),
        )),
      ];
    },
    async use(id, onProgress) {
      if (id === null || id === ownId) {
        await active?.embedder.dispose?.();
        active = null;
        return built().status;
      }
      if (active?.status.id === id) return active.status;
      try {
        return await switchTo(id, onProgress);
      } catch (e) {
        const was = active?.status.label ?? builtIn?.status.label ?? 'the built-in model';
        throw new RetrievalModelError(`Could not switch retrieval to ${embedderSpec(id).label}: ${(e as Error).message}. Retrieval keeps using ${was}.`);
      }
    },
    async dispose() {
      await active?.embedder.dispose?.();
      active = null;
    },
  };
}
