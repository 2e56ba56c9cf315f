/**
 * Application state shared by the views: the runtime and its status, settings, the
 * language model, device report, connectivity, PWA update, and the chunk viewer request.
 * One instance, created by App.svelte and passed to the views as a prop.
 */
import type { Chunk } from '../core/model/chunk';
import { sha256Hex, type ManifestSource } from '../core/index/manifest';
import { createLlmEngine, describeLlmError, getDeviceReport, isModelCached, type DeviceReport, type LlmEngine, type LlmError, type LoadProgress } from '../llm/engine';
import { buildAppConfig, recommendModel, type Recommendation } from '../llm/models';
import type { PwaUpdater } from '../pwa/register';
import { detectOfflineBeforeFirstLoad, watchConnectivity } from '../pwa/offline';
import type { RuntimeOptions, RuntimeStatus, SkyCiteRuntime } from '../runtime/types';
import { createAuditStore, type AuditStore } from '../storage/audit-store';
import { createSettingsStore, DEFAULT_SETTINGS, type Settings, type SettingsStore } from '../storage/settings-store';
import type { TextRange } from './highlight';
import type { TraceStep } from '../core/assess/types';

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
  error: { modelId: string; message: string; kind: LlmError['kind'] } | null;
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

export class AppState {
  readonly runtime: SkyCiteRuntime;
  readonly audit: AuditStore;
  readonly settingsStore: SettingsStore;

  indexState: IndexState = $state('loading');
  status: RuntimeStatus | null = $state.raw(null);
  indexError: string | null = $state(null);
  /** SHA-256 of static-index/manifest.json as served (for the audit record). */
  manifestSha = $state('unknown');

  online = $state(true);
  updateAvailable = $state(false);
  updater: PwaUpdater | null = null;

  settings: Settings = $state({ ...DEFAULT_SETTINGS });
  settingsProblems: string[] = $state([]);
  settingsError: string | null = $state(null);

  device: DeviceReport | null = $state.raw(null);
  recommendation: Recommendation | null = $state.raw(null);

  llm: LlmState = $state({ loadedId: null, loadingId: null, progress: null, error: null });
  private engine: LlmEngine | null = null;

  viewer: ViewerRequest | null = $state.raw(null);
  /** Questions waiting for the index (resolved when it is verified, rejected when it fails). */
  private indexWaiters: { resolve: () => void; reject: (e: Error) => void }[] = [];
  /** Polite announcements for screen readers (status line live region). */
  announcement = $state('');

  constructor(runtime: SkyCiteRuntime, options: { audit?: AuditStore; settingsStore?: SettingsStore } = {}) {
    this.runtime = runtime;
    this.audit = options.audit ?? createAuditStore();
    this.settingsStore = options.settingsStore ?? createSettingsStore();
    this.online = typeof navigator === 'undefined' ? true : navigator.onLine !== false;
  }

  /** Start everything: settings, index, device probe, connectivity. */
  async start(): Promise<void> {
    watchConnectivity((online) => {
      this.online = online;
      this.announce(online ? 'Back online.' : 'Offline: SkyCite keeps working from the stored index.');
    });
    await this.loadSettings();
    void this.probeDevice();
    await this.initIndex();
    void this.autoLoadModel();
  }

  announce(text: string): void {
    // Re-set so the same text is announced again.
    this.announcement = '';
    queueMicrotask(() => (this.announcement = text));
  }

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
    const early = detectOfflineBeforeFirstLoad();
    try {
      this.status = await this.runtime.init(runtimeOptionsFromUrl());
      this.indexState = 'ready';
      this.announce(`Index verified: ${this.status.chunkCount} passages.`);
      void this.computeManifestSha();
      for (const w of this.indexWaiters.splice(0)) w.resolve();
    } catch (e) {
      this.indexState = 'error';
      this.indexError = early?.message ?? (e instanceof Error ? e.message : String(e));
      this.announce('The regulation index could not be loaded.');
      for (const w of this.indexWaiters.splice(0)) w.reject(new Error(`The regulation index could not be loaded (${this.indexError}), so the question was not sent. Reload, then ask again.`));
    }
  }

  /** Resolves when the index is verified (at once if it is); rejects when loading it fails. */
  waitForIndex(): Promise<void> {
    if (this.indexState === 'ready') return Promise.resolve();
    if (this.indexState === 'error') return Promise.reject(new Error(`The regulation index is not available (${this.indexError}). Reload, then ask again.`));
    return new Promise((resolve, reject) => this.indexWaiters.push({ resolve, reject }));
  }

  private async computeManifestSha(): Promise<void> {
    try {
      const res = await fetch('static-index/manifest.json');
      if (res.ok) this.manifestSha = await sha256Hex(new Uint8Array(await res.arrayBuffer()));
    } catch {
      // stays 'unknown'; the audit record says so
    }
  }

  /** Manifest entry of a document id. */
  source(docId: string): ManifestSource | undefined {
    return this.status?.manifest.sources.find((s) => s.id === docId);
  }

  docTitle(docId: string): string {
    return this.source(docId)?.title ?? docId;
  }

  async probeDevice(): Promise<void> {
    try {
      this.device = await getDeviceReport();
      const mem = this.device.deviceMemoryGB;
      this.recommendation = recommendModel(this.device.adapter, mem);
    } catch {
      this.device = null;
    }
  }

  // ------------------------------------------------------------------ language model

  private engineFor(): LlmEngine {
    this.engine ??= createLlmEngine({ baseUrl: this.settings.modelBaseUrl });
    return this.engine;
  }

  /** The chat engine for answers, or null (evidence-only). */
  chatEngine(): LlmEngine | null {
    return this.llm.loadedId && this.engine?.engine ? this.engine : null;
  }

  /** True when answers will be generated with the model. */
  get generative(): boolean {
    return !this.settings.evidenceOnly && this.llm.loadedId !== null;
  }

  appConfig() {
    return buildAppConfig({ baseUrl: this.settings.modelBaseUrl });
  }

  /** Download (or read from the cache) and initialise a model. */
  async loadModel(modelId: string): Promise<boolean> {
    if (this.llm.loadingId) return false;
    this.llm = { loadedId: this.llm.loadedId, loadingId: modelId, progress: { progress: 0, text: 'Starting…' }, error: null };
    try {
      await this.engineFor().load(modelId, {
        onProgress: (p) => {
          this.llm.progress = p;
        },
      });
      this.llm = { loadedId: modelId, loadingId: null, progress: null, error: null };
      if (this.settings.modelId !== modelId) await this.updateSettings({ modelId }).catch(() => undefined);
      this.announce('The language model is loaded.');
      return true;
    } catch (e) {
      const err = describeLlmError(e);
      this.llm = { loadedId: null, loadingId: null, progress: null, error: { modelId, message: err.message, kind: err.kind } };
      this.announce('The language model could not be loaded.');
      return false;
    }
  }

  async unloadModel(): Promise<void> {
    if (this.engine) await this.engine.unload().catch(() => undefined);
    this.llm = { ...this.llm, loadedId: null };
  }

  /** A new model base URL needs a new engine (its AppConfig holds the URLs). */
  async resetEngine(): Promise<void> {
    const e = this.engine;
    this.engine = null;
    this.llm = { loadedId: null, loadingId: null, progress: null, error: null };
    if (e) await e.dispose().catch(() => undefined);
  }

  /** On start: load the chosen model if it is already cached (no network) and WebGPU exists. */
  private async autoLoadModel(): Promise<void> {
    const id = this.settings.modelId;
    if (!id || this.settings.evidenceOnly) return;
    const gpu = (globalThis.navigator as Navigator & { gpu?: unknown } | undefined)?.gpu;
    if (!gpu) return;
    try {
      if (await isModelCached(id, this.appConfig())) await this.loadModel(id);
    } catch {
      // stays in evidence-only mode; Settings shows the model state
    }
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
