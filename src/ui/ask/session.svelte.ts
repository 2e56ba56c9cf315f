/**
 * A conversation in the Ask view: its turns and the pipeline of one turn
 * (route → calculator → retrieval → generative answer or evidence-only → grounding → audit).
 */
import { chatModel } from '../../core/answer/complete';
import { contextCharsFor, DEFAULT_ANSWER_CONFIG, type AnswerConfig } from '../../core/answer/config';
import { AnswerError, mapEngineError } from '../../core/answer/errors';
import type { EvidenceOnlyAnswer } from '../../core/answer/evidence-only';
import { answerQuestion, type AnswerResult, type ChatEngine } from '../../core/answer/generation';
import type { GroundingReport } from '../../core/answer/grounding';
import type { ConversationTurn } from '../../core/answer/messages';
import { hasNoContext } from '../../core/answer/no-context';
import { alternativesFrom, assistQuery, type QueryAssistance } from '../../core/answer/query-assist';
import { applyAttribution } from '../../core/answer/attribution';
import { condenseConsulted, type CondensedContext } from '../../core/answer/condense';
import { prefilterRoute, routeMessage, type ChatTurn, type RouteDecision } from '../../core/assess/router';
import { createLlmRouterClassifier } from '../../core/assess/router-classifier';
import type { CuratedModel } from '../../llm/models';
import type { AskResult, RuntimeStatus, SkyCiteRuntime } from '../../runtime/types';
import type { AnswerMode, AuditStore } from '../../storage/audit-store';
import type { Settings } from '../../storage/settings-store';
import { buildAuditRecord, noEvidenceDetail, noEvidenceReason } from './audit';
import { checkQuestion, QuestionRejectedError } from '../../core/text/question';
import { nonEnglishLanguage, type LanguageGuess } from '../../core/text/language';
import { extractOperation, mergeParams, type CalcParams, type CalcTarget } from '../../core/assess/extract';
import { runCalc, type CalcOutcome } from '../../core/assess/message-calc';

export type TurnPhase = 'queued' | 'routing' | 'retrieving' | 'composing' | 'condensing' | 'generating' | 'checking' | 'done' | 'stopped' | 'error';

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
  answer: AnswerResult | null = $state.raw(null);
  grounding: GroundingReport | null = $state.raw(null);
  groundingError: string | null = $state(null);
  noEvidence = $state(false);
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
  readonly runtime: Pick<SkyCiteRuntime, 'retrieve' | 'evidenceOnly' | 'checkGrounding'>;
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
}

export class AskSession {
  turns: Turn[] = $state([]);
  private lastParams: CalcParams | null = null;
  private lastTargets: CalcTarget[] = [];

  constructor(private readonly app: AskApp) {}

  get busy(): boolean {
    return this.turns.some((t) => t.busy);
  }

  clear(): void {
    if (this.busy) return;
    this.turns = [];
    this.lastParams = null;
    this.lastTargets = [];
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
          new Promise<never>((_, reject) => signal.addEventListener('abort', () => reject(Object.assign(new Error('Stopped.'), { name: 'AbortError' })), { once: true })),
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
    return live;
  }

  private async run(turn: Turn, previous: Turn[], signal: AbortSignal): Promise<void> {
    const app = this.app;
    const stopped = (): boolean => {
      if (!signal.aborted) return false;
      turn.phase = 'stopped';
      return true;
    };

    // 1. route
    const history: ChatTurn[] = [];
    for (const p of previous) {
      history.push({ role: 'user', content: p.question, ...(p.route ? { path: p.route.path } : {}) });
      const a = p.answer?.answer ?? p.evidence?.text;
      if (a) history.push({ role: 'assistant', content: a });
    }
    // the keyword pre-filter decides clear cases; with a model loaded, it classifies the ambiguous ones
    const chat = app.generative ? app.chatEngine() : null;
    const llmEngine = chat?.engine ?? null;
    const config = app.answerConfig ?? DEFAULT_ANSWER_CONFIG;
    const classifier = llmEngine && app.routerModel !== false ? createLlmRouterClassifier(chatModel(llmEngine), { signal }) : undefined;
    turn.route = await routeMessage(turn.question, history, classifier);
    const pre = prefilterRoute(turn.question, history);
    const prevQuestion = previous[previous.length - 1]?.question;
    turn.retrievalQuery = pre.cues.followUpOf && prevQuestion ? `${prevQuestion} ${turn.question}` : turn.question;

    // 2. calculator (database / both)
    if (turn.route.path !== 'rules') {
      const ex = extractOperation(turn.question);
      const followUp = pre.cues.followUpOf !== undefined;
      const params = followUp ? mergeParams(this.lastParams, ex.params) : ex.params;
      const targets = ex.targets.length ? ex.targets : followUp ? this.lastTargets : [];
      turn.calc = runCalc(targets, params, ex.readings, ex.notes);
      turn.calcTargets = turn.calc.items.map((i) => i.target);
      this.lastParams = params;
      this.lastTargets = turn.calcTargets;
    }
    if (stopped()) return;

    // 3. retrieval
    turn.phase = 'retrieving';
    const filters = turn.route.jurisdictions.length ? { jurisdictions: [...turn.route.jurisdictions] } : undefined;
    // model-assisted retrieval (a model is loaded): its rewrite, hypothetical answer and sub-questions are searched too
    let alternatives: { text: string; label: string }[] = [];
    if (llmEngine && app.assist !== false) {
      try {
        turn.assistance = await assistQuery(turn.retrievalQuery, llmEngine, config, signal);
        alternatives = alternativesFrom(turn.assistance);
      } catch (e) {
        turn.assistError = describeError(e).summary;
      }
      if (stopped()) return;
    }
    // with a model, the context fits its window next to the instructions and the answer (contextCharsFor)
    const contextChars = llmEngine ? contextCharsFor(chat?.contextWindow ?? 4096, config.generation) : null;
    const options = {
      ...(filters ? { filters } : {}),
      ...(alternatives.length ? { alternatives } : {}),
      ...(contextChars !== null ? { config: { contextChars } } : {}),
    };
    const ask = await app.runtime.retrieve(turn.retrievalQuery, Object.keys(options).length ? options : undefined);
    if (stopped()) return;
    turn.ask = ask;
    const engine = llmEngine;
    turn.mode = engine ? 'generative' : 'evidence-only';

    // 4. no evidence: the fixed reply, never a model call
    if (hasNoContext(ask.retrieval)) {
      turn.noEvidence = true;
      turn.noEvidenceWhy = noEvidenceReason(ask.retrieval);
      turn.noEvidenceDetail = noEvidenceDetail(ask.retrieval);
      turn.phase = 'done';
      await this.saveAudit(turn);
      return;
    }

    if (!engine) {
      // 5b. evidence-only
      turn.phase = 'composing';
      turn.evidence = await app.runtime.evidenceOnly(turn.question, ask);
      if (stopped()) return;
      turn.phase = 'done';
      await this.saveAudit(turn);
      return;
    }

    // 5a. generative; with "answer from the consulted documents", the context is the kept documents' refined
    // contexts, each condensed by the model and held to its passages by the source check (condense.ts)
    let answerRetrieval = ask.retrieval;
    const docs = ask.documents;
    if (this.app.settings.answerFromDocuments && docs && docs.chunks.length) {
      turn.phase = 'condensing';
      const byId = new Map(docs.chunks.map((c) => [c.id, c] as const));
      const budget = contextChars ?? contextCharsFor(4096, config.generation);
      const condensed = await condenseConsulted(turn.question, docs.consulted, (id) => byId.get(id), budget, { engine, check: (text, ids) => app.runtime.checkGrounding(text, ids), signal });
      if (stopped()) return;
      turn.condensed = condensed.documents;
      answerRetrieval = { ...ask.retrieval, evidence: docs.evidence, context: condensed.context };
      // the sources panel lists the passages the answer could cite: the kept documents' evidence
      turn.ask = { ...ask, retrieval: answerRetrieval, chunks: docs.chunks };
    }
    turn.phase = 'generating';
    const conversation: ConversationTurn[] = previous
      .filter((p) => p.answer && p.answer.status !== 'no-context' && p.answer.answer)
      .map((p) => ({ question: p.question, answer: p.answer!.answer }));
    const modelId = app.llm.loadedId ?? undefined;
    let result: AnswerResult;
    try {
      result = await answerQuestion({
        question: turn.question,
        history: conversation,
        retrieval: answerRetrieval,
        engine,
        ...(modelId ? { modelId } : {}),
        signal,
        config,
        onToken: (delta, channel) => {
          if (channel === 'answer') turn.stream += delta;
        },
        onRetry: ({ error }) => {
          turn.stream = '';
          turn.retryNotice = `${error.summary} Retrying once…`;
        },
        errorContext: () => ({ online: globalThis.navigator?.onLine !== false, modelCached: true }),
      });
    } catch (e) {
      throw mapEngineError(e);
    }
    turn.answer = result;
    turn.retryNotice = null;

    // 6. grounding (in the worker, with the embedder)
    if (result.answer && result.status !== 'no-context') {
      turn.phase = 'checking';
      try {
        const report = await app.runtime.checkGrounding(result.answer, result.contextIds);
        // supported sentences the model left uncited get the supporting passage, shown as added by the check
        if (config.attribution) {
          const attributed = applyAttribution(result, report);
          turn.answer = attributed.result;
          turn.grounding = attributed.report;
        } else turn.grounding = report;
      } catch (e) {
        turn.groundingError = e instanceof Error ? e.message : String(e);
      }
    }
    turn.phase = result.stopped ? 'stopped' : 'done';
    await this.saveAudit(turn);
  }

  private async saveAudit(turn: Turn): Promise<void> {
    if (!turn.ask || !turn.mode) return;
    try {
      await this.app.audit.add(
        buildAuditRecord({
          question: turn.question,
          retrievalQuery: turn.retrievalQuery,
          retrieval: turn.ask.retrieval,
          retrievalConfig: turn.ask.config,
          mode: turn.mode,
          answer: turn.answer,
          evidence: turn.evidence,
          grounding: turn.grounding,
          indexManifestSha: this.app.manifestSha,
          route: turn.route,
          calc: turn.calc,
          embeddingModel: this.app.status?.manifest.model ?? null,
          generationModelId: turn.mode === 'generative' ? this.app.llm.loadedId : null,
          modelBaseUrl: this.app.settings.modelBaseUrl,
          ...(this.app.llmModels ? { models: this.app.llmModels } : {}),
          assistance: turn.assistance,
          condensed: turn.condensed,
        }),
        { keepQuestionOutOfLog: this.app.settings.keepQuestionsOutOfLog },
      );
      turn.audited = true;
    } catch (e) {
      turn.auditError = e instanceof Error ? e.message : String(e);
    }
  }
}
