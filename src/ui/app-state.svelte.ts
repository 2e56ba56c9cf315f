/**
 * Application state shared by the views: the runtime and its status, settings, the
 * language model, device report, connectivity, PWA update, and the chunk viewer request.
 * One instance, created by App.svelte and passed to the views as a prop.
 */
import type { Chunk } from '../core/model/chunk';
import type { ManifestSource } from '../core/index/manifest';
import { DEFAULT_ANSWER_CONFIG, SMOKE_ANSWER_CONFIG, type AnswerConfig } from '../core/answer/config';
import { AnswerError, mapEngineError, ModelImportError, ModelUnknownError, type AnswerErrorCode } from '../core/llm/errors';
import { deleteModelFromCache, isModelCached } from '../llm/cache';
import { loadCatalog, rememberManifest, type Catalog } from '../llm/catalog';
import { createLlmClient, startLlmWorker, type LlmClient, type LoadProgress } from '../llm/client';
import { getDeviceReport, type DeviceReport } from '../llm/device';
import { downloadModel, importModel, pickImport, type ChosenFile, type InstallProgress } from '../llm/install';
import { buildAppConfig, CURATED_MODELS, findModel, parseModelsManifest, recommendModel, type CuratedModel, type Recommendation } from '../llm/models';
import type { AskChat } from './ask/session.svelte';
import type { PwaUpdater } from '../pwa/register';
import { detectOfflineBeforeFirstLoad, indexProblemForUser, watchConnectivity } from '../pwa/offline';
import type { DownloadProgress, RetrievalModelInfo, RuntimeOptions, RuntimeStatus, SkyCiteRuntime } from '../runtime/types';
import { createAuditStore, type AuditStore } from '../storage/audit-store';
import { createSettingsStore, DEFAULT_SETTINGS, type Settings, type SettingsStore } from '../storage/settings-store';
import type { TextRange } from './highlight';
import type { TraceStep } from '../core/sora/types';
import { UserDocsState } from './library/user-docs.svelte';

export interface ViewerRequest {
  chunkId: string;
  /** The chunk, when the caller has it (saves a round trip). */
  chunk?: Chunk | null;
  /** Offsets into chunk.text to highlight (the cited passage). */
  ranges?: TextRange[];
  /** Calculator trace steps: their cells are highlighted when the passage is one of the typed SORA tables. */
  trace?: readonly TraceStep[];
  /** Display number when opened from a sources list. */
  number?: number;
  /** Element to return focus to when the viewer closes. */
  returnFocus?: HTMLElement | null;
}

export type IndexState = 'loading' | 'ready' | 'error';

export interface LlmState {
  /** The model currently loaded (usable for answers). */
  loadedId: string | null;
  /** The model being downloaded / initialised. */
  loadingId: string | null;
  progress: LoadProgress | null;
  /** The last failure (typed: src/core/llm/errors.ts); `retryable` offers a retry. */
  error: { modelId: string; message: string; code: AnswerErrorCode | 'other'; retryable: boolean } | null;
}

/** State of Settings → "Import model files". */
export interface ImportState {
  running: boolean;
  progress: InstallProgress | null;
  /** The last import's result ("… imported and verified") or null. */
  done: string | null;
  error: { message: string; code: AnswerErrorCode | 'other' } | null;
}

function errorState(modelId: string, e: unknown): NonNullable<LlmState['error']> {
  const err = e instanceof AnswerError ? e : mapEngineError(e);
  return { modelId, message: err.message, code: err.code, retryable: err.retryable };
}

/**
 * `?device=webgpu|wasm|auto` in the page URL forces the embedding device and `?dense=exact|voy`
 * the dense backend (diagnosis, e2e tests, bench:app).
 */
export function runtimeOptionsFromUrl(search: string = typeof location === 'undefined' ? '' : location.search): Partial<RuntimeOptions> {
  const params = new URLSearchParams(search);
  const device = params.get('device');
  const dense = params.get('dense');
  const rerank = params.get('rerank');
  return {
    ...(device === 'webgpu' || device === 'wasm' || device === 'auto' ? { device } : {}),
    ...(dense === 'exact' || dense === 'voy' ? { denseBackend: dense } : {}),
    ...(rerank === 'off' || rerank === 'on' ? { rerank: rerank === 'on' } : {}),
  };
}

/** A manifest.json among the chosen files that is not one npm run models:prepare wrote. */
function mapImportManifestError(e: unknown): AnswerError {
  return new ModelImportError(
    `The manifest.json among the chosen files cannot be used: ${(e as Error).message}`,
    'Choose the folder written by npm run models:prepare, with its manifest.json unchanged.',
  );
}

/**
 * `?generation=smoke` runs answers with the diagnostic smoke profile (SMOKE_ANSWER_CONFIG: a few
 * tokens, a short prompt, no other model call — for a software WebGPU adapter and the end-to-end
 * test) and `?assist=off` turns model-assisted retrieval off.
 */
export function answerOptionsFromUrl(search: string = typeof location === 'undefined' ? '' : location.search): { answerConfig: AnswerConfig; assist: boolean; routerModel: boolean } {
  const params = new URLSearchParams(search);
  const smoke = params.get('generation') === 'smoke';
  return { answerConfig: smoke ? SMOKE_ANSWER_CONFIG : DEFAULT_ANSWER_CONFIG, assist: !smoke && params.get('assist') !== 'off', routerModel: !smoke };
}

export class AppState {
  readonly runtime: SkyCiteRuntime;
  /** The answer configuration and model-assisted retrieval (answerOptionsFromUrl). */
  readonly answerConfig: AnswerConfig;
  readonly assist: boolean;
  readonly routerModel: boolean;
  readonly audit: AuditStore;
  readonly settingsStore: SettingsStore;
  /** The user's own documents (Library → Your documents), loaded into the index once it is ready. */
  readonly userDocs: UserDocsState;

  indexState: IndexState = $state('loading');
  status: RuntimeStatus | null = $state.raw(null);
  indexError: string | null = $state(null);
  /** The index error's technical message (file, hash, what a developer should run): shown to developers only. */
  indexErrorDetail: string | null = $state(null);
  /** SHA-256 of static-index/manifest.json as the runtime fetched and verified it (for the audit record). */
  manifestSha = $state('unknown');

  online = $state(true);
  updateAvailable = $state(false);
  updater: PwaUpdater | null = null;
  /** The offline copy (service worker precache): 'none' without a service worker (dev server, unsupported), 'saving' while it installs, 'ready' once stored. */
  offlineCopy: 'none' | 'saving' | 'ready' = $state('none');

  settings: Settings = $state({ ...DEFAULT_SETTINGS });
  settingsProblems: string[] = $state([]);
  settingsError: string | null = $state(null);

  device: DeviceReport | null = $state.raw(null);
  recommendation: Recommendation | null = $state.raw(null);

  llm: LlmState = $state({ loadedId: null, loadingId: null, progress: null, error: null });
  /** The LLM worker's client: the one engine interface (ChatEngine) for every model call. */
  private client: LlmClient | null = null;
  /** Self-hosted models from the base URL's manifest.json (or kept from an import). */
  catalog: Catalog | null = $state.raw(null);
  importState: ImportState = $state({ running: false, progress: null, done: null, error: null });

  viewer: ViewerRequest | null = $state.raw(null);
  /** Questions waiting for the index (resolved when it is verified, rejected when it fails). */
  private indexWaiters: { resolve: () => void; reject: (e: Error) => void }[] = [];
  private userDocsLoading: Promise<void> = Promise.resolve();
  /** Polite announcements for screen readers (status line live region). */
  announcement = $state('');

  /** Retrieval models on offer (Settings) and the state of a switch / download. */
  retrievalModels: RetrievalModelInfo[] = $state.raw([]);
  retrievalSwitch: { phase: 'idle' | 'loading' | 'error'; targetId: string | null; progress: DownloadProgress | null; error: string | null } = $state({
    phase: 'idle',
    targetId: null,
    progress: null,
    error: null,
  });

  constructor(runtime: SkyCiteRuntime, options: { audit?: AuditStore; settingsStore?: SettingsStore } = {}) {
    this.runtime = runtime;
    ({ answerConfig: this.answerConfig, assist: this.assist, routerModel: this.routerModel } = answerOptionsFromUrl());
    this.audit = options.audit ?? createAuditStore();
    this.settingsStore = options.settingsStore ?? createSettingsStore();
    this.userDocs = new UserDocsState(runtime);
    this.online = typeof navigator === 'undefined' ? true : navigator.onLine !== false;
  }

  /** Start everything: settings, index, device probe, connectivity. */
  async start(): Promise<void> {
    watchConnectivity((online) => {
      this.online = online;
      this.announce(online ? 'Back online.' : 'Offline: SkyCite keeps working from the stored index.');
    });
    this.settingsLoaded = this.loadSettings();
    // the index and the embedding model load in the worker (seconds) while the settings, the
    // device report and the model catalogue are read here (the index does not depend on them)
    const index = this.initIndex();
    await this.settingsLoaded;
    await this.probeDevice();
    await this.refreshCatalog();
    await index;
    void this.autoLoadModel();
  }

  announce(text: string): void {
    // Re-set so the same text is announced again.
    this.announcement = '';
    queueMicrotask(() => (this.announcement = text));
  }

  /** Settles once start() has read the stored settings (at once before start). */
  private settingsLoaded: Promise<void> = Promise.resolve();

  async loadSettings(): Promise<void> {
    const loaded = await this.settingsStore.load();
    this.settings = loaded.settings;
    this.settingsProblems = loaded.problems;
    this.settingsError = loaded.error ? loaded.error.message : null;
  }

  /** Validate and store a settings change; throws the store's error (shown by the caller). */
  async updateSettings(patch: Partial<Omit<Settings, 'schemaVersion'>>): Promise<void> {
    this.settings = await this.settingsStore.update(patch);
  }

  async initIndex(): Promise<void> {
    this.indexState = 'loading';
    this.indexError = null;
    this.indexErrorDetail = null;
    const early = detectOfflineBeforeFirstLoad();
    try {
      this.status = await this.runtime.init(runtimeOptionsFromUrl());
      this.indexState = 'ready';
      this.announce(`Index verified: ${this.status.chunkCount} passages.`);
      this.manifestSha = this.status.manifestSha;
      this.userDocsLoading = this.userDocs.load();
      for (const w of this.indexWaiters.splice(0)) void this.userDocsLoading.then(w.resolve);
      void this.restoreRetrievalModel();
    } catch (e) {
      this.indexState = 'error';
      this.indexError = early?.message ?? indexProblemForUser(e);
      this.indexErrorDetail = e instanceof Error ? `${e.name}: ${e.message}` : String(e);
      this.announce('The regulation index could not be loaded.');
      for (const w of this.indexWaiters.splice(0)) w.reject(new Error(`The regulation index could not be loaded (${this.indexError}), so the question was not sent. Reload, then ask again.`));
    }
  }

  // ------------------------------------------------------------------ retrieval model

  /** The models on offer, read once the index is ready and after each switch (never throws: on an error the list stays as it was). */
  async refreshRetrievalModels(): Promise<void> {
    try {
      this.retrievalModels = await this.runtime.retrievalModels();
    } catch {
      // Settings then offers no other model; the built-in one keeps working
    }
  }

  /**
   * Switch retrieval to a model (null: the built-in one), downloading it on first use; the
   * choice is stored only when the switch worked. On failure retrieval keeps its model and
   * the error says why.
   */
  async switchRetrievalModel(id: string | null, options: { remember?: boolean } = {}): Promise<boolean> {
    if (!this.status) return false;
    this.retrievalSwitch = { phase: 'loading', targetId: id, progress: null, error: null };
    try {
      const model = await this.runtime.useRetrievalModel(id, (p) => (this.retrievalSwitch.progress = p));
      this.status = { ...this.status, retrievalModel: model };
      this.retrievalSwitch = { phase: 'idle', targetId: null, progress: null, error: null };
      if (options.remember !== false && this.settings.retrievalModel !== (model.state === 'on' ? model.id : null)) {
        await this.updateSettings({ retrievalModel: model.state === 'on' ? model.id : null }).catch(() => undefined);
      }
      this.announce(`Retrieval now uses ${model.label}.`);
      await this.refreshRetrievalModels();
      return true;
    } catch (e) {
      this.retrievalSwitch = { phase: 'error', targetId: id, progress: null, error: e instanceof Error ? e.message : String(e) };
      this.announce('The retrieval model could not be switched; the previous one is still in use.');
      return false;
    }
  }

  /** At start: the model chosen earlier, from the browser's cache (the built-in one answers meanwhile). */
  private async restoreRetrievalModel(): Promise<void> {
    await this.settingsLoaded.catch(() => undefined);
    await this.refreshRetrievalModels();
    const id = this.settings.retrievalModel;
    if (id && this.status && id !== this.status.retrievalModel.id) await this.switchRetrievalModel(id, { remember: false });
  }

  /** Resolves when the index is verified (at once if it is); rejects when loading it fails. */
  waitForIndex(): Promise<void> {
    // questions wait for the user's stored documents too (a quick read, or a re-embedding when the model changed)
    if (this.indexState === 'ready') return this.userDocsLoading;
    if (this.indexState === 'error') return Promise.reject(new Error(`The regulation index is not available (${this.indexError}). Reload, then ask again.`));
    return new Promise((resolve, reject) => this.indexWaiters.push({ resolve, reject }));
  }

  /** Manifest entry of a document id. */
  source(docId: string): ManifestSource | undefined {
    return this.status?.manifest.sources.find((s) => s.id === docId) ?? this.userDocs.source(docId);
  }

  docTitle(docId: string): string {
    return this.source(docId)?.title ?? docId;
  }

  async probeDevice(): Promise<void> {
    try {
      this.device = await getDeviceReport();
      const mem = this.device.deviceMemoryGB;
      this.recommendation = recommendModel(this.device.adapter, mem, this.llmModels);
    } catch {
      this.device = null;
    }
  }

  // ------------------------------------------------------------------ language model

  /** Every model offered: the self-hosted ones (verified) first, then WebLLM's remote list. */
  get llmModels(): readonly CuratedModel[] {
    return [...(this.catalog?.models ?? []), ...CURATED_MODELS];
  }

  /** Read the self-hosted catalog for the current base URL (never throws), and recommend again. */
  async refreshCatalog(): Promise<void> {
    this.catalog = await loadCatalog(this.settings.modelBaseUrl);
    if (this.device) this.recommendation = recommendModel(this.device.adapter, this.device.deviceMemoryGB, this.llmModels);
  }

  private clientFor(): LlmClient {
    if (this.client && !this.client.crashed) return this.client;
    const client = createLlmClient(startLlmWorker());
    client.onCrash((err) => {
      if (this.client === client) this.client = null;
      const modelId = this.llm.loadedId ?? this.llm.loadingId ?? '';
      this.llm = { loadedId: null, loadingId: null, progress: null, error: errorState(modelId, err) };
      this.announce('The language model stopped; SkyCite continues in evidence-only mode.');
    });
    this.client = client;
    return client;
  }

  /** The chat engine for answers, or null (evidence-only). */
  chatEngine(): AskChat | null {
    if (!this.llm.loadedId || !this.client || this.client.crashed) return null;
    const m = findModel(this.llm.loadedId, this.llmModels);
    return { engine: this.client, contextWindow: m?.contextWindow ?? 4096 };
  }

  /** True when answers will be generated with the model. */
  get generative(): boolean {
    return !this.settings.evidenceOnly && this.llm.loadedId !== null;
  }

  appConfig() {
    return buildAppConfig({ baseUrl: this.settings.modelBaseUrl, models: this.llmModels });
  }

  /**
   * Download (self-hosted: verified against the manifest into WebLLM's cache; remote:
   * by WebLLM itself) and initialise a model in the LLM worker.
   */
  async loadModel(modelId: string): Promise<boolean> {
    if (this.llm.loadingId) return false;
    this.llm = { loadedId: this.llm.loadedId, loadingId: modelId, progress: { progress: 0, text: 'Starting…' }, error: null };
    try {
      const model = findModel(modelId, this.llmModels);
      if (!model) throw new ModelUnknownError(modelId);
      if (model.source === 'self-hosted') {
        await downloadModel(model, {
          baseUrl: this.settings.modelBaseUrl,
          ...(typeof navigator !== 'undefined' && navigator.storage?.estimate ? { estimate: () => navigator.storage.estimate() } : {}),
          onProgress: (p) => {
            this.llm.progress = { progress: p.progress * 0.9, text: p.text };
          },
        });
      }
      await this.clientFor().load(modelId, this.appConfig(), (p) => {
        this.llm.progress = model.source === 'self-hosted' ? { progress: 0.9 + p.progress * 0.1, text: p.text } : p;
      });
      this.llm = { loadedId: modelId, loadingId: null, progress: null, error: null };
      if (this.settings.modelId !== modelId) await this.updateSettings({ modelId }).catch(() => undefined);
      this.announce('The language model is loaded.');
      return true;
    } catch (e) {
      this.llm = { loadedId: null, loadingId: null, progress: null, error: errorState(modelId, e) };
      this.announce('The language model could not be loaded.');
      return false;
    }
  }

  async unloadModel(): Promise<void> {
    if (this.client && !this.client.crashed) await this.client.unload().catch(() => undefined);
    this.llm = { ...this.llm, loadedId: null };
  }

  /** A new model base URL: a fresh worker and catalog (the AppConfig holds the URLs). */
  async resetEngine(): Promise<void> {
    const c = this.client;
    this.client = null;
    this.llm = { loadedId: null, loadingId: null, progress: null, error: null };
    c?.dispose();
    await this.refreshCatalog();
  }

  /** Whether every file of the model is in WebLLM's cache (no network access). */
  async isCached(model: CuratedModel): Promise<boolean> {
    try {
      return await isModelCached(model, this.settings.modelBaseUrl);
    } catch {
      return false;
    }
  }

  /** Delete the model's files from WebLLM's cache (other models are untouched). */
  async deleteModel(model: CuratedModel): Promise<number> {
    if (this.llm.loadedId === model.id) await this.unloadModel();
    const n = await deleteModelFromCache(model, this.settings.modelBaseUrl);
    if (this.settings.modelId === model.id) await this.updateSettings({ modelId: null }).catch(() => undefined);
    return n;
  }

  /**
   * Settings → "Import model files": the chosen folder or files (with the manifest.json
   * written by npm run models:prepare, or matching a model already in the catalog) are
   * verified file by file and stored where WebLLM reads them. Never throws: the result
   * or a typed error is in `importState`.
   */
  async importFiles(files: readonly ChosenFile[]): Promise<boolean> {
    if (this.importState.running) return false;
    this.importState = { running: true, progress: null, done: null, error: null };
    try {
      const manifestFile = files.find((f) => f.name === 'manifest.json');
      let manifest: unknown = null;
      let fromManifest: CuratedModel[] = [];
      if (manifestFile) {
        try {
          manifest = JSON.parse(new TextDecoder().decode(await manifestFile.arrayBuffer()));
          fromManifest = parseModelsManifest(manifest);
        } catch (e) {
          throw mapImportManifestError(e);
        }
      }
      const known = [...fromManifest, ...(this.catalog?.models ?? []).filter((m) => !fromManifest.some((n) => n.id === m.id))];
      const match = pickImport(known, files, this.settings.modelBaseUrl);
      const r = await importModel(match, {
        baseUrl: this.settings.modelBaseUrl,
        ...(typeof navigator !== 'undefined' && navigator.storage?.estimate ? { estimate: () => navigator.storage.estimate() } : {}),
        onProgress: (p) => {
          this.importState.progress = p;
        },
      });
      if (manifest) await rememberManifest(this.settings.modelBaseUrl, manifest).catch(() => undefined);
      await this.refreshCatalog();
      const done = `${match.model.id}: ${(r.installedBytes / 1e6).toFixed(1)} MB imported and verified${r.skippedBytes ? `, ${(r.skippedBytes / 1e6).toFixed(1)} MB were already stored` : ''}.`;
      this.importState = { running: false, progress: null, done, error: null };
      this.announce(`Model files imported: ${match.model.id}.`);
      return true;
    } catch (e) {
      const err = e instanceof AnswerError ? e : mapEngineError(e);
      this.importState = { running: false, progress: null, done: null, error: { message: err.message, code: err.code } };
      this.announce('The model files could not be imported.');
      return false;
    }
  }

  /** On start: load the chosen model if it is already cached (no network) and WebGPU exists. */
  private async autoLoadModel(): Promise<void> {
    const id = this.settings.modelId;
    if (!id || this.settings.evidenceOnly) return;
    const gpu = (globalThis.navigator as Navigator & { gpu?: unknown } | undefined)?.gpu;
    if (!gpu) return;
    const model = findModel(id, this.llmModels);
    if (model && (await this.isCached(model))) await this.loadModel(id);
  }

  // ------------------------------------------------------------------ chunk viewer

  openChunk(request: ViewerRequest): void {
    this.viewer = request;
  }

  closeChunk(): void {
    const back = this.viewer?.returnFocus;
    this.viewer = null;
    if (back?.isConnected) queueMicrotask(() => back.focus());
  }
}
