/**
 * The language model as the app holds it: the device report and the recommendation, the offered
 * models (self-hosted catalog and WebLLM's list), download, import and cache, and the LLM worker
 * whose client is the one engine interface (ChatEngine) for every model call. Reactive state for
 * Settings and the status line; AppState owns one and passes it the settings it needs.
 */
import { AnswerError, mapEngineError, ModelImportError, ModelUnknownError, type AnswerErrorCode } from '../core/llm/errors';
import { deleteModelFromCache, isModelCached } from '../llm/cache';
import { loadCatalog, rememberManifest, type Catalog } from '../llm/catalog';
import { createLlmClient, startLlmWorker, type LlmClient, type LoadProgress } from '../llm/client';
import { getDeviceReport, type DeviceReport } from '../llm/device';
import { downloadModel, importModel, pickImport, type ChosenFile, type InstallProgress } from '../llm/install';
import { buildAppConfig, CURATED_MODELS, findModel, parseModelsManifest, recommendModel, type CuratedModel, type Recommendation } from '../llm/models';
import type { Settings } from '../storage/settings-store';
import type { AskChat } from './ask/session.svelte';

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

/** A manifest.json among the chosen files that is not one npm run models:prepare wrote. */
function mapImportManifestError(e: unknown): AnswerError {
  return new ModelImportError(
    `The manifest.json among the chosen files cannot be used: ${(e as Error).message}`,
    'Choose the folder written by npm run models:prepare, with its manifest.json unchanged.',
  );
}

/** What the model state needs of the app: its settings, how to store a change, and the screen-reader announcer. */
export interface ModelStateDeps {
  settings(): Settings;
  updateSettings(patch: Partial<Omit<Settings, 'schemaVersion'>>): Promise<void>;
  announce(text: string): void;
}

export class ModelState {
  constructor(private readonly deps: ModelStateDeps) {}

  device: DeviceReport | null = $state.raw(null);
  recommendation: Recommendation | null = $state.raw(null);

  llm: LlmState = $state({ loadedId: null, loadingId: null, progress: null, error: null });
  /** The LLM worker's client: the one engine interface (ChatEngine) for every model call. */
  private client: LlmClient | null = null;
  /** Self-hosted models from the base URL's manifest.json (or kept from an import). */
  catalog: Catalog | null = $state.raw(null);
  importState: ImportState = $state({ running: false, progress: null, done: null, error: null });

  async probeDevice(): Promise<void> {
    try {
      this.device = await getDeviceReport();
      const mem = this.device.deviceMemoryGB;
      this.recommendation = recommendModel(this.device.adapter, mem, this.llmModels);
    } catch {
      this.device = null;
    }
  }

  /** Every model offered: the self-hosted ones (verified) first, then WebLLM's remote list. */
  get llmModels(): readonly CuratedModel[] {
    return [...(this.catalog?.models ?? []), ...CURATED_MODELS];
  }

  /** Read the self-hosted catalog for the current base URL (never throws), and recommend again. */
  async refreshCatalog(): Promise<void> {
    this.catalog = await loadCatalog(this.deps.settings().modelBaseUrl);
    if (this.device) this.recommendation = recommendModel(this.device.adapter, this.device.deviceMemoryGB, this.llmModels);
  }

  private clientFor(): LlmClient {
    if (this.client && !this.client.crashed) return this.client;
    const client = createLlmClient(startLlmWorker());
    client.onCrash((err) => {
      if (this.client === client) this.client = null;
      const modelId = this.llm.loadedId ?? this.llm.loadingId ?? '';
      this.llm = { loadedId: null, loadingId: null, progress: null, error: errorState(modelId, err) };
      this.deps.announce('The language model stopped; SkyCite continues in evidence-only mode.');
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
    return !this.deps.settings().evidenceOnly && this.llm.loadedId !== null;
  }

  appConfig() {
    return buildAppConfig({ baseUrl: this.deps.settings().modelBaseUrl, models: this.llmModels });
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
          baseUrl: this.deps.settings().modelBaseUrl,
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
      if (this.deps.settings().modelId !== modelId) await this.deps.updateSettings({ modelId }).catch(() => undefined);
      this.deps.announce('The language model is loaded.');
      return true;
    } catch (e) {
      this.llm = { loadedId: null, loadingId: null, progress: null, error: errorState(modelId, e) };
      this.deps.announce('The language model could not be loaded.');
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
      return await isModelCached(model, this.deps.settings().modelBaseUrl);
    } catch {
      return false;
    }
  }

  /** Delete the model's files from WebLLM's cache (other models are untouched). */
  async deleteModel(model: CuratedModel): Promise<number> {
    if (this.llm.loadedId === model.id) await this.unloadModel();
    const n = await deleteModelFromCache(model, this.deps.settings().modelBaseUrl);
    if (this.deps.settings().modelId === model.id) await this.deps.updateSettings({ modelId: null }).catch(() => undefined);
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
      const match = pickImport(known, files, this.deps.settings().modelBaseUrl);
      const r = await importModel(match, {
        baseUrl: this.deps.settings().modelBaseUrl,
        ...(typeof navigator !== 'undefined' && navigator.storage?.estimate ? { estimate: () => navigator.storage.estimate() } : {}),
        onProgress: (p) => {
          this.importState.progress = p;
        },
      });
      if (manifest) await rememberManifest(this.deps.settings().modelBaseUrl, manifest).catch(() => undefined);
      await this.refreshCatalog();
      const done = `${match.model.id}: ${(r.installedBytes / 1e6).toFixed(1)} MB imported and verified${r.skippedBytes ? `, ${(r.skippedBytes / 1e6).toFixed(1)} MB were already stored` : ''}.`;
      this.importState = { running: false, progress: null, done, error: null };
      this.deps.announce(`Model files imported: ${match.model.id}.`);
      return true;
    } catch (e) {
      const err = e instanceof AnswerError ? e : mapEngineError(e);
      this.importState = { running: false, progress: null, done: null, error: { message: err.message, code: err.code } };
      this.deps.announce('The model files could not be imported.');
      return false;
    }
  }

  /** On start: load the chosen model if it is already cached (no network) and WebGPU exists. */
  async autoLoadModel(): Promise<void> {
    const id = this.deps.settings().modelId;
    if (!id || this.deps.settings().evidenceOnly) return;
    const gpu = (globalThis.navigator as (Navigator & { gpu?: unknown }) | undefined)?.gpu;
    if (!gpu) return;
    const model = findModel(id, this.llmModels);
    if (model && (await this.isCached(model))) await this.loadModel(id);
  }
}
