/**
 * Application state shared by the views: the runtime and its status, settings, connectivity,
 * PWA update, the chunk viewer request, and the language model (its own state, ModelState).
 * One instance, created by App.svelte and passed to the views as a prop.
 */
import type { Chunk } from '../core/model/chunk';
import type { ManifestSource } from '../core/index/manifest';
import { DEFAULT_ANSWER_CONFIG, SMOKE_ANSWER_CONFIG, type AnswerConfig } from '../core/answer/config';
import type { CuratedModel } from '../llm/models';
import type { AskChat } from './ask/session.svelte';
import { ModelState } from './model-state.svelte';
import type { PwaUpdater } from '../pwa/register';
import { detectOfflineBeforeFirstLoad, indexProblemForUser, watchConnectivity } from '../pwa/offline';
import { problemSource } from '../runtime/errors';
import type { DownloadProgress, RetrievalModelInfo, RuntimeOptions, RuntimeStatus, SkyCiteRuntime } from '../runtime/types';
import { createAuditStore, type AuditStore } from '../storage/audit-store';
import { createSettingsStore, DEFAULT_SETTINGS, type Settings, type SettingsStore } from '../storage/settings-store';
import { createSessionStore, type SessionStore } from '../storage/session-store';
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

/**
 * `?device=webgpu|wasm|auto` in the page URL forces the embedding device, `?dense=exact|voy`
 * the dense backend and `?threads=N` ONNX Runtime's threads (still 1 without cross-origin
 * isolation) — diagnosis, e2e tests, bench:app.
 */
export function runtimeOptionsFromUrl(search: string = typeof location === 'undefined' ? '' : location.search): Partial<RuntimeOptions> {
  const params = new URLSearchParams(search);
  const device = params.get('device');
  const dense = params.get('dense');
  const rerank = params.get('rerank');
  const threads = Number(params.get('threads') ?? NaN);
  return {
    ...(device === 'webgpu' || device === 'wasm' || device === 'auto' ? { device } : {}),
    ...(dense === 'exact' || dense === 'voy' ? { denseBackend: dense } : {}),
    ...(rerank === 'off' || rerank === 'on' ? { rerank: rerank === 'on' } : {}),
    ...(Number.isInteger(threads) && threads >= 1 && threads <= 16 ? { threads } : {}),
  };
}

/**
 * `?generation=smoke` runs answers with the diagnostic smoke profile (SMOKE_ANSWER_CONFIG: a few
 * tokens, a short prompt, no other model call — for a software WebGPU adapter and the end-to-end
 * test) and `?assist=off` turns model-assisted retrieval off.
 */
export function answerOptionsFromUrl(search: string = typeof location === 'undefined' ? '' : location.search): {
  answerConfig: AnswerConfig;
  assist: boolean;
  routerModel: boolean;
} {
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
  /** The conversation and the Assess form, kept across a reload. */
  readonly sessionStore: SessionStore;
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
  /** The update was accepted and waits for an import of your documents (in this tab or another) to finish. */
  updateWaitsForImport = $state(false);
  updater: PwaUpdater | null = null;
  /** The offline copy (service worker precache): 'none' without a service worker (dev server, unsupported), 'saving' while it installs, 'ready' once stored. */
  offlineCopy: 'none' | 'saving' | 'ready' = $state('none');

  settings: Settings = $state({ ...DEFAULT_SETTINGS });
  settingsProblems: string[] = $state([]);
  settingsError: string | null = $state(null);

  /** The language model: device report, offered models, download, import, the LLM worker (model-state.svelte.ts). */
  readonly models: ModelState;

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

  constructor(runtime: SkyCiteRuntime, options: { audit?: AuditStore; settingsStore?: SettingsStore; sessionStore?: SessionStore } = {}) {
    this.runtime = runtime;
    ({ answerConfig: this.answerConfig, assist: this.assist, routerModel: this.routerModel } = answerOptionsFromUrl());
    this.audit = options.audit ?? createAuditStore();
    this.settingsStore = options.settingsStore ?? createSettingsStore();
    this.sessionStore = options.sessionStore ?? createSessionStore();
    this.userDocs = new UserDocsState(runtime);
    this.models = new ModelState({ settings: () => this.settings, updateSettings: (p) => this.updateSettings(p), announce: (t) => this.announce(t) });
    this.online = typeof navigator === 'undefined' ? true : navigator.onLine !== false;
  }

  /** Start everything: settings, index, device probe, connectivity. */
  async start(): Promise<void> {
    watchConnectivity((online) => {
      this.online = online;
      const stored = this.offlineCopy === 'ready' || (typeof navigator !== 'undefined' && navigator.serviceWorker?.controller != null);
      this.announce(
        online
          ? 'Back online.'
          : stored
            ? 'Offline: SkyCite keeps working from the stored index.'
            : 'Offline: nothing is stored on this device yet; SkyCite needs one complete load while online.',
      );
    });
    this.settingsLoaded = this.loadSettings();
    // the index and the embedding model load in the worker (seconds) while the settings, the
    // device report and the model catalogue are read here (the index does not depend on them)
    const index = this.initIndex();
    await this.settingsLoaded;
    await this.models.probeDevice();
    await this.models.refreshCatalog();
    await index;
    void this.models.autoLoadModel();
  }

  /** Accept the new version: every tab reloads into it, once no tab is importing a document (the banner says when it waits). */
  async applyUpdate(): Promise<void> {
    await this.updater?.applyUpdate(() => {
      this.updateWaitsForImport = true;
      this.announce('The update waits until the document being added has been stored.');
    });
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
      this.indexError = early?.message ?? indexProblemForUser(e, undefined, problemSource(e));
      this.indexErrorDetail = e instanceof Error ? `${e.name}: ${e.message}` : String(e);
      this.announce('The regulation index could not be loaded.');
      for (const w of this.indexWaiters.splice(0))
        w.reject(new Error(`The regulation index could not be loaded (${this.indexError}), so the question was not sent. Reload, then ask again.`));
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
      if (options.remember !== false) {
        const patch: Partial<Settings> = {};
        const chosen = model.state === 'on' ? model.id : null;
        if (this.settings.retrievalModel !== chosen) patch.retrievalModel = chosen;
        // the first visit's choice follows a switch made in Settings, both ways
        const choice = chosen !== null ? 'full' : 'light';
        if (this.settings.retrievalChoice !== choice) patch.retrievalChoice = choice;
        // the model was taken once: switching back later is a choice, not a reason to offer it again
        if (chosen !== null && !this.settings.retrievalOfferDismissed) patch.retrievalOfferDismissed = true;
        if (Object.keys(patch).length) await this.updateSettings(patch).catch(() => undefined);
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

  // ------------------------------------------------------------------ the Ask and Assess sessions' view of the model (AskApp)

  get llm(): ModelState['llm'] {
    return this.models.llm;
  }

  get llmModels(): readonly CuratedModel[] {
    return this.models.llmModels;
  }

  /** The chat engine for answers, or null (evidence-only). */
  chatEngine(): AskChat | null {
    return this.models.chatEngine();
  }

  /** True when answers will be generated with the model. */
  get generative(): boolean {
    return this.models.generative;
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
