/**
 * The state of one Ask turn, written in one place: `reduceTurn` folds the turn's events into it.
 * `runTurn` folds its own events to build its outcome, and the Ask view folds the same events
 * (plus the lifecycle ones only the view knows: failure, audit) into the value it shows and keeps
 * across a reload. A new turn feature is a field here and a case below, nowhere else.
 *
 * Pure: no DOM, no storage, no clock.
 */
import type { CondensedContext } from '../agents/condense.js';
import type { EvidenceOnlyAnswer } from '../answer/evidence-only.js';
import type { AnswerResult } from '../answer/generation.js';
import type { GroundingReport } from '../answer/grounding.js';
import type { QueryAssistance } from '../answer/query-assist.js';
import type { PrefilterResult, RouteDecision } from '../route/router.js';
import type { CalcOutcome } from '../sora/message-calc.js';
import type { AnswerMode } from './audit-record.js';
import type { AskResult, ScopeVerdict } from './types.js';

export type TurnPhase = 'queued' | 'routing' | 'retrieving' | 'composing' | 'condensing' | 'generating' | 'checking' | 'done' | 'stopped' | 'error';

/** A failure as the user reads it: what happened and what to do. */
export interface TurnError {
  summary: string;
  action: string;
}

export interface TurnState {
  readonly question: string;
  readonly phase: TurnPhase;
  readonly route: RouteDecision | null;
  readonly prefilter: PrefilterResult | null;
  /** What was searched: the question, or a follow-up's standalone form. */
  readonly retrievalQuery: string;
  /** The topic words the conversation carries on from this turn (a follow-up that names no topic of its own keeps the one it came in with). */
  readonly topic: readonly string[];
  /** Queued before it runs: behind the index loading, or behind the answer still being written; null once it runs (or never queued). */
  readonly queuedFor: 'index' | 'answer' | null;
  readonly calc: CalcOutcome | null;
  /** The question asks for a SORA value (names one, or a follow-up changes the inputs of one computed before). */
  readonly calcAsked: boolean;
  /** A weakly routed table question with no calculator input: the text answers, the calculator is offered, with why. */
  readonly calcOffer: { readonly calc: CalcOutcome; readonly why: string } | null;
  /** Model-assisted retrieval: the model's rewrite, hypothetical answer and sub-questions, or null. */
  readonly assistance: QueryAssistance | null;
  /** Why model assistance was not used although a model is loaded, or null. */
  readonly assistError: string | null;
  /** The retrieval as the answer saw it (with the condensed documents' evidence when they were the context). */
  readonly ask: AskResult | null;
  readonly mode: AnswerMode | null;
  /** Nothing close enough in the documents: why, and the retrieval's own figures (technical detail). */
  readonly noEvidence: { readonly why: string; readonly detail: string } | null;
  /** The question's rule lives in an instrument these documents do not hold: said first, no model call. */
  readonly scope: ScopeVerdict | null;
  readonly evidence: EvidenceOnlyAnswer | null;
  readonly condensed: readonly CondensedContext[] | null;
  /** The answer text streamed so far (answer channel only; reasoning is never shown). */
  readonly stream: string;
  /** Structured answers: the claim being written (progress only, never part of the answer). */
  readonly draft: string;
  readonly retryNotice: string | null;
  readonly answer: AnswerResult | null;
  readonly grounding: GroundingReport | null;
  readonly groundingError: string | null;
  readonly error: TurnError | null;
  /** The audit record was stored; or why it was not. */
  readonly audited: boolean;
  readonly auditError: string | null;
}

/** Events the turn emits (core/ask/turn.ts) and the lifecycle events of whoever runs it. */
export type TurnEvent =
  | { type: 'phase'; phase: TurnPhase }
  | { type: 'route'; route: RouteDecision; retrievalQuery: string; prefilter?: PrefilterResult; topic?: readonly string[] }
  | { type: 'calc'; calc: CalcOutcome; asked: boolean }
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

/** What only the runner of a turn knows: it failed, or its audit record was (not) stored. */
export type TurnLifecycleEvent = { type: 'failed'; error: TurnError } | { type: 'audited' } | { type: 'audit-error'; message: string };

export function initialTurnState(question: string, phase: TurnPhase = 'routing', queuedFor: TurnState['queuedFor'] = null): TurnState {
  return {
    question,
    phase,
    route: null,
    prefilter: null,
    retrievalQuery: question,
    topic: [],
    queuedFor: phase === 'queued' ? (queuedFor ?? 'index') : null,
    calc: null,
    calcAsked: false,
    calcOffer: null,
    assistance: null,
    assistError: null,
    ask: null,
    mode: null,
    noEvidence: null,
    scope: null,
    evidence: null,
    condensed: null,
    stream: '',
    draft: '',
    retryNotice: null,
    answer: null,
    grounding: null,
    groundingError: null,
    error: null,
    audited: false,
    auditError: null,
  };
}

/**
 * Whether the calculator card is shown: for a question that asks for a SORA value, or that gives the
 * parameters of one (computed) — but on a question whose rule these documents do not hold, only when
 * it asked for the value itself.
 */
export const showsCalculator = (s: Pick<TurnState, 'calc' | 'calcAsked' | 'scope'>): boolean => s.calc !== null && (s.calcAsked || s.scope === null);

/** What was searched, when it is not the question as asked (a follow-up's standalone form, the model's rewrite); else null. */
export function searchedAs(s: Pick<TurnState, 'question' | 'retrievalQuery'>): string | null {
  const norm = (t: string) => t.replace(/\s+/g, ' ').trim().toLowerCase();
  return norm(s.retrievalQuery) === norm(s.question) ? null : s.retrievalQuery.replace(/\s+/g, ' ').trim();
}

/** The phases after which nothing runs any more. */
export const isFinished = (s: Pick<TurnState, 'phase'>): boolean => s.phase === 'done' || s.phase === 'stopped' || s.phase === 'error';

/** The state after one event. */
export function reduceTurn(s: TurnState, e: TurnEvent | TurnLifecycleEvent): TurnState {
  switch (e.type) {
    case 'phase':
      return { ...s, phase: e.phase, queuedFor: e.phase === 'queued' ? s.queuedFor : null };
    case 'route':
      return {
        ...s,
        route: e.route,
        retrievalQuery: e.retrievalQuery,
        ...(e.prefilter ? { prefilter: e.prefilter } : {}),
        ...(e.topic ? { topic: e.topic } : {}),
      };
    case 'calc':
      return { ...s, calc: e.calc, calcAsked: e.asked };
    case 'calc-offer':
      return { ...s, calcOffer: { calc: e.calc, why: e.why } };
    case 'assistance':
      return { ...s, assistance: e.assistance };
    case 'assist-error':
      return { ...s, assistError: e.message };
    case 'retrieved':
      return { ...s, ask: e.ask, mode: e.mode };
    case 'scope':
      return { ...s, scope: e.scope };
    case 'no-evidence':
      return { ...s, noEvidence: { why: e.why, detail: e.detail } };
    case 'evidence':
      return { ...s, evidence: e.evidence };
    case 'condensed':
      return { ...s, condensed: e.documents, ask: e.ask };
    case 'token':
      return { ...s, stream: s.stream + e.delta };
    case 'draft':
      return { ...s, draft: e.text };
    case 'retry':
      return { ...s, stream: '', retryNotice: e.notice };
    case 'answer':
      return { ...s, answer: e.answer, draft: '', retryNotice: null };
    case 'grounding':
      return { ...s, answer: e.answer, grounding: e.report };
    case 'grounding-error':
      return { ...s, groundingError: e.message };
    case 'failed':
      return { ...s, phase: 'error', error: e.error };
    case 'audited':
      return { ...s, audited: true, auditError: null };
    case 'audit-error':
      return { ...s, auditError: e.message };
  }
}
