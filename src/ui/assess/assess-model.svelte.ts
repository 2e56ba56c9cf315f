/**
 * State of the Assess view, kept across navigation: the form values, the last result and
 * the run in progress.
 */
import { chatModel } from '../../core/llm/complete';
import { assessIndicators, type AssessmentResult, type ProgressEvent } from '../../core/indicators/run';
import { OperationInputError } from '../../core/indicators/inputs';
import type { CompletionModel } from '../../core/llm/complete';
import type { Chunk } from '../../core/model/chunk';
import type { AskApp } from '../ask/session.svelte';
import { buildAssessAuditRecord } from './audit';
import { changedFields, copyFormValues, emptyFormValues, validateForm, type AssessFormValues } from './form';
import { retrievalAdapter } from './retrieval';

/** What the Assess model needs from the application state (AppState provides it; tests pass stand-ins). */
export type AssessApp = Pick<AskApp, 'runtime' | 'audit' | 'manifestSha' | 'settings' | 'generative' | 'chatEngine' | 'llm' | 'status' | 'sessionStore'> & {
  announce(text: string): void;
};

/** A stored form: every field a string, the mitigations by key (anything else is not restored). */
export function isStoredForm(v: unknown): v is AssessFormValues {
  const empty = emptyFormValues();
  const f = v as Record<string, unknown> | null;
  if (!f || typeof f !== 'object') return false;
  const m = f.mitigations as Record<string, unknown> | null;
  return (
    Object.keys(empty).every((k) => k === 'mitigations' || typeof f[k] === 'string') &&
    !!m &&
    typeof m === 'object' &&
    Object.keys(empty.mitigations).every((k) => typeof m[k] === 'string')
  );
}

export class AssessModel {
  values: AssessFormValues = $state(emptyFormValues());
  errors: Record<string, string[]> = $state({});
  submitted = $state(false);
  running = $state(false);
  progress: string | null = $state(null);
  result: AssessmentResult | null = $state.raw(null);
  /** The form values the shown result was computed from. */
  ranWith: AssessFormValues | null = $state.raw(null);
  error: string | null = $state(null);
  /** True once the last result is in the audit log; auditError says why it is not. */
  audited = $state(false);
  auditError: string | null = $state(null);
  /** Model runs per indicator when a model is used. */
  runs = $state(5);
  useModel = $state(true);
  chunks = new Map<string, Chunk>();
  private controller: AbortController | null = null;

  /** Why the form is not kept across a reload (storage), or null. */
  storageNotice: string | null = $state(null);
  private restoring: Promise<void> | null = null;

  constructor(private readonly app: AssessApp) {}

  /** The form as it was before the reload (once; an edit made meanwhile wins). */
  restore(): Promise<void> {
    this.restoring ??= (async () => {
      if (!this.app.sessionStore) return;
      const before = JSON.stringify(this.values);
      const { value, problem } = await this.app.sessionStore.load('assessForm', isStoredForm);
      this.storageNotice = problem ? problem.replace('conversation', 'Assess form') : null;
      if (value && JSON.stringify(this.values) === before) this.values = copyFormValues(value);
    })();
    return this.restoring;
  }

  /** Keep the form's values for the next visit (after the restore, so it is not overwritten by the empty form). */
  async remember(values: AssessFormValues): Promise<void> {
    if (!this.app.sessionStore || !this.restoring) return;
    await this.restoring;
    try {
      await this.app.sessionStore.save('assessForm', values);
      this.storageNotice = null;
    } catch (e) {
      this.storageNotice = `The form is not kept for the next visit: ${e instanceof Error ? e.message : String(e)}`;
    }
  }

  /** The fields (by label) changed since the shown result was computed; empty when it is current. */
  get changedSinceRun(): string[] {
    return this.result && this.ranWith ? changedFields(this.ranWith, this.values) : [];
  }

  /** True once an input differs from the one the shown result was computed from. */
  get stale(): boolean {
    return this.changedSinceRun.length > 0;
  }

  /** The shown result may be exported or printed: there is one, and it is for the inputs shown. */
  get exportable(): boolean {
    return this.result !== null && !this.stale;
  }

  /** What the view says over a stale result (null when the result is current or there is none). */
  get staleNotice(): string | null {
    const changed = this.changedSinceRun;
    if (changed.length === 0) return null;
    const invalid = !validateForm(this.values).result.ok;
    return (
      `Out of date: these results are for the previous inputs (changed since the run: ${changed.join(', ')}). ` +
      (invalid ? 'Correct the fields marked in the form, then run again.' : 'Run again to update them.')
    );
  }

  /** Re-validate (after the first submit, errors update as the user edits). */
  validate(): boolean {
    const v = validateForm(this.values);
    this.errors = v.errors;
    return v.result.ok;
  }

  reset(): void {
    void this.app.sessionStore?.clear('assessForm');
    this.values = emptyFormValues();
    this.errors = {};
    this.submitted = false;
    this.result = null;
    this.ranWith = null;
    this.error = null;
  }

  stop(): void {
    this.controller?.abort();
  }

  private model(): CompletionModel | undefined {
    const engine = this.app.generative && this.useModel ? (this.app.chatEngine()?.engine ?? null) : null;
    if (!engine) return undefined;
    const id = this.app.llm.loadedId ?? undefined;
    // the one engine interface: indicator runs are completions with the indicator's JSON schema (response_format)
    return chatModel(engine, { ...(id ? { id } : {}), maxTokens: 512 });
  }

  async run(): Promise<void> {
    this.submitted = true;
    if (this.running) return;
    const checked = validateForm(this.values);
    this.errors = checked.errors;
    if (!checked.result.ok) return;
    const input = checked.result.value;
    const snapshot = copyFormValues(this.values);
    this.running = true;
    this.error = null;
    this.audited = false;
    this.auditError = null;
    this.progress = 'Starting…';
    this.controller = new AbortController();
    const { retrieval, lookup, chunks, log } = retrievalAdapter(this.app.runtime);
    this.chunks = chunks;
    const model = this.model();
    try {
      const result = await assessIndicators(input, {
        retrieval,
        chunkLookup: lookup,
        ...(model ? { model, runs: this.runs } : {}),
        signal: this.controller.signal,
        onProgress: (e: ProgressEvent) => {
          this.progress =
            e.stage === 'retrieve'
              ? `${e.indicator}: retrieving passages…`
              : e.stage === 'run'
                ? `${e.indicator}: model run ${e.run} of ${e.of}…`
                : `${e.indicator}: done`;
        },
      });
      this.ranWith = snapshot;
      this.result = result;
      this.app.announce('Assessment ready.');
      await this.saveAudit(result, log);
    } catch (e) {
      if (e instanceof OperationInputError) this.error = e.message;
      else if (this.controller?.signal.aborted) this.error = 'Stopped.';
      else this.error = e instanceof Error ? e.message : String(e);
    } finally {
      this.running = false;
      this.progress = null;
      this.controller = null;
    }
  }

  private async saveAudit(result: AssessmentResult, log: Parameters<typeof buildAssessAuditRecord>[0]['retrievals']): Promise<void> {
    try {
      await this.app.audit.add(
        buildAssessAuditRecord({
          result,
          retrievals: log,
          indexManifestSha: this.app.manifestSha,
          embeddingModel: this.app.status?.manifest.model ?? null,
          modelBaseUrl: this.app.settings.modelBaseUrl,
        }),
        { keepQuestionOutOfLog: this.app.settings.keepQuestionsOutOfLog },
      );
      this.audited = true;
    } catch (e) {
      this.auditError = e instanceof Error ? e.message : String(e);
    }
  }
}
