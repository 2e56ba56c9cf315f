/**
 * The retrieval model as the app holds it (beside ModelState, the language model's): the models on
 * offer (the built-in one and those with a vector set), and switching to one — its download's
 * progress, the choice stored only when the switch worked, restored at the next start, and on
 * failure the previous model kept with the reason shown. Reactive state for Settings, the Ask view's
 * offer, About and the status line; AppState owns one and passes it what it needs of the app.
 */
import type { DownloadProgress, RetrievalModelInfo, RetrievalModelStatus, SkyCiteRuntime } from '../runtime/types';
import type { Settings } from '../storage/settings-store';

export interface RetrievalSwitch {
  phase: 'idle' | 'loading' | 'error';
  targetId: string | null;
  progress: DownloadProgress | null;
  error: string | null;
}

/** What the retrieval-model state needs of the app. */
export interface RetrievalModelStateDeps {
  readonly runtime: Pick<SkyCiteRuntime, 'retrievalModels' | 'useRetrievalModel'>;
  settings(): Settings;
  updateSettings(patch: Partial<Omit<Settings, 'schemaVersion'>>): Promise<void>;
  announce(text: string): void;
  /** The model retrieval runs with now (the runtime's status), or null before the index is ready. */
  active(): RetrievalModelStatus | null;
  /** A switch worked: the runtime's status names the new model. */
  switched(model: RetrievalModelStatus): void;
}

const IDLE: RetrievalSwitch = { phase: 'idle', targetId: null, progress: null, error: null };

export class RetrievalModelState {
  constructor(private readonly deps: RetrievalModelStateDeps) {}

  /** The models on offer, read once the index is ready and after each switch. */
  models: RetrievalModelInfo[] = $state.raw([]);
  /** The state of a switch (and its download). */
  switching: RetrievalSwitch = $state({ ...IDLE });

  /** Read the models on offer again (never throws: on an error the list stays as it was). */
  async refresh(): Promise<void> {
    try {
      this.models = await this.deps.runtime.retrievalModels();
    } catch {
      // Settings then offers no other model; the built-in one keeps working
    }
  }

  /**
   * Switch retrieval to a model (null: the built-in one), downloading it on first use; the
   * choice is stored only when the switch worked. On failure retrieval keeps its model and
   * the error says why.
   */
  async switchTo(id: string | null, options: { remember?: boolean } = {}): Promise<boolean> {
    if (!this.deps.active()) return false;
    this.switching = { phase: 'loading', targetId: id, progress: null, error: null };
    try {
      const model = await this.deps.runtime.useRetrievalModel(id, (p) => (this.switching.progress = p));
      this.deps.switched(model);
      this.switching = { ...IDLE };
      if (options.remember !== false) {
        const settings = this.deps.settings();
        const patch: Partial<Settings> = {};
        const chosen = model.state === 'on' ? model.id : null;
        if (settings.retrievalModel !== chosen) patch.retrievalModel = chosen;
        // the first visit's choice follows a switch made in Settings, both ways
        const choice = chosen !== null ? 'full' : 'light';
        if (settings.retrievalChoice !== choice) patch.retrievalChoice = choice;
        // the model was taken once: switching back later is a choice, not a reason to offer it again
        if (chosen !== null && !settings.retrievalOfferDismissed) patch.retrievalOfferDismissed = true;
        if (Object.keys(patch).length) await this.deps.updateSettings(patch).catch(() => undefined);
      }
      this.deps.announce(`Retrieval now uses ${model.label}.`);
      await this.refresh();
      return true;
    } catch (e) {
      this.switching = { phase: 'error', targetId: id, progress: null, error: e instanceof Error ? e.message : String(e) };
      this.deps.announce('The retrieval model could not be switched; the previous one is still in use.');
      return false;
    }
  }

  /** At start, once the index is ready and the settings are read: the model chosen earlier, from the browser's cache (the built-in one answers meanwhile). */
  async restore(): Promise<void> {
    await this.refresh();
    const id = this.deps.settings().retrievalModel;
    const active = this.deps.active();
    if (id && active && id !== active.id) await this.switchTo(id, { remember: false });
  }
}
