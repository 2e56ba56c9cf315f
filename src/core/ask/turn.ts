/**
 * THE Ask turn: route → calculator → retrieval → coverage (one door) → evidence-only composition or
 * generated answer → check and attribution → audit record, as a stream of typed events. The app's Ask
 * view, `npm run eval`'s retrieval (through the same retrieval port) and `npm run eval:answers` run
 * this one function; what differs between them is only the ports they inject (runtime worker or
 * in-process index, WebLLM or llama.cpp) and the settings.
 *
 * Its state is written in one place: every event is folded by `reduceTurn` (turn-state.ts), and the
 * outcome is that state with the audit record and the calculator's memory. Each step below reads the
 * state and emits events; none writes a field itself.
 *
 * Pure orchestration: no DOM, no storage. The caller saves the audit record it returns.
 */
import { attributeResult } from '../answer/attribution.js';
import { leadClaims } from '../answer/quotes.js';
import { chatModel } from '../llm/complete.js';
import { condenseConsulted } from '../agents/condense.js';
import { contextCharsFor, DEFAULT_ANSWER_CONFIG, type AnswerConfig } from '../answer/config.js';
import { AnswerError, mapEngineError, type EngineErrorContext } from '../llm/errors.js';
import { answerQuestion, type AnswerResult } from '../answer/generation.js';
import { type ChatEngine } from '../llm/engine.js';
import type { ConversationTurn } from '../answer/messages.js';
import { hasNoContext } from '../answer/no-context.js';
import { alternativesFrom, assistQuery } from '../answer/query-assist.js';
import { mergeParams, type CalcParams, type CalcTarget } from '../sora/extract.js';
import { runCalc, type CalcOutcome } from '../sora/message-calc.js';
import { createLlmRouterClassifier } from '../route/router-classifier.js';
import { DECIDED_PROBABILITY, routeTurn, type ChatTurn, type PrefilterResult, type RouteDecision, type RoutePath } from '../route/router.js';
import type { IndexManifest } from '../index/manifest.js';
import type { RetrievalConfigOverrides } from '../retrieval/config.js';
import type { Filters } from '../retrieval/types.js';
import { conversationTopic, standaloneFollowUp, topicWords } from './follow-up.js';
import { buildAuditRecord, noEvidenceDetail, noEvidenceReason, type ModelDescriber } from './audit.js';
import type { AuditRecordInput } from './audit-record.js';
import type { AskRetrieval, RetrieveRequest, ScopeVerdict } from './types.js';
import { initialTurnState, reduceTurn, type TurnEvent, type TurnPhase, type TurnState } from './turn-state.js';

export type { ScopeVerdict, TurnEvent, TurnPhase };

/** The loaded generation model as a turn uses it (absent: evidence-only). */
export interface TurnModel {
  readonly engine: ChatEngine;
  /** Its context window in tokens (the context budget is sized to it); default 4096. */
  readonly contextWindow?: number;
  /** Its id, for the answer's audit record when the stream does not report one. */
  readonly modelId?: string | null;
}

/** What a turn runs on; the app injects the runtime worker and WebLLM, the evaluations an in-process index and llama.cpp. */
export interface TurnPorts {
  /** Retrieval, the coverage decision, the evidence-only composition and the check (core/ask/retrieve.ts). */
  readonly retrieval: AskRetrieval;
  readonly model: TurnModel | null;
  /** The generation model's URLs for the audit record (src/llm knows them); default: the id only. */
  readonly describeModel?: ModelDescriber;
  /** Connectivity facts for mapping a model failure to a message (default: online, model cached). */
  readonly errorContext?: () => EngineErrorContext;
}

/**
 * Which context the answer is written from:
 * - 'passages' — the flat retrieval's context (the app's default);
 * - 'condensed' — the kept documents' contexts, each condensed by the model and held to its passages
 *   (the app's "Answer from the consulted documents");
 * - 'documents' — the kept documents' extractive refined contexts (an evaluation variant).
 */
export type AnswerContextSource = 'passages' | 'condensed' | 'documents';

export interface TurnSettings {
  /** Default DEFAULT_ANSWER_CONFIG. */
  readonly answerConfig?: AnswerConfig;
  /** Model-assisted retrieval when a model is loaded (default true). */
  readonly assist?: boolean;
  /** The model classifies messages the keyword pre-filter cannot decide (default true). */
  readonly routerModel?: boolean;
  /** Default 'passages'. */
  readonly answerContext?: AnswerContextSource;
  /** Filters added to the route's (an evaluation's corpus). */
  readonly filters?: Filters;
  /** Retrieval configuration overrides (ablations). */
  readonly retrievalConfig?: RetrievalConfigOverrides;
  /** How a follow-up is searched without a model (default 'standalone'). */
  readonly followUps?: FollowUpRule;
  /** Ask the coverage door whether the documents hold the rule (default true; off: the gate alone, an ablation). */
  readonly coverage?: boolean;
}

/** An earlier turn of the conversation, as the next turn reads it. */
export interface PriorTurn {
  readonly question: string;
  readonly path?: RoutePath;
  /** What the user was shown: the model's answer or the evidence-only text. */
  readonly shown?: string;
  /** The model's answer when it answered from context (the conversation history the model sees). */
  readonly modelAnswer?: string;
  /** The topic the conversation carried on from it (TurnState.topic); absent: its question's topic words. */
  readonly topic?: readonly string[];
}

/** What the calculator remembers across turns (a follow-up changes some inputs of the last operation). */
export interface CalcMemory {
  readonly params: CalcParams | null;
  readonly targets: readonly CalcTarget[];
}

export const EMPTY_CALC_MEMORY: CalcMemory = { params: null, targets: [] };

export interface TurnInput {
  readonly question: string;
  readonly previous?: readonly PriorTurn[];
  readonly memory?: CalcMemory;
  readonly settings?: TurnSettings;
  /** For the audit record: the index manifest's SHA-256 and its embedding model. */
  readonly index: { readonly manifestSha: string; readonly embeddingModel?: IndexManifest['model'] | null };
  /** Abort = the stop button. */
  readonly signal?: AbortSignal;
}

/** The turn's final state, with the audit record to store (null when it stopped before its evidence was known) and the calculator's memory. */
export interface TurnOutcome extends TurnState {
  readonly record: AuditRecordInput | null;
  readonly memory: CalcMemory;
}

const message = (e: unknown): string => (e instanceof Error ? e.message : String(e));

/**
 * The query retrieval searches, and the topic the conversation carries on. A follow-up may lack its
 * topic: 'standalone' (default) searches its own words, with the topic the conversation carries
 * when it names none (follow-up.ts) — the previous turn's topic, so that a third turn still has the
 * first one's; 'appended' searches the previous question and the new one together (the rule before,
 * kept for measurement: `npm run eval:follow-ups`).
 */
export function followUpSearch(
  question: string,
  prefilter: PrefilterResult,
  previous: readonly PriorTurn[],
  rule: FollowUpRule = 'standalone',
): { query: string; topic: string[] } {
  const prev = previous[previous.length - 1];
  if (!prefilter.cues.followUpOf || !prev) return { query: question, topic: topicWords(question) };
  const carriedIn = prev.topic ?? topicWords(prev.question);
  if (rule === 'appended') return { query: `${prev.question} ${question}`, topic: conversationTopic(question, null, carriedIn) };
  const f = standaloneFollowUp(question, { topic: carriedIn }, rule === 'standalone' ? 'missing' : 'always');
  return { query: f.query, topic: conversationTopic(question, f, carriedIn) };
}

/** {@link followUpSearch}'s query. */
export function retrievalQueryOf(question: string, prefilter: PrefilterResult, previous: readonly PriorTurn[], rule: FollowUpRule = 'standalone'): string {
  return followUpSearch(question, prefilter, previous, rule).query;
}

/** 'standalone': the topic only when the message names none; 'topic-always': always add it; 'appended': the rule before. */
export type FollowUpRule = 'standalone' | 'topic-always' | 'appended';

/** The router's view of the conversation: each earlier question with its path, and what was answered. */
export function routerHistory(previous: readonly PriorTurn[]): ChatTurn[] {
  const history: ChatTurn[] = [];
  for (const p of previous) {
    history.push({ role: 'user', content: p.question, ...(p.path ? { path: p.path } : {}) });
    if (p.shown) history.push({ role: 'assistant', content: p.shown });
  }
  return history;
}

/** Run one Ask turn. Emits events as it goes; resolves with its final state; throws on failure (mapped model errors). */
export async function runTurn(input: TurnInput, ports: TurnPorts, emit: (e: TurnEvent) => void = () => {}): Promise<TurnOutcome> {
  const t = new TurnRun(input, ports, emit);
  return t.finish(await t.run());
}

/** One turn's context: its inputs and ports, the state its events fold into, and the steps. */
class TurnRun {
  state: TurnState;
  memory: CalcMemory;
  readonly settings: TurnSettings;
  config: AnswerConfig;
  readonly engine: ChatEngine | null;
  readonly previous: readonly PriorTurn[];
  private alternatives: { text: string; label: string }[] = [];
  /** Stopped before its answer was complete (no audit record, as nothing was shown in full). */
  private early = false;

  constructor(
    readonly input: TurnInput,
    readonly ports: TurnPorts,
    private readonly listener: (e: TurnEvent) => void,
  ) {
    this.state = initialTurnState(input.question);
    this.memory = input.memory ?? EMPTY_CALC_MEMORY;
    this.settings = input.settings ?? {};
    this.config = this.settings.answerConfig ?? DEFAULT_ANSWER_CONFIG;
    this.engine = ports.model?.engine ?? null;
    this.previous = input.previous ?? [];
  }

  /** Fold the event into the state, then pass it on. */
  emit(e: TurnEvent): void {
    this.state = reduceTurn(this.state, e);
    this.listener(e);
  }

  phase(p: TurnPhase): void {
    this.emit({ type: 'phase', phase: p });
  }

  /** True (and the phase 'stopped') when the user stopped the turn. */
  stopped(): boolean {
    if (!this.input.signal?.aborted) return false;
    this.early = true;
    this.phase('stopped');
    return true;
  }

  get followUp(): boolean {
    return this.state.prefilter?.cues.followUpOf !== undefined;
  }

  /** The steps in order; returns the final phase ('stopped' ends early). */
  async run(): Promise<'done' | 'stopped'> {
    await this.route();
    this.calculate();
    if (this.stopped()) return 'stopped';
    this.phase('retrieving');
    if (this.engine && this.settings.assist !== false) {
      await this.assist();
      if (this.stopped()) return 'stopped';
    }
    const contextChars = this.engine ? contextCharsFor(this.ports.model?.contextWindow ?? 4096, this.config.generation) : null;
    await this.retrieve(contextChars);
    if (this.stopped()) return 'stopped';
    if (await this.outOfScope()) return this.composeEvidence(true);
    if (this.noEvidence()) return 'done';
    if (!this.engine) return this.composeEvidence(false);
    // a quoted answer: the quotations first (the evidence-only answer's), then the model's lead over them;
    // without the unit ranker's data (no quotations) the model answers in the structured form instead
    if (this.config.answerForm === 'quoted') {
      if ((await this.composeEvidence(false)) === 'stopped') return 'stopped';
      if (!this.state.evidence?.quoted) this.config = { ...this.config, answerForm: 'structured' };
    }
    const result = await this.generate(this.engine, contextChars);
    if (result === 'stopped') return 'stopped';
    await this.check(result);
    return result.stopped ? 'stopped' : 'done';
  }

  /** 1. route, once: the keyword pre-filter decides clear cases; with a model loaded, it classifies the ambiguous ones. */
  async route(): Promise<void> {
    this.phase('routing');
    const { question, signal } = this.input;
    const classifier =
      this.engine && this.settings.routerModel !== false ? createLlmRouterClassifier(chatModel(this.engine), signal ? { signal } : {}) : undefined;
    const routed = await routeTurn(question, routerHistory(this.previous), classifier);
    const search = followUpSearch(question, routed.prefilter, this.previous, this.settings.followUps);
    this.emit({ type: 'route', route: routed.decision, retrievalQuery: search.query, prefilter: routed.prefilter, topic: search.topic });
  }

  /** 2. calculator (database / both); a follow-up changes the last operation's inputs. */
  calculate(): void {
    const route = this.state.route!;
    const prefilter = this.state.prefilter!;
    if (route.path === 'rules') return;
    const ex = prefilter.operation;
    const memory = this.input.memory ?? EMPTY_CALC_MEMORY;
    const params = this.followUp ? mergeParams(memory.params, ex.params) : ex.params;
    const targets = ex.targets.length ? ex.targets : this.followUp ? [...memory.targets] : [];
    const calc = runCalc(targets, params, ex.readings, ex.notes);
    // a SORA value asked for: named in the question, or a follow-up changing the inputs of one computed before
    const asked = ex.targets.length > 0 || (this.followUp && memory.targets.length > 0);
    const nothingComputed = calc.items.every((i) => i.status === 'missing');
    if (weakTableRoute(route, calc) || (!asked && nothingComputed)) {
      // unsure it is a table question, or it asks for no SORA value, and nothing to compute with: the text answers, the calculator is offered
      const why = asked
        ? 'The question names no operation parameter the calculator can use.'
        : 'The question does not ask for a SORA value (iGRC, final GRC, SAIL, TMPR, OSO robustness or containment), so the calculator was not used.';
      const note = [
        ...(route.confidence < DECIDED_PROBABILITY ? [`low confidence ${Math.round(100 * route.confidence)} %`] : []),
        asked ? 'no calculator input read' : 'no SORA value asked for, nothing computable',
      ].join(', ');
      const fallback: RouteDecision = { ...route, path: 'rules', reasoning: `${route.reasoning}; fell back to the text search: ${note}` };
      this.emit({ type: 'route', route: fallback, retrievalQuery: this.state.retrievalQuery });
      this.emit({ type: 'calc-offer', calc, why });
      return;
    }
    this.memory = { params, targets: calc.items.map((i) => i.target) };
    this.emit({ type: 'calc', calc, asked });
  }

  /** 3a. with a model, its rewrite, hypothetical answer and sub-questions are searched too; a follow-up is rewritten as a standalone question. */
  async assist(): Promise<void> {
    const { question, signal } = this.input;
    try {
      const followUp = this.followUp && this.previous.length > 0;
      const earlier = followUp ? this.previous.slice(-2).map((p) => p.question) : [];
      const assistance = await assistQuery(followUp ? question : this.state.retrievalQuery, this.engine!, this.config, signal, earlier);
      let alternatives = alternativesFrom(assistance);
      if (followUp && assistance.parsed && assistance.rewritten) {
        // the rule's standalone query stays an alternative; the model's standalone question is searched first
        alternatives = [{ text: this.state.retrievalQuery, label: 'follow-up rule' }, ...alternatives.filter((a) => a.label !== 'model rewrite')];
        this.emit({ type: 'route', route: this.state.route!, retrievalQuery: assistance.rewritten });
      }
      this.alternatives = alternatives;
      this.emit({ type: 'assistance', assistance });
    } catch (e) {
      // the search goes on with the question alone; the view says why the model did not help
      this.emit({ type: 'assist-error', message: e instanceof AnswerError ? e.summary : message(e) });
    }
  }

  /** 3b. retrieval; with a model, the context fits its window next to the instructions and the answer. */
  async retrieve(contextChars: number | null): Promise<void> {
    const route = this.state.route!;
    const filters = mergeFilters(route.jurisdictions.length ? { jurisdictions: [...route.jurisdictions] } : undefined, this.settings.filters);
    const overrides: RetrievalConfigOverrides | undefined =
      contextChars !== null || this.settings.retrievalConfig
        ? { ...(this.settings.retrievalConfig ?? {}), ...(contextChars !== null ? { contextChars } : {}) }
        : undefined;
    const request: RetrieveRequest = {
      ...(filters ? { filters } : {}),
      ...(this.alternatives.length ? { alternatives: this.alternatives } : {}),
      ...(overrides ? { config: overrides } : {}),
    };
    const ask = await this.ports.retrieval.retrieve(this.state.retrievalQuery, Object.keys(request).length ? request : undefined);
    if (this.input.signal?.aborted) return;
    this.emit({ type: 'retrieved', ask, mode: this.engine ? 'generative' : 'evidence-only' });
  }

  /** 4a. the one door of "not in these documents": asked once per question, of what was searched. */
  async outOfScope(): Promise<boolean> {
    if (this.settings.coverage === false) return false;
    const scope = await this.ports.retrieval.coverage(this.state.retrievalQuery, this.state.ask!);
    if (!scope) return false;
    this.emit({ type: 'scope', scope });
    return true;
  }

  /** 4b. no evidence: the fixed reply, never a model call. */
  noEvidence(): boolean {
    const retrieval = this.state.ask!.retrieval;
    if (!hasNoContext(retrieval)) return false;
    this.emit({ type: 'no-evidence', why: noEvidenceReason(retrieval), detail: noEvidenceDetail(retrieval) });
    return true;
  }

  /** 5b. evidence-only, and the closest passages under a scope notice; never a model call. */
  async composeEvidence(outOfScope: boolean): Promise<'done' | 'stopped'> {
    const ask = this.state.ask!;
    if (outOfScope && hasNoContext(ask.retrieval)) return 'done';
    this.phase('composing');
    // sentences are matched against what was searched: a follow-up's standalone query, not "and at night?" alone
    const evidence = await this.ports.retrieval.evidenceOnly(this.state.retrievalQuery, ask);
    if (this.stopped()) return 'stopped';
    this.emit({ type: 'evidence', evidence });
    return 'done';
  }

  /** 5a. generative, from the flat context or the kept documents' contexts. */
  async generate(engine: ChatEngine, contextChars: number | null): Promise<AnswerResult | 'stopped'> {
    const { question, signal } = this.input;
    const ask = this.state.ask!;
    let answerRetrieval = ask.retrieval;
    const docs = ask.documents;
    const source = this.settings.answerContext ?? 'passages';
    const budget = contextChars ?? contextCharsFor(4096, this.config.generation);
    if (source !== 'passages' && docs && docs.chunks.length) {
      let context = docs.context;
      let condensed = null;
      if (source === 'condensed') {
        this.phase('condensing');
        const byId = new Map(docs.chunks.map((c) => [c.id, c] as const));
        const c = await condenseConsulted(question, docs.consulted, (id) => byId.get(id), budget, {
          engine,
          check: (text, ids) => this.ports.retrieval.checkGrounding(text, ids),
          ...(signal ? { signal } : {}),
        });
        if (this.stopped()) return 'stopped';
        condensed = c.documents;
        context = c.context;
      }
      answerRetrieval = { ...ask.retrieval, evidence: docs.evidence, context: context.slice(0, budget) };
      // the sources panel lists the passages the answer could cite: the kept documents' evidence
      const seen = { ...ask, retrieval: answerRetrieval, chunks: docs.chunks };
      if (condensed) this.emit({ type: 'condensed', documents: condensed, ask: seen });
      else this.emit({ type: 'retrieved', ask: seen, mode: 'generative' });
    }
    this.phase('generating');
    const conversation: ConversationTurn[] = this.previous.filter((p) => p.modelAnswer).map((p) => ({ question: p.question, answer: p.modelAnswer! }));
    const modelId = this.ports.model?.modelId ?? undefined;
    let result: AnswerResult;
    try {
      result = await answerQuestion({
        question,
        history: conversation,
        retrieval: answerRetrieval,
        engine,
        ...(modelId ? { modelId } : {}),
        ...(signal ? { signal } : {}),
        config: this.config,
        onToken: (delta, channel) => {
          if (channel === 'answer') this.emit({ type: 'token', delta });
          else if (channel === 'draft') this.emit({ type: 'draft', text: delta });
        },
        onRetry: ({ error }) => this.emit({ type: 'retry', notice: `${error.summary} Retrying once…` }),
        errorContext: this.ports.errorContext ?? (() => ({ online: true, modelCached: true })),
        ...(this.state.evidence?.quoted ? { quotes: this.state.evidence.quoted } : {}),
      });
    } catch (e) {
      throw mapEngineError(e);
    }
    this.emit({ type: 'answer', answer: result });
    return result;
  }

  /** 6. the check, claim by claim or sentence by sentence, then the one attribution (attribution.ts). */
  async check(result: AnswerResult): Promise<void> {
    if (!result.answer || result.status === 'no-context') return;
    this.phase('checking');
    try {
      // quoted answers: the lead's sentences against the quoted units; structured: claim by claim; free: sentence by sentence
      const q = result.quoted;
      const report = q
        ? await this.ports.retrieval.checkGrounding(leadClaims(q.lead, q.unitIds), q.unitIds)
        : await this.ports.retrieval.checkGrounding(result.structured ? result.structured.claims : result.answer, result.contextIds);
      const a = attributeResult(result, report, this.config.attribution);
      const answer: AnswerResult = {
        ...result,
        answer: a.answer,
        citations: a.citations,
        display: a.display,
        attributed: a.attributed,
        grounding: a.report,
        attributionProblem: a.problem,
        ...(result.structured && a.claims ? { structured: { ...result.structured, claims: a.claims, pruned: a.pruned } } : {}),
        ...(q && a.lead ? { quoted: { ...q, lead: a.lead.text, leadDropped: q.leadDropped ?? a.lead.dropped } } : {}),
      };
      this.emit({ type: 'grounding', report: a.report, answer });
    } catch (e) {
      this.emit({ type: 'grounding-error', message: message(e) });
    }
  }

  /** The outcome: the final state, its audit record and the calculator's memory. */
  finish(phase: 'done' | 'stopped'): TurnOutcome {
    if (this.state.phase !== phase) this.phase(phase);
    return { ...this.state, record: this.early ? null : auditOf(this.state, this.input, this.ports), memory: this.memory };
  }
}

/**
 * A table route the turn should not impose: below the router's own decision probability
 * (DECIDED_PROBABILITY) and without one computed or computable value (every item lacks inputs).
 */
export function weakTableRoute(route: Pick<RouteDecision, 'path' | 'confidence'>, calc: CalcOutcome): boolean {
  return route.path !== 'rules' && route.confidence < DECIDED_PROBABILITY && calc.items.every((i) => i.status === 'missing');
}

function mergeFilters(a: Filters | undefined, b: Filters | undefined): Filters | undefined {
  if (!a) return b;
  if (!b) return a;
  return {
    ...a,
    ...b,
    ...(a.jurisdictions || b.jurisdictions ? { jurisdictions: [...new Set([...(a.jurisdictions ?? []), ...(b.jurisdictions ?? [])])] } : {}),
  };
}

function auditOf(out: TurnState, input: TurnInput, ports: TurnPorts): AuditRecordInput | null {
  if (!out.ask || !out.mode) return null;
  return buildAuditRecord({
    question: input.question,
    retrievalQuery: out.retrievalQuery,
    retrieval: out.ask.retrieval,
    retrievalConfig: out.ask.config,
    mode: out.mode,
    answer: out.answer,
    evidence: out.evidence,
    grounding: out.grounding,
    indexManifestSha: input.index.manifestSha,
    route: out.route,
    calc: out.calc,
    embeddingModel: input.index.embeddingModel ?? null,
    generationModelId: out.mode === 'generative' ? (ports.model?.modelId ?? null) : null,
    ...(ports.describeModel ? { describeModel: ports.describeModel } : {}),
    assistance: out.assistance,
    condensed: out.condensed,
    scope: out.scope,
  });
}
