/**
 * A conversation in the Ask view: its turns as reactive state. The work of a turn is the core's
 * (src/core/ask/turn.ts, the same function the evaluations run); this class subscribes to its
 * events and saves the audit record it returns.
 */
import type { AnswerConfig } from '../../core/answer/config';
import { AnswerError } from '../../core/llm/errors';
import type { EvidenceOnlyAnswer } from '../../core/answer/evidence-only';
import type { AnswerResult } from '../../core/answer/generation';
import type { ChatEngine } from '../../core/llm/engine';
import type { GroundingReport } from '../../core/answer/grounding';
import type { QueryAssistance } from '../../core/answer/query-assist';
import type { CondensedContext } from '../../core/agents/condense';
import type { RouteDecision } from '../../core/route/router';
import type { CalcTarget } from '../../core/sora/extract';
import type { CalcOutcome } from '../../core/sora/message-calc';
import {
  EMPTY_CALC_MEMORY,
  runTurn,
  type CalcMemory,
  type PriorTurn,
  type ScopeCheck,
  type ScopeVerdict,
  type TurnEvent,
  type TurnPhase,
} from '../../core/ask/turn';
import type { AskResult, AskRetrieval } from '../../core/ask/types';
import type { AnswerMode } from '../../core/ask/audit-record';
import { describeGenerationModel, type CuratedModel } from '../../llm/models';
import type { RuntimeStatus } from '../../runtime/types';
import type { AuditStore } from '../../storage/audit-store';
import type { Settings } from '../../storage/settings-store';
import type { SessionStore } from '../../storage/session-store';
import { checkQuestion, QuestionRejectedError } from '../../core/text/question';
import { nonEnglishLanguage, type LanguageGuess } from '../../core/text/language';

export type { TurnPhase };

export interface TurnError {
  summary: string;
  action: string;
}

let nextTurnId = 1;

export class Turn {
  readonly id = nextTurnId++;
  readonly question: string;
  phase: TurnPhase = $state('routing');
  route: RouteDecision | null = $state.raw(null);
  calc: CalcOutcome | null = $state.raw(null);
  /** The calculator offered instead of imposed (a weak table route with no input read), with why. */
  calcOffer: { calc: CalcOutcome; why: string } | null = $state.raw(null);
  calcTargets: CalcTarget[] = [];
  mode: AnswerMode | null = $state(null);
  ask: AskResult | null = $state.raw(null);
  retrievalQuery = '';
  /** Model-assisted retrieval: the model's rewrite, hypothetical answer and sub-questions (searched besides the question), or null. */
  assistance: QueryAssistance | null = $state.raw(null);
  /** Why model assistance was not used although a model is loaded (it failed), or null. */
  assistError: string | null = $state(null);
  evidence: EvidenceOnlyAnswer | null = $state.raw(null);
  /**
   * With "answer from the consulted documents" on and a model loaded: each kept document's context as
   * the model condensed it (or the extractive fallback, with the reason), in the documents' order.
   */
  condensed: CondensedContext[] | null = $state.raw(null);
  /** The answer text streamed so far (answer channel only; reasoning is never shown). */
  stream = $state('');
  /** Structured answers: the claim being written (shown as progress, never as part of the answer). */
  draft = $state('');
  answer: AnswerResult | null = $state.raw(null);
  grounding: GroundingReport | null = $state.raw(null);
  groundingError: string | null = $state(null);
  noEvidence = $state(false);
  /** The rule asked about lives in an instrument these documents do not hold (said first). */
  scope: ScopeVerdict | null = $state.raw(null);
  noEvidenceWhy = $state('');
  /** The retrieval's own figures behind "no evidence" (technical detail). */
  noEvidenceDetail = $state('');
  /** Set when the question is not in English (the documents are). */
  readonly language: LanguageGuess | null;
  error: TurnError | null = $state.raw(null);
  retryNotice: string | null = $state(null);
  auditError: string | null = $state(null);
  audited = $state(false);
  controller: AbortController | null = null;

  constructor(question: string) {
    this.question = question;
    this.language = nonEnglishLanguage(question);
  }

  get busy(): boolean {
    return this.phase !== 'done' && this.phase !== 'stopped' && this.phase !== 'error';
  }
}

const describeError = (e: unknown): TurnError => {
  if (e instanceof AnswerError) return { summary: e.summary, action: e.action };
  const err = e as { name?: string; message?: string };
  if (err?.name === 'AbortError') return { summary: 'Stopped.', action: '' };
  return { summary: err?.message ?? String(e), action: 'Try again; if it persists, reload the app.' };
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
  /** What the documents do not hold (core/coverage); absent: no scope notice. */
  readonly scope?: ScopeCheck;
  /** Where the conversation is kept across a reload (absent: not kept). */
  readonly sessionStore?: Pick<SessionStore, 'load' | 'save' | 'clear'>;
}

/** A finished turn as stored across a reload: its data, not its controller. */
export interface StoredTurn {
  question: string;
  phase: 'done' | 'stopped' | 'error';
  route: Turn['route'];
  calc: Turn['calc'];
  calcOffer?: Turn['calcOffer'];
  calcTargets: CalcTarget[];
  mode: Turn['mode'];
  ask: Turn['ask'];
  retrievalQuery: string;
  assistance: Turn['assistance'];
  assistError: string | null;
  evidence: Turn['evidence'];
  condensed: Turn['condensed'];
  answer: Turn['answer'];
  grounding: Turn['grounding'];
  groundingError: string | null;
  noEvidence: boolean;
  scope?: ScopeVerdict | null;
  noEvidenceWhy: string;
  noEvidenceDetail: string;
  error: TurnError | null;
  audited: boolean;
}

export interface StoredConversation {
  turns: StoredTurn[];
  memory: CalcMemory;
}

const isStoredConversation = (v: unknown): v is StoredConversation => {
  const c = v as Partial<StoredConversation> | null;
  return (
    !!c &&
    Array.isArray(c.turns) &&
    !!c.memory &&
    Array.isArray(c.memory.targets) &&
    c.turns.every(
      (t) =>
        !!t &&
        typeof t.question === 'string' &&
        ['done', 'stopped', 'error'].includes(t.phase) &&
        typeof t.noEvidence === 'boolean' &&
        (t.ask === null || (typeof t.ask === 'object' && Array.isArray(t.ask.chunks) && Array.isArray(t.ask.retrieval?.evidence))) &&
        (t.answer === null || typeof t.answer?.answer === 'string') &&
        (t.evidence === null || Array.isArray(t.evidence?.passages)),
    )
  );
};

/** Plain data of a finished turn (structured-clone safe: the reactive proxies are read field by field). */
function storedTurn(t: Turn): StoredTurn {
  const plain = <T>(x: T): T => (x === null || x === undefined ? x : (JSON.parse(JSON.stringify(x)) as T));
  return {
    question: t.question,
    phase: t.phase === 'error' ? 'error' : t.phase === 'stopped' ? 'stopped' : 'done',
    route: plain(t.route),
    calc: plain(t.calc),
    calcOffer: plain(t.calcOffer),
    calcTargets: [...t.calcTargets],
    mode: t.mode,
    ask: plain(t.ask),
    retrievalQuery: t.retrievalQuery,
    assistance: plain(t.assistance),
    assistError: t.assistError,
    evidence: plain(t.evidence),
    condensed: plain(t.condensed),
    answer: plain(t.answer),
    grounding: plain(t.grounding),
    groundingError: t.groundingError,
    noEvidence: t.noEvidence,
    scope: plain(t.scope),
    noEvidenceWhy: t.noEvidenceWhy,
    noEvidenceDetail: t.noEvidenceDetail,
    error: plain(t.error),
    audited: t.audited,
  };
}

function restoredTurn(s: StoredTurn): Turn {
  const t = new Turn(s.question);
  t.phase = s.phase;
  t.route = s.route;
  t.calc = s.calc;
  t.calcOffer = s.calcOffer ?? null;
  t.calcTargets = s.calcTargets;
  t.mode = s.mode;
  t.ask = s.ask;
  t.retrievalQuery = s.retrievalQuery;
  t.assistance = s.assistance;
  t.assistError = s.assistError;
  t.evidence = s.evidence;
  t.condensed = s.condensed;
  t.answer = s.answer;
  t.stream = s.answer?.answer ?? '';
  t.grounding = s.grounding;
  t.groundingError = s.groundingError;
  t.noEvidence = s.noEvidence;
  t.scope = s.scope ?? null;
  t.noEvidenceWhy = s.noEvidenceWhy;
  t.noEvidenceDetail = s.noEvidenceDetail;
  t.error = s.error;
  t.audited = s.audited;
  return t;
}

export class AskSession {
  turns: Turn[] = $state([]);
  /** Why the last conversation was not restored or cannot be kept (storage), in words; null when all is well. */
  storageNotice: string | null = $state(null);
  private memory: CalcMemory = EMPTY_CALC_MEMORY;
  private restored = false;

  constructor(private readonly app: AskApp) {}

  /** The conversation kept before the reload, when this session has none yet (once). */
  async restore(): Promise<void> {
    if (this.restored || !this.app.sessionStore) return;
    this.restored = true;
    const { value, problem } = await this.app.sessionStore.load('conversation', isStoredConversation);
    this.storageNotice = problem;
    if (!value || this.turns.length) return;
    this.turns = value.turns.map(restoredTurn);
    this.memory = value.memory;
  }

  /** Keep the finished turns for the next visit; a storage failure is said, never thrown. */
  private async persist(): Promise<void> {
    if (!this.app.sessionStore || this.busy) return;
    try {
      await this.app.sessionStore.save<StoredConversation>('conversation', { turns: this.turns.map(storedTurn), memory: this.memory });
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
   * (the index still loading) the turn is shown as queued and runs when `until` resolves.
   */
  async ask(question: string, options: { until?: Promise<void> } = {}): Promise<Turn> {
    const checked = checkQuestion(question);
    if (!checked.ok) throw new QuestionRejectedError(checked.message);
    const turn = new Turn(checked.text);
    turn.controller = new AbortController();
    const previous = [...this.turns];
    if (options.until) turn.phase = 'queued';
    this.turns.push(turn);
    const live = this.turns[this.turns.length - 1]!; // the reactive proxy of the turn
    try {
      if (options.until) {
        const signal = turn.controller.signal;
        await Promise.race([
          options.until,
          new Promise<never>((_, reject) =>
            signal.addEventListener('abort', () => reject(Object.assign(new Error('Stopped.'), { name: 'AbortError' })), { once: true }),
          ),
        ]);
        live.phase = 'routing';
      }
      await this.run(live, previous, turn.controller.signal);
    } catch (e) {
      if (turn.controller.signal.aborted) live.phase = 'stopped';
      else {
        live.error = describeError(e);
        live.phase = 'error';
      }
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
        question: turn.question,
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
        ...(app.scope ? { scope: app.scope } : {}),
        model: engine ? { engine, ...(chat?.contextWindow ? { contextWindow: chat.contextWindow } : {}), modelId: app.llm.loadedId } : null,
        describeModel: (id) => describeGenerationModel(id, app.settings.modelBaseUrl, app.llmModels),
        errorContext: () => ({ online: globalThis.navigator?.onLine !== false, modelCached: true }),
      },
      (e) => applyEvent(turn, e),
    );
    this.memory = outcome.memory;
    turn.calcTargets = outcome.calc?.items.map((i) => i.target) ?? [];
    if (outcome.record) {
      try {
        await app.audit.add(outcome.record, { keepQuestionOutOfLog: app.settings.keepQuestionsOutOfLog });
        turn.audited = true;
      } catch (e) {
        turn.auditError = e instanceof Error ? e.message : String(e);
      }
    }
  }
}

/** An earlier turn as the core reads it: its route, what was shown, and the model's answer when it answered from context. */
function priorOf(p: Turn): PriorTurn {
  const shown = p.answer?.answer ?? p.evidence?.text;
  const modelAnswer = p.answer && p.answer.status !== 'no-context' && p.answer.answer ? p.answer.answer : undefined;
  return { question: p.question, ...(p.route ? { path: p.route.path } : {}), ...(shown ? { shown } : {}), ...(modelAnswer ? { modelAnswer } : {}) };
}

/** The turn's reactive state follows the core's events. */
function applyEvent(turn: Turn, e: TurnEvent): void {
  switch (e.type) {
    case 'phase':
      turn.phase = e.phase;
      break;
    case 'route':
      turn.route = e.route;
      turn.retrievalQuery = e.retrievalQuery;
      break;
    case 'calc':
      turn.calc = e.calc;
      break;
    case 'calc-offer':
      turn.calcOffer = { calc: e.calc, why: e.why };
      break;
    case 'assistance':
      turn.assistance = e.assistance;
      break;
    case 'assist-error':
      turn.assistError = e.message;
      break;
    case 'retrieved':
      turn.ask = e.ask;
      turn.mode = e.mode;
      break;
    case 'scope':
      turn.scope = e.scope;
      break;
    case 'no-evidence':
      turn.noEvidence = true;
      turn.noEvidenceWhy = e.why;
      turn.noEvidenceDetail = e.detail;
      break;
    case 'evidence':
      turn.evidence = e.evidence;
      break;
    case 'condensed':
      turn.condensed = e.documents;
      turn.ask = e.ask;
      break;
    case 'token':
      turn.stream += e.delta;
      break;
    case 'draft':
      turn.draft = e.text;
      break;
    case 'retry':
      turn.stream = '';
      turn.retryNotice = e.notice;
      break;
    case 'answer':
      turn.answer = e.answer;
      turn.draft = '';
      turn.retryNotice = null;
      break;
    case 'grounding':
      turn.answer = e.answer;
      turn.grounding = e.report;
      break;
    case 'grounding-error':
      turn.groundingError = e.message;
      break;
  }
}
