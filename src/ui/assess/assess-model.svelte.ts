/**
 * State of the Assess view, kept across navigation: the form values, the last result and
 * the run in progress.
 */
import { chatModel } from '../../core/answer/complete';
import { assessIndicators, type AssessmentResult, type ProgressEvent } from '../../core/assess/indicators/run';
import { OperationInputError } from '../../core/assess/indicators/inputs';
import type { IndicatorModel } from '../../core/assess/indicators/model';
import type { Chunk } from '../../core/model/chunk';
import type { AskApp } from '../ask/session.svelte';
import { buildAssessAuditRecord } from './audit';
import { emptyFormValues, validateForm, type AssessFormValues } from './form';
import { retrievalAdapter } from './retrieval';

/** What the Assess model needs from the application state (AppState provides it; tests pass stand-ins). */
export type AssessApp = Pick<AskApp, 'runtime' | 'audit' | 'manifestSha' | 'settings' | 'generative' | 'chatEngine' | 'llm' | 'status'> & {
  announce(text: string): void;
};

export class AssessModel {
  values: AssessFormValues = $state(emptyFormValues());
  errors: Record<string, string[]> = $state({});
  submitted = $state(false);
  running = $state(false);
  progress: string | null = $state(null);
  result: AssessmentResult | null = $state.raw(null);
  error: string | null = $state(null);
  /** True once the last result is in the audit log; auditError says why it is not. */
  audited = $state(false);
  auditError: string | null = $state(null);
  /** Model runs per indicator when a model is used. */
  runs = $state(5);
  useModel = $state(true);
  chunks = new Map<string, Chunk>();
  private controller: AbortController | null = null;

  constructor(private readonly app: AssessApp) {}

  /** Re-validate (after the first submit, errors update as the user edits). */
  validate(): boolean {
    const v = validateForm(this.values);
    this.errors = v.errors;
    return v.result.ok;
  }

  reset(): void {
    this.values = emptyFormValues();
    this.errors = {};
    this.submitted = false;
    this.result = null;
    this.error = null;
  }

  stop(): void {
    this.controller?.abort();
  }

  private model(): IndicatorModel | undefined {
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
      this.result = await assessIndicators(input, {
        retrieval,
        chunkLookup: lookup,
        ...(model ? { model, runs: this.runs } : {}),
        signal: this.controller.signal,
        onProgress: (e: ProgressEvent) => {
          this.progress =
            e.stage === 'retrieve' ? `${e.indicator}: retrieving passages…` : e.stage === 'run' ? `${e.indicator}: model run ${e.run} of ${e.of}…` : `${e.indicator}: done`;
        },
      });
      this.app.announce('Assessment ready.');
      await this.saveAudit(this.result, log);
    } catch (e) {
      if (e instanceof OperationInputError) this.error = e.message;
      else if ((e as { name?: string })?.name === 'AbortError') this.error = 'Stopped.';
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
