/**
 * A conversation in the Ask view: its turns as reactive state. The work of a turn is the core's
 * (src/core/ask/turn.ts, the same function the evaluations run); this class subscribes to its
 * events and saves the audit record it returns.
 */
import type { AnswerConfig } from '../../core/answer/config';
import { AnswerError } from '../../core/llm/errors';
import type { ChatEngine } from '../../core/llm/engine';
import { EMPTY_CALC_MEMORY, runTurn, type CalcMemory, type PriorTurn, type TurnPhase } from '../../core/ask/turn';
import { initialTurnState, isFinished, reduceTurn, type TurnError, type TurnEvent, type TurnLifecycleEvent, type TurnState } from '../../core/ask/turn-state';
import { CONVERSATION_VERSION, parseStoredConversation, type StoredConversation } from '../../core/ask/stored-conversation';
import type { AskRetrieval } from '../../core/ask/types';
import { describeGenerationModel, type CuratedModel } from '../../llm/models';
import type { RuntimeStatus } from '../../runtime/types';
import type { AuditStore } from '../../storage/audit-store';
import type { Settings } from '../../storage/settings-store';
import type { SessionStore } from '../../storage/session-store';
import { checkQuestion, QuestionRejectedError } from '../../core/text/question';
import { nonEnglishLanguage, type LanguageGuess } from '../../core/text/language';

export type { TurnPhase, TurnError };

let nextTurnId = 1;

/** One turn as the view holds it: its state (written only by reduceTurn), and what only the running session needs. */
export class Turn {
  readonly id = nextTurnId++;
  /** The turn's one state value: every field the view shows. */
  state: TurnState = $state.raw(initialTurnState(''));
  /** Set when the question is not in English (the documents are). */
  readonly language: LanguageGuess | null;
  controller: AbortController | null = null;

  constructor(state: TurnState) {
    this.state = state;
    this.language = nonEnglishLanguage(state.question);
  }

  apply(e: TurnEvent | TurnLifecycleEvent): void {
    this.state = reduceTurn(this.state, e);
  }

  get busy(): boolean {
    return !isFinished(this.state);
  }
}

/** A stop is not a failure; any other error says what happened and what to do. */
const describeError = (e: unknown): TurnError => {
  if (e instanceof AnswerError) return { summary: e.summary, action: e.action };
  return { summary: e instanceof Error ? e.message : String(e), action: 'Try again; if it persists, reload the app.' };
};

/**
 * The loaded language model as the session uses it: the one engine interface (ChatEngine,
 * src/llm/client.ts over the LLM worker) for answers, the router classifier and
 * model-assisted retrieval, and its context window (tokens).
 */
export interface AskChat {
  readonly engine: ChatEngine | null;
  readonly contextWindow?: number;
}

/** What a session needs from the application state (AppState provides it; tests pass stand-ins). */
export interface AskApp {
  readonly runtime: AskRetrieval;
  readonly audit: Pick<AuditStore, 'add'>;
  /** SHA-256 of the served index manifest. */
  readonly manifestSha: string;
  readonly settings: Pick<Settings, 'keepQuestionsOutOfLog' | 'modelBaseUrl'> & Partial<Pick<Settings, 'answerFromDocuments'>>;
  /** True when answers are generated (a model is loaded and evidence-only mode is off). */
  readonly generative: boolean;
  chatEngine(): AskChat | null;
  readonly llm: { readonly loadedId: string | null };
  readonly status: Pick<RuntimeStatus, 'manifest'> | null;
  /** The answer configuration (default DEFAULT_ANSWER_CONFIG; `?generation=smoke` gives the diagnostic profile). */
  readonly answerConfig?: AnswerConfig;
  /** Model-assisted retrieval when a model is loaded (default true; `?assist=off` turns it off). */
  readonly assist?: boolean;
  /** The model classifies messages the keyword pre-filter cannot decide (default true; off in the smoke profile). */
  readonly routerModel?: boolean;
  /** The offered models (the generation model's URLs in the audit record). */
  readonly llmModels?: readonly CuratedModel[];
  /** Where the conversation is kept across a reload (absent: not kept). */
  readonly sessionStore?: Pick<SessionStore, 'load' | 'save' | 'clear'>;
}

export class AskSession {
  turns: Turn[] = $state([]);
  /** Why the last conversation was not restored or cannot be kept (storage), in words; null when all is well. */
  storageNotice: string | null = $state(null);
  private memory: CalcMemory = EMPTY_CALC_MEMORY;
  private restored = false;
  /** Settles when the last turn asked has finished (a question asked meanwhile waits for it). */
  private last: Promise<void> = Promise.resolve();

  constructor(private readonly app: AskApp) {}

  /** The conversation kept before the reload, when this session has none yet (once). */
  async restore(): Promise<void> {
    if (this.restored || !this.app.sessionStore) return;
    this.restored = true;
    const { value, problem } = await this.app.sessionStore.load('conversation', parseStoredConversation);
    this.storageNotice = problem;
    if (!value || this.turns.length) return;
    this.turns = value.turns.map((t) => new Turn(t));
    this.memory = value.memory;
  }

  /** Keep the finished turns for the next visit; a storage failure is said, never thrown. */
  private async persist(): Promise<void> {
    if (!this.app.sessionStore || this.busy) return;
    try {
      const value: StoredConversation = {
        version: CONVERSATION_VERSION,
        turns: this.turns.map((t) => $state.snapshot(t.state) as TurnState),
        memory: this.memory,
      };
      await this.app.sessionStore.save('conversation', value);
      this.storageNotice = null;
    } catch (e) {
      this.storageNotice = `This conversation is shown but not kept for the next visit: ${e instanceof Error ? e.message : String(e)}`;
    }
  }

  get busy(): boolean {
    return this.turns.some((t) => t.busy);
  }

  /** New conversation: the turns and the calculator's memory go, here and in storage. */
  clear(): void {
    if (this.busy) return;
    this.turns = [];
    this.memory = EMPTY_CALC_MEMORY;
    this.restored = true; // a restore still on its way must not bring the old turns back
    void this.app.sessionStore?.clear('conversation');
  }

  stop(): void {
    for (const t of this.turns) if (t.busy) t.controller?.abort();
  }

  /**
   * Ask a question; resolves when the turn is finished (done, stopped or failed). With `until`
   * (the index still loading) the turn is shown as queued and runs when `until` resolves; asked
   * while an answer is still being written, it is queued behind that answer (a follow-up then reads
   * the finished turn before it).
   */
  async ask(question: string, options: { until?: Promise<void> } = {}): Promise<Turn> {
    const checked = checkQuestion(question);
    if (!checked.ok) throw new QuestionRejectedError(checked.message);
    const behind = this.busy ? this.last : null;
    const queued = options.until !== undefined || behind !== null;
    const turn = new Turn(initialTurnState(checked.text, queued ? 'queued' : 'routing', behind ? 'answer' : 'index'));
    turn.controller = new AbortController();
    const previous = [...this.turns];
    this.turns.push(turn);
    const live = this.turns[this.turns.length - 1]!; // the reactive proxy of the turn
    let settle!: () => void;
    this.last = new Promise<void>((resolve) => (settle = resolve));
    try {
      if (queued) {
        const signal = turn.controller.signal;
        const waits = [options.until, behind].filter((w): w is Promise<void> => w !== null && w !== undefined);
        await Promise.race([
          Promise.all(waits),
          new Promise<never>((_, reject) => signal.addEventListener('abort', () => reject(signal.reason), { once: true })),
        ]);
        live.apply({ type: 'phase', phase: 'routing' });
      }
      await this.run(live, previous, turn.controller.signal);
    } catch (e) {
      if (turn.controller.signal.aborted) live.apply({ type: 'phase', phase: 'stopped' });
      else live.apply({ type: 'failed', error: describeError(e) });
    } finally {
      settle();
    }
    await this.persist();
    return live;
  }

  private async run(turn: Turn, previous: Turn[], signal: AbortSignal): Promise<void> {
    const app = this.app;
    const chat = app.generative ? app.chatEngine() : null;
    const engine = chat?.engine ?? null;
    const outcome = await runTurn(
      {
        question: turn.state.question,
        previous: previous.map(priorOf),
        memory: this.memory,
        settings: {
          ...(app.answerConfig ? { answerConfig: app.answerConfig } : {}),
          assist: app.assist !== false,
          routerModel: app.routerModel !== false,
          answerContext: app.settings.answerFromDocuments ? 'condensed' : 'passages',
        },
        index: { manifestSha: app.manifestSha, embeddingModel: app.status?.manifest.model ?? null },
        signal,
      },
      {
        retrieval: app.runtime,
        model: engine ? { engine, ...(chat?.contextWindow ? { contextWindow: chat.contextWindow } : {}), modelId: app.llm.loadedId } : null,
        describeModel: (id) => describeGenerationModel(id, app.settings.modelBaseUrl, app.llmModels),
        errorContext: () => ({ online: globalThis.navigator?.onLine !== false, modelCached: true }),
      },
      (e) => turn.apply(e),
    );
    this.memory = outcome.memory;
    if (outcome.record) {
      try {
        await app.audit.add(outcome.record, { keepQuestionOutOfLog: app.settings.keepQuestionsOutOfLog });
        turn.apply({ type: 'audited' });
      } catch (e) {
        turn.apply({ type: 'audit-error', message: e instanceof Error ? e.message : String(e) });
      }
    }
  }
}

/** An earlier turn as the core reads it: its route, what was shown, and the model's answer when it answered from context. */
function priorOf({ state: p }: Turn): PriorTurn {
  const shown = p.answer?.answer ?? p.evidence?.text;
  const modelAnswer = p.answer && p.answer.status !== 'no-context' && p.answer.answer ? p.answer.answer : undefined;
  return {
    question: p.question,
    ...(p.route ? { path: p.route.path } : {}),
    ...(shown ? { shown } : {}),
    ...(modelAnswer ? { modelAnswer } : {}),
    ...(p.topic.length ? { topic: p.topic } : {}),
  };
}
