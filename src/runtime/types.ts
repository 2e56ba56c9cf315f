/**
 * The runtime contract between the UI and the retrieval/embedding worker. The
 * same interface is implemented in-process (tests, Node) and by the Web Worker
 * client, so views never know where retrieval runs.
 */
import type { Chunk } from '../core/model/chunk.js';
import type { AskResult, AskRetrieval, RetrieveRequest } from '../core/ask/types.js';
import type { RetrievalResult, Filters } from '../core/retrieval/types.js';
import type { RetrievalConfig, RetrievalConfigOverrides } from '../core/retrieval/config.js';
import type { EvidenceOnlyAnswer } from '../core/answer/evidence-only.js';
import type { GroundingReport, GroundingSubject } from '../core/answer/grounding.js';
import type { IndexManifest } from '../core/index/manifest.js';
import type { DeviceChoice } from './device-choice.js';
import type { OrtThreading } from './ort-threads.js';
import type { RequirementDraft } from '../core/agents/requirements.js';
import type { WireError } from '../core/errors.js';
import type { UserDocumentExport, UserDocumentInfo, UserDocumentInput, UserDocumentProgress, UserDocumentsLoad } from './user-documents.js';

export interface RuntimeOptions {
  /** Base URL of the static index (default: 'static-index/' on the app's origin). */
  indexBaseUrl: string;
  /** Base URL of the models folder (default: 'models/' on the app's origin). */
  modelBaseUrl: string;
  /** Base URL of the onnxruntime-web wasm files (default: 'ort/' on the app's origin). */
  ortBaseUrl: string;
  /** The app's base URL (where precache-integrity.json, the build's list of SHA-256, is; default: the page's). */
  appBaseUrl: string;
  /**
   * 'auto' chooses (device-choice.ts): WASM without an adapter or on a software (fallback) one,
   * otherwise the faster of the two on a warm query embedding. 'webgpu' / 'wasm' force one.
   */
  device: 'auto' | 'webgpu' | 'wasm';
  /**
   * Dense stage backend: 'voy' (a WASM k-d tree built at load from vectors.f32; the same results
   * as the exact scan, tests/retrieval/voy-backend.test.ts) or 'exact' (flat inner product).
   * Falls back to 'exact', and says why in the status, when voy cannot be loaded.
   */
  denseBackend: 'voy' | 'exact';
  /**
   * The retrieval embedder: null for the one the index was built with (first load); the id
   * of a vector set's model (static-index/vector-sets.json, e.g. 'google/embeddinggemma-300m')
   * once the user has downloaded it (Settings). The default embedder still serves the
   * evidence highlights and the grounding check (their thresholds are calibrated on it).
   */
  retrievalModel: string | null;
  /** Rerank the fused candidates with the cross-encoder (models/skycite/reranker-minilm, WASM; `?rerank=on`). Default false: no measured gain for ≈ 350 ms per query (docs/retrieval.md). */
  rerank: boolean;
  /**
   * ONNX Runtime threads for the retrieval models (ort-threads.ts): 'auto' = min(4, cores) when the
   * page is cross-origin isolated, else 1; a number (`?threads=N`, measurements) forces it where
   * isolation allows threads at all.
   */
  threads: 'auto' | number;
}

export interface RuntimeStatus {
  manifest: IndexManifest;
  /** SHA-256 of static-index/manifest.json as served and verified (the audit record's index hash). */
  manifestSha: string;
  /**
   * "Not in these documents" (core/ask/scope.ts): 'current' or 'same-chunks' when the coverage data
   * was built from this index's chunks; 'stale' (no verdicts: rebuild with `npm run coverage:build`);
   * 'unavailable' when it could not be read.
   */
  scope: 'current' | 'same-chunks' | 'stale' | 'unavailable';
  /** Device the embedding model actually runs on. */
  device: 'webgpu' | 'wasm';
  /** Why that device: forced, no adapter, a software adapter, or the warm-up timings. */
  deviceChoice: DeviceChoice;
  chunkCount: number;
  /** Milliseconds spent fetching + verifying the index (from the start) and loading the model; the two run concurrently. */
  loadMs: { index: number; model: number };
  /** The dense stage's backend, the milliseconds voy took to load and build (null for exact), and why voy is not used when it was asked for. */
  dense: { backend: 'voy' | 'exact'; buildMs: number | null; note?: string };
  /**
   * The cross-encoder reranker: 'on' (loaded, in milliseconds), 'off' (not asked for) or
   * 'unavailable' (its files are missing or broken: retrieval keeps the fused order, and `note` says why).
   */
  reranker: { state: 'on' | 'off' | 'unavailable'; loadMs: number | null; note?: string };
  /** The model retrieval runs with (the built-in one until useRetrievalModel switches). */
  retrievalModel: RetrievalModelStatus;
  /** ONNX Runtime's threads for every retrieval model (embedder, grounding check, reranker, a downloaded model), and why. */
  threads: OrtThreading;
}

/** A retrieval model the app can use: the index's own, or one with a vector set (downloaded on consent). */
export interface RetrievalModelInfo {
  id: string;
  label: string;
  /** The index's own model (in the first load). */
  builtIn: boolean;
  active: boolean;
  /** Bytes to download to use it: model files plus its vector set (0 for the built-in one). */
  downloadBytes: number;
  licence: { name: string; url: string; notice: string };
}

/** Progress of a retrieval-model download, file by file. */
export interface DownloadProgress {
  file: string;
  loaded: number;
  total: number;
}

export interface RetrievalModelStatus {
  id: string;
  label: string;
  /** 'on': retrieval uses it; 'default': the built-in model. */
  state: 'on' | 'default';
  loadMs: number | null;
  device: 'webgpu' | 'wasm';
  /** Why that device (a downloaded model: device-choice.ts retrievalModelDevice). */
  deviceReason?: string;
}

export interface DocumentOutline {
  docId: string;
  title: string;
  edition: string;
  verbatim: boolean;
  reuseNotice: string;
  editionNote: string;
  /** Section tree built from the chunks' section paths, in document order. */
  sections: OutlineNode[];
}

export interface OutlineNode {
  title: string;
  /** Chunks directly in this section (ids), in order. */
  chunkIds: string[];
  children: OutlineNode[];
}

export interface KeywordHit {
  id: string;
  title: string;
  docId: string;
  pageStart: number | null;
  pageEnd: number | null;
  score: number;
}

export type { AskResult, ConsultedDocuments } from '../core/ask/types.js';

/** The runtime: the Ask turn's retrieval port (core/ask/types.ts AskRetrieval: retrieve, coverage, evidenceOnly, checkGrounding) and the app's other reads. */
export interface SkyCiteRuntime extends AskRetrieval {
  init(options?: Partial<RuntimeOptions>): Promise<RuntimeStatus>;
  /** Evidence-only candidate safety requirements for a hazard, function or operation (document agents + verbatim normative statements). */
  draftRequirements(description: string, options?: { filters?: Filters; perDocument?: number }): Promise<RequirementDraft>;
  getChunk(id: string): Promise<Chunk | null>;
  outline(): Promise<DocumentOutline[]>;
  keywordSearch(text: string, limit?: number): Promise<KeywordHit[]>;
  /** The retrieval models on offer: the built-in one and those with a vector set in the index. */
  retrievalModels(): Promise<RetrievalModelInfo[]>;
  /**
   * Switch retrieval to another model (null: the built-in one). Downloads its files on first use
   * (`onProgress` per file) and its vector set; on failure retrieval keeps the model it had and
   * the error says why (RetrievalModelError).
   */
  useRetrievalModel(id: string | null, onProgress?: (p: DownloadProgress) => void): Promise<RetrievalModelStatus>;
  /** The user's documents stored on the device, into the index (embedded again, with progress, when stored with another model). Once per start. */
  loadUserDocuments(onProgress?: (p: UserDocumentProgress) => void): Promise<UserDocumentsLoad>;
  listUserDocuments(): Promise<UserDocumentInfo[]>;
  /**
   * Follow the changes another tab made to the stored documents: those it added join the search,
   * those it removed leave it (each tab tells the others, src/ui/library/user-docs.svelte.ts).
   */
  syncUserDocuments(onProgress?: (p: UserDocumentProgress) => void): Promise<UserDocumentsLoad>;
  /**
   * Chunk, embed (progress), store on the device and index one document; nothing changes when it fails
   * or is cancelled. Runs in the background: questions asked meanwhile are answered between its batches.
   */
  addUserDocument(input: UserDocumentInput, onProgress?: (p: UserDocumentProgress) => void): Promise<UserDocumentInfo>;
  removeUserDocument(id: string): Promise<void>;
  /** Chunk and embed the stored text again (the current chunker and model). */
  reindexUserDocument(id: string, onProgress?: (p: UserDocumentProgress) => void): Promise<UserDocumentInfo>;
  /** The document's metadata, summary and passages (no vectors), for a JSON download. */
  exportUserDocument(id: string): Promise<UserDocumentExport>;
  /**
   * Cancel the running (and queued) add or re-index: it rejects with UserDocumentImportCancelledError,
   * stores nothing and leaves the index as it was. False when there was nothing to cancel (or it was already being saved).
   */
  cancelUserDocumentImport(): Promise<boolean>;
  dispose(): void;
}

/** Methods whose last parameter is a progress callback: the worker posts progress messages for it. */
export const PROGRESS_METHODS: ReadonlySet<RuntimeMethod> = new Set<RuntimeMethod>([
  'loadUserDocuments',
  'syncUserDocuments',
  'addUserDocument',
  'reindexUserDocument',
  'useRetrievalModel',
]);

/** Messages over postMessage: a request id, a method and its arguments; replies carry the id. */
export type RuntimeMethod = Exclude<keyof SkyCiteRuntime, 'dispose'>;

export interface RuntimeRequest {
  id: number;
  method: RuntimeMethod;
  args: unknown[];
}

export type RuntimeReply =
  /** Not a reply: progress of the request `id` (a user document's indexing, a retrieval model's download). */
  { id: number; progress: UserDocumentProgress | DownloadProgress } | { id: number; ok: true; value: unknown } | { id: number; ok: false; error: WireError };
