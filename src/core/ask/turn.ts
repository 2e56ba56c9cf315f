/**
 * THE Ask turn: route → calculator → retrieval → evidence-only composition or generated answer →
 * grounding → audit record, as a stream of typed events. The app's Ask view, `npm run eval`'s
 * retrieval (through the same retrieval port) and `npm run eval:answers` run this one function;
 * what differs between them is only the ports they inject (runtime worker or in-process index,
 * WebLLM or llama.cpp) and the settings.
 *
 * Pure orchestration: no DOM, no storage. The caller saves the audit record it returns.
 */
import { applyAttribution } from '../answer/attribution.js';
import { chatModel } from '../llm/complete.js';
import { condenseConsulted, type CondensedContext } from '../agents/condense.js';
import { contextCharsFor, DEFAULT_ANSWER_CONFIG, type AnswerConfig } from '../answer/config.js';
import { AnswerError, mapEngineError, type EngineErrorContext } from '../llm/errors.js';
import type { EvidenceOnlyAnswer } from '../answer/evidence-only.js';
import { answerQuestion, applyClaimAttribution, type AnswerResult } from '../answer/generation.js';
import { type ChatEngine } from '../llm/engine.js';
import type { GroundingReport } from '../answer/grounding.js';
import type { ConversationTurn } from '../answer/messages.js';
import { hasNoContext } from '../answer/no-context.js';
import { alternativesFrom, assistQuery, type QueryAssistance } from '../answer/query-assist.js';
import { mergeParams, type CalcParams, type CalcTarget } from '../sora/extract.js';
import { runCalc, type CalcOutcome } from '../sora/message-calc.js';
import { createLlmRouterClassifier } from '../route/router-classifier.js';
import { DECIDED_PROBABILITY, routeTurn, type ChatTurn, type PrefilterResult, type RouteDecision, type RoutePath } from '../route/router.js';
import type { IndexManifest } from '../index/manifest.js';
import type { RetrievalConfigOverrides } from '../retrieval/config.js';
import type { Filters, RetrievalResult } from '../retrieval/types.js';
import { standaloneFollowUp } from './follow-up.js';
import { buildAuditRecord, noEvidenceDetail, noEvidenceReason, type ModelDescriber } from './audit.js';
import type { AnswerMode, AuditRecordInput } from './audit-record.js';
import type { AskResult, AskRetrieval, RetrieveRequest, ScopeVerdict } from './types.js';

export type { ScopeVerdict };

export type TurnPhase = 'queued' | 'routing' | 'retrieving' | 'composing' | 'condensing' | 'generating' | 'checking' | 'done' | 'stopped' | 'error';

/** The loaded generation model as a turn uses it (absent: evidence-only). */
export interface TurnModel {
  readonly engine: ChatEngine;
  /** Its context window in tokens (the context budget is sized to it); default 4096. */
  readonly contextWindow?: number;
  /** Its id, for the answer's audit record when the stream does not report one. */
  readonly modelId?: string | null;
}

/** Decides from the question and its retrieval whether the answer is outside the documents (core/coverage); null: it may be here. */
export type ScopeCheck = (question: string, retrieval: RetrievalResult) => ScopeVerdict | null;

/** What a turn runs on; the app injects the runtime worker and WebLLM, the evaluations an in-process index and llama.cpp. */
export interface TurnPorts {
  /** Knowledge of what the documents do not hold (absent: every question is taken as possibly answered here). */
  readonly scope?: ScopeCheck;
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
}

/** An earlier turn of the conversation, as the next turn reads it. */
export interface PriorTurn {
  readonly question: string;
  readonly path?: RoutePath;
  /** What the user was shown: the model's answer or the evidence-only text. */
  readonly shown?: string;
  /** The model's answer when it answered from context (the conversation history the model sees). */
  readonly modelAnswer?: string;
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

export type TurnEvent =
  | { type: 'phase'; phase: TurnPhase }
  | { type: 'route'; route: RouteDecision; retrievalQuery: string }
  | { type: 'calc'; calc: CalcOutcome }
  | { type: 'calc-offer'; calc: CalcOutcome; why: string }
  | { type: 'assistance'; assistance: QueryAssistance }
  | { type: 'assist-error'; message: string }
  | { type: 'retrieved'; ask: AskResult; mode: AnswerMode }
  | { type: 'no-evidence'; why: string; detail: string }
  | { type: 'scope'; scope: ScopeVerdict }
  | { type: 'evidence'; evidence: EvidenceOnlyAnswer }
  | { type: 'condensed'; documents: CondensedContext[]; ask: AskResult }
  | { type: 'token'; delta: string }
  /** Structured answers: the claim being written (replaces the previous draft; '' once it completed). */
  | { type: 'draft'; text: string }
  | { type: 'retry'; notice: string }
  | { type: 'answer'; answer: AnswerResult }
  | { type: 'grounding'; report: GroundingReport; answer: AnswerResult }
  | { type: 'grounding-error'; message: string };

export interface TurnOutcome {
  /** 'done' or 'stopped' (failures throw). */
  phase: 'done' | 'stopped';
  route: RouteDecision | null;
  prefilter: PrefilterResult | null;
  retrievalQuery: string;
  calc: CalcOutcome | null;
  /**
   * Set when a weakly routed table question read no calculator input: the turn fell back to the text
   * search and offers the calculator (Assess) instead of showing empty calculator blocks.
   */
  calcOffer: { calc: CalcOutcome; why: string } | null;
  assistance: QueryAssistance | null;
  assistError: string | null;
  /** The retrieval as the answer saw it (with the condensed documents' evidence when they were the context). */
  ask: AskResult | null;
  mode: AnswerMode | null;
  noEvidence: { why: string; detail: string } | null;
  /** Set when the question's rule lives in an instrument these documents do not hold: said first, no model call. */
  scope: ScopeVerdict | null;
  evidence: EvidenceOnlyAnswer | null;
  condensed: CondensedContext[] | null;
  answer: AnswerResult | null;
  grounding: GroundingReport | null;
  groundingError: string | null;
  /** The audit record to store (null when the turn stopped before its evidence was known). */
  record: AuditRecordInput | null;
  /** The calculator's memory after this turn. */
  memory: CalcMemory;
}

const message = (e: unknown): string => (e instanceof Error ? e.message : String(e));

/**
 * The query retrieval searches. A follow-up may lack its topic: 'standalone' (default) searches its own
 * words, with the topic the previous question supplies when it names none (follow-up.ts); 'appended'
 * searches the previous question and the new one together (the rule before, kept for measurement:
 * `npm run eval:follow-ups`).
 */
export function retrievalQueryOf(question: string, prefilter: PrefilterResult, previous: readonly PriorTurn[], rule: FollowUpRule = 'standalone'): string {
  const prevQuestion = previous[previous.length - 1]?.question;
  if (!prefilter.cues.followUpOf || !prevQuestion) return question;
  if (rule === 'appended') return `${prevQuestion} ${question}`;
  return standaloneFollowUp(question, prevQuestion, rule === 'standalone' ? 'missing' : 'always').query;
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

/** Run one Ask turn. Emits events as it goes; resolves with everything it produced; throws on failure (mapped model errors). */
export async function runTurn(input: TurnInput, ports: TurnPorts, emit: (e: TurnEvent) => void = () => {}): Promise<TurnOutcome> {
  const { question, signal } = input;
  const previous = input.previous ?? [];
  const settings = input.settings ?? {};
  const config = settings.answerConfig ?? DEFAULT_ANSWER_CONFIG;
  const engine = ports.model?.engine ?? null;
  const out: TurnOutcome = {
    phase: 'done',
    route: null,
    prefilter: null,
    retrievalQuery: question,
    calc: null,
    calcOffer: null,
    assistance: null,
    assistError: null,
    ask: null,
    mode: null,
    noEvidence: null,
    scope: null,
    evidence: null,
    condensed: null,
    answer: null,
    grounding: null,
    groundingError: null,
    record: null,
    memory: input.memory ?? EMPTY_CALC_MEMORY,
  };
  const phase = (p: TurnPhase) => emit({ type: 'phase', phase: p });
  const stopped = (): boolean => {
    if (!signal?.aborted) return false;
    out.phase = 'stopped';
    phase('stopped');
    return true;
  };
  const finish = (): TurnOutcome => {
    out.record = auditOf(out, input, ports);
    phase(out.phase);
    return out;
  };

  // 1. route, once: the keyword pre-filter decides clear cases; with a model loaded, it classifies the ambiguous ones
  phase('routing');
  const classifier = engine && settings.routerModel !== false ? createLlmRouterClassifier(chatModel(engine), signal ? { signal } : {}) : undefined;
  const routed = await routeTurn(question, routerHistory(previous), classifier);
  out.route = routed.decision;
  out.prefilter = routed.prefilter;
  out.retrievalQuery = retrievalQueryOf(question, routed.prefilter, previous, settings.followUps);
  emit({ type: 'route', route: out.route, retrievalQuery: out.retrievalQuery });

  // 2. calculator (database / both); a follow-up changes the last operation's inputs
  if (out.route.path !== 'rules') {
    const ex = routed.prefilter.operation;
    const followUp = routed.prefilter.cues.followUpOf !== undefined;
    const memory = input.memory ?? EMPTY_CALC_MEMORY;
    const params = followUp ? mergeParams(memory.params, ex.params) : ex.params;
    const targets = ex.targets.length ? ex.targets : followUp ? [...memory.targets] : [];
    const calc = runCalc(targets, params, ex.readings, ex.notes);
    if (weakTableRoute(out.route, calc)) {
      // unsure it is a table question and nothing to compute with: the text answers, the calculator is offered
      const why = `The question was read as a table question with low confidence (${Math.round(100 * out.route.confidence)} %) and names no operation parameter the calculator can use.`;
      out.calcOffer = { calc, why };
      out.route = { ...out.route, path: 'rules', reasoning: `${out.route.reasoning}; fell back to the text search: no calculator input read` };
      emit({ type: 'route', route: out.route, retrievalQuery: out.retrievalQuery });
      emit({ type: 'calc-offer', calc, why });
    } else {
      out.calc = calc;
      out.memory = { params, targets: calc.items.map((i) => i.target) };
      emit({ type: 'calc', calc });
    }
  }
  if (stopped()) return out;

  // 3. retrieval; with a model, its rewrite, hypothetical answer and sub-questions are searched too
  phase('retrieving');
  let alternatives: { text: string; label: string }[] = [];
  if (engine && settings.assist !== false) {
    try {
      // a follow-up is rewritten by the model as a standalone question (its own words, the earlier question's topic)
      const followUp = routed.prefilter.cues.followUpOf !== undefined && previous.length > 0;
      const earlier = followUp ? previous.slice(-2).map((p) => p.question) : [];
      out.assistance = await assistQuery(followUp ? question : out.retrievalQuery, engine, config, signal, earlier);
      alternatives = alternativesFrom(out.assistance);
      if (followUp && out.assistance.parsed && out.assistance.rewritten) {
        // the rule's standalone query stays an alternative; the model's standalone question is searched first
        alternatives = [{ text: out.retrievalQuery, label: 'follow-up rule' }, ...alternatives.filter((a) => a.label !== 'model rewrite')];
        out.retrievalQuery = out.assistance.rewritten;
        emit({ type: 'route', route: out.route, retrievalQuery: out.retrievalQuery });
      }
      emit({ type: 'assistance', assistance: out.assistance });
    } catch (e) {
      // the search goes on with the question alone; the view says why the model did not help
      out.assistError = e instanceof AnswerError ? e.summary : message(e);
      emit({ type: 'assist-error', message: out.assistError });
    }
    if (stopped()) return out;
  }
  // with a model, the context fits its window next to the instructions and the answer
  const contextChars = engine ? contextCharsFor(ports.model?.contextWindow ?? 4096, config.generation) : null;
  const filters = mergeFilters(out.route.jurisdictions.length ? { jurisdictions: [...out.route.jurisdictions] } : undefined, settings.filters);
  const overrides: RetrievalConfigOverrides | undefined =
    contextChars !== null || settings.retrievalConfig ? { ...(settings.retrievalConfig ?? {}), ...(contextChars !== null ? { contextChars } : {}) } : undefined;
  const request: RetrieveRequest = {
    ...(filters ? { filters } : {}),
    ...(alternatives.length ? { alternatives } : {}),
    ...(overrides ? { config: overrides } : {}),
  };
  const ask = await ports.retrieval.retrieve(out.retrievalQuery, Object.keys(request).length ? request : undefined);
  if (stopped()) return out;
  out.ask = ask;
  out.mode = engine ? 'generative' : 'evidence-only';
  emit({ type: 'retrieved', ask, mode: out.mode });

  // 4a. not in these documents: where the rule likely lives first, then the closest passages as such; never a model call
  const scope = ports.scope?.(question, ask.retrieval) ?? ask.scope ?? null;
  if (scope) {
    out.scope = scope;
    emit({ type: 'scope', scope });
    if (!hasNoContext(ask.retrieval)) {
      phase('composing');
      out.evidence = await ports.retrieval.evidenceOnly(out.retrievalQuery, ask);
      if (stopped()) return out;
      emit({ type: 'evidence', evidence: out.evidence });
    }
    return finish();
  }

  // 4b. no evidence: the fixed reply, never a model call
  if (hasNoContext(ask.retrieval)) {
    out.noEvidence = { why: noEvidenceReason(ask.retrieval), detail: noEvidenceDetail(ask.retrieval) };
    emit({ type: 'no-evidence', ...out.noEvidence });
    return finish();
  }

  // 5b. evidence-only
  if (!engine) {
    phase('composing');
    // sentences are matched against what was searched: a follow-up's standalone query, not "and at night?" alone
    out.evidence = await ports.retrieval.evidenceOnly(out.retrievalQuery, ask);
    if (stopped()) return out;
    emit({ type: 'evidence', evidence: out.evidence });
    return finish();
  }

  // 5a. generative, from the flat context or the kept documents' contexts
  let answerRetrieval = ask.retrieval;
  const docs = ask.documents;
  const source = settings.answerContext ?? 'passages';
  const budget = contextChars ?? contextCharsFor(4096, config.generation);
  if (source !== 'passages' && docs && docs.chunks.length) {
    let context = docs.context;
    if (source === 'condensed') {
      phase('condensing');
      const byId = new Map(docs.chunks.map((c) => [c.id, c] as const));
      const condensed = await condenseConsulted(question, docs.consulted, (id) => byId.get(id), budget, {
        engine,
        check: (text, ids) => ports.retrieval.checkGrounding(text, ids),
        ...(signal ? { signal } : {}),
      });
      if (stopped()) return out;
      out.condensed = condensed.documents;
      context = condensed.context;
    }
    answerRetrieval = { ...ask.retrieval, evidence: docs.evidence, context: context.slice(0, budget) };
    // the sources panel lists the passages the answer could cite: the kept documents' evidence
    out.ask = { ...ask, retrieval: answerRetrieval, chunks: docs.chunks };
    if (out.condensed) emit({ type: 'condensed', documents: out.condensed, ask: out.ask });
  }
  phase('generating');
  const conversation: ConversationTurn[] = previous.filter((p) => p.modelAnswer).map((p) => ({ question: p.question, answer: p.modelAnswer! }));
  const modelId = ports.model?.modelId ?? undefined;
  let result: AnswerResult;
  try {
    result = await answerQuestion({
      question,
      history: conversation,
      retrieval: answerRetrieval,
      engine,
      ...(modelId ? { modelId } : {}),
      ...(signal ? { signal } : {}),
      config,
      onToken: (delta, channel) => {
        if (channel === 'answer') emit({ type: 'token', delta });
        else if (channel === 'draft') emit({ type: 'draft', text: delta });
      },
      onRetry: ({ error }) => emit({ type: 'retry', notice: `${error.summary} Retrying once…` }),
      errorContext: ports.errorContext ?? (() => ({ online: true, modelCached: true })),
    });
  } catch (e) {
    throw mapEngineError(e);
  }
  out.answer = result;
  emit({ type: 'answer', answer: result });

  // 6. grounding; supported sentences the model left uncited get the supporting passage, shown as added by the check
  if (result.answer && result.status !== 'no-context') {
    phase('checking');
    try {
      // structured answers are checked claim by claim; a claim its sources do not support is re-attributed when another passage does
      const report = await ports.retrieval.checkGrounding(result.structured ? result.structured.claims : result.answer, result.contextIds);
      if (config.attribution && result.structured) {
        out.answer = applyClaimAttribution(result, report);
        out.grounding = out.answer.grounding ?? report;
      } else if (config.attribution) {
        const attributed = applyAttribution(result, report);
        out.answer = attributed.result;
        out.grounding = attributed.report;
      } else out.grounding = report;
      emit({ type: 'grounding', report: out.grounding, answer: out.answer });
    } catch (e) {
      out.groundingError = message(e);
      emit({ type: 'grounding-error', message: out.groundingError });
    }
  }
  out.phase = result.stopped ? 'stopped' : 'done';
  return finish();
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

function auditOf(out: TurnOutcome, input: TurnInput, ports: TurnPorts): AuditRecordInput | null {
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
