/**
 * Answer generation with a chat engine (SKYSAFE §2.7): assemble the messages,
 * stream the completion, separate the reasoning trace from the answer, remove
 * citations of chunks that were not in the context, and return everything the
 * audit record needs (messages, model id, parameters, context ids, attempts).
 * It only generates: the check and the attribution run after it, in the turn
 * (core/ask/turn.ts → attribution.ts `attributeResult`).
 *
 * Rules enforced in code, not left to the model:
 * - no evidence → the reply is exactly NO_ANSWER_TEXT and the engine is never
 *   called;
 * - abort (stop button) → `interruptGenerate()`, then `return()` on the stream
 *   iterator (core/llm/stream.ts; the LLM worker's client turns it into
 *   'stream-return', which closes the worker-side generator and frees the engine
 *   lock), and a partial answer with status 'stopped' (not an error);
 * - transient engine failure → one retry (config.retry, core/llm/retry.ts), `onRetry`
 *   lets the UI clear the partial text; a context-window overflow is retried once
 *   without the conversation history; anything else → a typed AnswerError;
 * - numbered markers (config.citationMarkers 'number', the default) → the model
 *   sees the passages as [1], [2]…, and its numbers are turned back into chunk
 *   ids as the answer streams (citations.ts), so the result carries `[chunk-id]`;
 * - structured answers (config.answerForm 'structured', structured.ts): the reply is a JSON
 *   object of claims under a schema the engine enforces; claims are passed on as they complete,
 *   a stopped or invalid reply keeps its complete claims and reports the rest, and a source
 *   number outside the context is dropped and reported like an invented id.
 */
import { buildRequest, type ChatCompletionChunkLike, type ChatEngine, type StreamingChatRequest } from '../llm/engine.js';
import { streamChat } from '../llm/stream.js';
import type { RetrievalResult } from '../retrieval/types.js';
import type { AttributedCitation, PrunedCitations } from './attribution.js';
import {
  citedIds,
  contextChunkIds,
  stripCitations,
  filterCitations,
  NumberMarkerStream,
  numberCitations,
  numberContextMarkers,
  resolveNumberMarkers,
  type NumberedCitations,
  type RemovedCitation,
} from './citations.js';
import { type AnswerConfig, DEFAULT_ANSWER_CONFIG } from './config.js';
import { type GenerationParams } from '../llm/engine.js';
import { AnswerError, ContextTooLongError, type EngineErrorContext, mapEngineError } from '../llm/errors.js';
import { withRetry } from '../llm/retry.js';
import type { AnswerClaim, GroundingReport } from './grounding.js';
import { buildChatMessages, isStructured, type ConversationTurn } from './messages.js';
import { answerSchema, ClaimStream, draftClaim, NOT_IN_PASSAGES_LABEL, renderClaims, resolveClaims } from './structured.js';
import { type ChatMessage } from '../llm/engine.js';
import { hasNoContext } from './no-context.js';
import { LEAD_DECLINED, LEAD_SYSTEM_PROMPT, leadUserMessage, MINIMAL_LEAD_PROMPT, NO_ANSWER_TEXT } from './prompts.js';
import { copiedFrom, sameWords, shownLead, unitId, type Quote, type QuotedAnswer } from './quotes.js';
import { splitSentences } from '../text/sentences.js';
import { splitReasoning, ThinkSplitter } from './reasoning.js';
import { findApprovalWording } from './wording.js';

// ---------------------------------------------------------------------------
// inputs and outputs

/**
 * 'answer': text to append; 'reasoning': the reasoning trace; 'draft' (structured answers): the whole
 * text of the claim being written, read from the partial JSON — it replaces the previous draft, is ''
 * once the claim completes (it then arrives on 'answer'), and is never checked or kept.
 */
export type StreamChannel = 'answer' | 'reasoning' | 'draft';

export interface AnswerQuestionInput {
  question: string;
  /** Previous turns, oldest first (trimmed to config.history). */
  history?: readonly ConversationTurn[];
  retrieval: Pick<RetrievalResult, 'evidence' | 'noEvidence' | 'context'>;
  engine: ChatEngine;
  /** Model id for the audit record when the stream does not report one. */
  modelId?: string;
  config?: AnswerConfig;
  /** Abort = the stop button. */
  signal?: AbortSignal;
  /** Each streamed delta, answer and reasoning separately. */
  onToken?: (delta: string, channel: StreamChannel) => void;
  /** Called before a retry: discard the partial text shown so far. */
  onRetry?: (info: { attempt: number; error: AnswerError }) => void;
  /** Connectivity facts for error mapping (e.g. `() => ({ online: navigator.onLine, modelCached })`). */
  errorContext?: () => EngineErrorContext;
  /** Quoted answers: the quotations the unit ranker chose (quotes.ts); the model writes the lead over them. */
  quotes?: QuotedAnswer;
}

export type AnswerStatus = 'complete' | 'stopped' | 'truncated' | 'no-context';

export interface AnswerResult {
  status: AnswerStatus;
  /** True when the user stopped generation: `answer` is partial. */
  stopped: boolean;
  /** The answer with `[chunk-id]` markers; unknown citations removed. */
  answer: string;
  /** The reasoning trace (audit only, never evidence); '' when none. */
  reasoning: string;
  /** Cited chunk ids in order of first appearance (display number = index + 1). */
  citations: string[];
  /** The answer with markers numbered [1], [2]… and the mapping. */
  display: NumberedCitations;
  /** Citations of chunks that were not in the context, removed from `answer`. */
  removedCitations: RemovedCitation[];
  /** Markers added after the grounding check to supported claims the model left uncited (attribution.ts); [] until then. */
  attributed: AttributedCitation[];
  /** The check's report after attribution (attribution.ts `attributeResult`); null until the turn checked the answer. */
  grounding: GroundingReport | null;
  /** Why attribution could not be applied to the checked answer (e.g. verdicts and claims differ in count), or null. */
  attributionProblem: string | null;
  /** Approval-like wording found in the answer (should be empty). */
  wordingWarnings: string[];
  /** The exact messages sent (empty when the engine was not called). */
  messages: ChatMessage[];
  modelId: string | null;
  params: GenerationParams;
  /** Chunk ids that were in the context, in order. */
  contextIds: string[];
  /** Engine calls made (0 when not called; 2 after one retry). */
  attempts: number;
  finishReason: string | null;
  usage: ChatCompletionChunkLike['usage'] | null;
  /** Structured answers only (null for free-form and no-context answers). */
  structured: StructuredAnswer | null;
  /** Quoted answers only: the quotations, and the lead the model wrote over them. */
  quoted: QuotedResult | null;
}

/** A quoted answer: the quotations are the answer; the model's lead says in a sentence or two what they answer. */
export interface QuotedResult {
  quotes: Quote[];
  /** The units quoted, as the lead cites them (`chunk-id/unit-n`). */
  unitIds: string[];
  /** The lead as written (markers resolved to unit ids), or null (declined, stopped before it, or empty). */
  lead: string | null;
  /** Why the lead is not shown: the model said the quotations do not answer, or the check found it unsupported (set by attribution). */
  leadDropped: string | null;
  /** The lead's sentences beyond the limit, or repeated ones, dropped (said, not shown). */
  leadTrimmed: number;
  /** The best unit was below the ranker's threshold: these passages do not state the answer. */
  gap: boolean;
}

/** What a structured reply held, kept for the audit record. */
export interface StructuredAnswer {
  /** The model's JSON as written (numbers, not ids). */
  raw: string;
  /** The claims shown: complete claims with chunk ids (after re-attribution once the check ran). */
  claims: AnswerClaim[];
  /** The claims as the model cited them (ids resolved from its numbers, before any re-attribution). */
  modelClaims: AnswerClaim[];
  /** What the model said the passages do not cover ('' when it said nothing, null when the field never completed). */
  notInPassages: string | null;
  /** No claim: the model declined (with `notInPassages`) or was stopped before its first claim. */
  refused: boolean;
  /** Why the JSON was not a complete object (stopped, cut off, invalid), null when it was. */
  problem: string | null;
  /** Claims dropped because they did not have the schema's shape. */
  malformedClaims: number;
  /** Citations the check took off supported claims because they support them neither alone nor together (not shown). */
  pruned: PrunedCitations[];
}

// ---------------------------------------------------------------------------

interface StreamOutcome {
  raw: string;
  reasoningField: string;
  stopped: boolean;
  finishReason: string | null;
  model: string | null;
  usage: ChatCompletionChunkLike['usage'] | null;
}

/** One engine call: stream until done, stopped or failed (failures throw), the reasoning trace apart from the answer. */
async function streamOnce(
  engine: ChatEngine,
  request: StreamingChatRequest,
  signal: AbortSignal | undefined,
  onToken: AnswerQuestionInput['onToken'],
  partial: { raw: string },
): Promise<StreamOutcome> {
  const out: StreamOutcome = { raw: '', reasoningField: '', stopped: false, finishReason: null, model: null, usage: null };
  const splitter = new ThinkSplitter();
  const emit = (d: { answer: string; reasoning: string }): void => {
    if (d.reasoning) onToken?.(d.reasoning, 'reasoning');
    if (d.answer) onToken?.(d.answer, 'answer');
  };
  const { stopped } = await streamChat(engine, request, signal, (chunk) => {
    if (chunk.model) out.model = chunk.model;
    if (chunk.usage) out.usage = chunk.usage;
    const choice = chunk.choices[0];
    if (!choice) return;
    const rc = choice.delta.reasoning_content;
    if (rc) {
      out.reasoningField += rc;
      onToken?.(rc, 'reasoning');
    }
    const c = choice.delta.content;
    if (c) {
      out.raw += c;
      partial.raw = out.raw;
      emit(splitter.push(c));
    }
    if (choice.finish_reason) out.finishReason = choice.finish_reason;
  });
  emit(splitter.flush());
  if (stopped) out.finishReason = out.finishReason ?? 'abort';
  if (stopped || out.finishReason === 'abort') out.stopped = true;
  return out;
}

/** Pass resolved answer text on, skipping the empty deltas held back by a marker stream. */
function emitResolved(onToken: NonNullable<AnswerQuestionInput['onToken']>, text: string): void {
  if (text) onToken(text, 'answer');
}

/** Answer a question from the retrieval result with the chat engine. */
export async function answerQuestion(input: AnswerQuestionInput): Promise<AnswerResult> {
  let config = input.config ?? DEFAULT_ANSWER_CONFIG;
  const params = { ...config.generation };
  const context = config.contextMaxChars !== null ? input.retrieval.context.slice(0, config.contextMaxChars) : input.retrieval.context;
  // numbered markers: the model sees [1], [2]…; its numbers become chunk ids again as they stream
  // a quoted answer needs its quotations (the turn composes them first); without them the structured form answers
  const quoted = config.answerForm === 'quoted' && input.quotes ? input.quotes : null;
  if (config.answerForm === 'quoted' && !quoted) config = { ...config, answerForm: 'structured' };
  const structured = isStructured(config);
  const numbered = quoted ? null : config.citationMarkers === 'number' || structured ? numberContextMarkers(context) : null;
  const promptContext = numbered ? numbered.context : context;
  // the passages in the context (numbering them already listed them); a quoted answer's are its quotations' passages
  const contextIds = quoted
    ? [...new Set(quoted.quotes.map((q) => q.chunkId))]
    : (numbered ? numbered.ids : contextChunkIds(context)).filter((id) => input.retrieval.evidence.some((e) => e.id === id));
  const unitIds = quoted ? quoted.quotes.map((q) => unitId(q.chunkId, q.n)) : [];
  const base = {
    reasoning: '',
    removedCitations: [] as RemovedCitation[],
    attributed: [] as AttributedCitation[],
    grounding: null,
    attributionProblem: null,
    wordingWarnings: [] as string[],
    params,
    contextIds,
    usage: null,
    structured: null,
    quoted: null,
  };

  // quotations that do not answer: the engine is not called, the quotes are shown under the gap notice
  if (quoted && !hasNoContext(input.retrieval) && (quoted.gap || !quoted.quotes.length)) {
    return {
      ...base,
      status: 'complete',
      stopped: false,
      answer: '',
      citations: [],
      display: { text: '', order: [], numberOf: {} },
      messages: [],
      modelId: input.modelId ?? null,
      attempts: 0,
      finishReason: null,
      quoted: { quotes: quoted.quotes, unitIds, lead: null, leadDropped: null, leadTrimmed: 0, gap: true },
    };
  }
  // the no-context rule: the engine is never called
  if (hasNoContext(input.retrieval)) {
    return {
      ...base,
      status: 'no-context',
      stopped: false,
      answer: NO_ANSWER_TEXT,
      citations: [],
      display: { text: NO_ANSWER_TEXT, order: [], numberOf: {} },
      messages: [],
      modelId: input.modelId ?? null,
      attempts: 0,
      finishReason: null,
    };
  }

  let history = input.history ?? [];
  let attempts = 0;
  let messages: ChatMessage[] = [];
  const stoppedWith = (raw: string): StreamOutcome => ({ raw, reasoningField: '', stopped: true, finishReason: 'abort', model: null, usage: null });
  const attempt = async (): Promise<StreamOutcome> => {
    messages = quoted
      ? leadMessages(input.question, quoted, config)
      : buildChatMessages({ question: input.question, history, context: promptContext, config, passages: contextIds.length });
    if (input.signal?.aborted) return stoppedWith('');
    attempts++;
    const partial = { raw: '' };
    try {
      if (structured) {
        // claims are shown as they complete, each as one line with its markers
        const claimStream = new ClaimStream();
        let so = '';
        let draft = '';
        const onToken: AnswerQuestionInput['onToken'] = input.onToken
          ? (delta, channel) => {
              if (channel !== 'answer') return input.onToken!(delta, channel);
              so += delta;
              const before = claimStream.claims.length;
              const fresh = claimStream.push(delta).slice(0, Math.max(0, config.structured.maxClaims - before));
              const done = resolveClaims(fresh, numbered!.ids, config.structured.maxSourcesPerClaim).claims;
              if (done.length) emitResolved(input.onToken!, `${renderClaims(done, null)}\n`);
              // the claim being written, for a progress line (partial-json reads the unfinished object)
              const next = draftClaim(so, claimStream.claims.length);
              if (next !== draft) input.onToken!((draft = next), 'draft');
            }
          : undefined;
        const schema = answerSchema(contextIds.length, config.structured);
        return await streamOnce(input.engine, buildRequest(messages, params, schema), input.signal, onToken, partial);
      }
      const markers = numbered ? new NumberMarkerStream(numbered.ids) : quoted ? new NumberMarkerStream(unitIds) : null;
      const onToken: AnswerQuestionInput['onToken'] =
        markers && input.onToken
          ? (delta, channel) => (channel === 'answer' ? emitResolved(input.onToken!, markers.push(delta)) : input.onToken!(delta, channel))
          : input.onToken;
      const request = quoted
        ? buildRequest(messages, { ...params, max_tokens: config.lead.maxTokens, frequency_penalty: config.lead.frequencyPenalty })
        : buildRequest(messages, params);
      const outcome = await streamOnce(input.engine, request, input.signal, onToken, partial);
      if (markers && input.onToken) emitResolved(input.onToken, markers.flush());
      return outcome;
    } catch (e) {
      if (input.signal?.aborted) return stoppedWith(partial.raw);
      throw mapEngineError(e, input.errorContext?.() ?? {});
    }
  };
  // a transient failure is retried (config.retry); a context-window overflow once without the history
  const outcome = await withRetry(attempt, {
    retries: config.retry.attempts,
    delayMs: config.retry.delayMs,
    signal: input.signal,
    retryable: (e) => e instanceof AnswerError && (e.retryable || (e instanceof ContextTooLongError && history.length > 0)),
    onRetry: (e, next) => {
      if (e instanceof ContextTooLongError) history = [];
      input.onRetry?.({ attempt: next, error: e as AnswerError });
    },
  });

  if (structured) return structuredResult(input, config, base, { outcome, messages, attempts, ids: numbered!.ids });
  if (quoted) return quotedResult(input, config, base, quoted, { outcome, messages, attempts, unitIds });

  const split = splitReasoning(numbered ? resolveNumberMarkers(outcome.raw, numbered.ids) : outcome.raw);
  const reasoning = [outcome.reasoningField.trim(), split.reasoning].filter(Boolean).join('\n\n');
  const filtered = filterCitations(split.answer.trim(), contextIds);
  const answer = filtered.text;
  const status: AnswerStatus = outcome.stopped ? 'stopped' : outcome.finishReason === 'length' ? 'truncated' : 'complete';

  const result: AnswerResult = {
    ...base,
    status,
    stopped: status === 'stopped',
    answer,
    reasoning,
    citations: citedIds(answer),
    display: numberCitations(answer),
    removedCitations: filtered.removed,
    wordingWarnings: findApprovalWording(answer),
    messages,
    modelId: outcome.model ?? input.modelId ?? null,
    attempts,
    finishReason: outcome.finishReason,
    usage: outcome.usage ?? null,
  };
  return result;
}

/** The result of a structured reply: its complete claims, and what was wrong with the rest. */
async function structuredResult(
  input: AnswerQuestionInput,
  config: AnswerConfig,
  base: Pick<
    AnswerResult,
    'reasoning' | 'removedCitations' | 'attributed' | 'grounding' | 'attributionProblem' | 'wordingWarnings' | 'params' | 'contextIds' | 'usage' | 'quoted'
  >,
  run: { outcome: StreamOutcome; messages: ChatMessage[]; attempts: number; ids: readonly string[] },
): Promise<AnswerResult> {
  const { outcome } = run;
  const split = splitReasoning(outcome.raw);
  const parsed = new ClaimStream();
  parsed.push(split.answer);
  // WebLLM's grammar (xgrammar in web-llm 0.2.79) ignores maxItems and maxLength: the claim limit is kept here
  const max = config.structured.maxClaims;
  const over = parsed.claims.length > max ? `the model wrote ${parsed.claims.length} claims; the first ${max} are kept (the limit)` : null;
  const resolved = resolveClaims(parsed.claims.slice(0, max), run.ids, config.structured.maxSourcesPerClaim);
  const status: AnswerStatus = outcome.stopped ? 'stopped' : outcome.finishReason === 'length' ? 'truncated' : 'complete';
  const claims = resolved.claims;
  const notIn = parsed.notInPassages;
  const refused = claims.length === 0;
  const answer =
    refused && status === 'complete' && !notIn ? `${NOT_IN_PASSAGES_LABEL}: the model stated no claim from these passages.` : renderClaims(claims, notIn);
  const structured: StructuredAnswer = {
    raw: outcome.raw,
    claims,
    modelClaims: claims,
    notInPassages: notIn,
    refused,
    problem: [parsed.problem, over].filter(Boolean).join('; ') || null,
    malformedClaims: parsed.malformedClaims,
    pruned: [],
  };
  const result: AnswerResult = {
    ...base,
    status,
    stopped: status === 'stopped',
    answer,
    reasoning: [outcome.reasoningField.trim(), split.reasoning].filter(Boolean).join('\n\n'),
    citations: citedIds(answer),
    display: numberCitations(answer),
    removedCitations: resolved.removed,
    wordingWarnings: findApprovalWording(answer),
    messages: run.messages,
    modelId: outcome.model ?? input.modelId ?? null,
    attempts: run.attempts,
    finishReason: outcome.finishReason,
    usage: outcome.usage ?? null,
    structured,
  };
  return result;
}

/** The result of a quoted answer: its quotations, and the lead (trimmed to its sentences, repeats dropped) with unit markers. */
function quotedResult(
  input: AnswerQuestionInput,
  config: AnswerConfig,
  base: Pick<
    AnswerResult,
    | 'reasoning'
    | 'removedCitations'
    | 'attributed'
    | 'grounding'
    | 'attributionProblem'
    | 'wordingWarnings'
    | 'params'
    | 'contextIds'
    | 'usage'
    | 'structured'
    | 'quoted'
  >,
  quotes: QuotedAnswer,
  run: { outcome: StreamOutcome; messages: ChatMessage[]; attempts: number; unitIds: string[] },
): AnswerResult {
  const { outcome } = run;
  const split = splitReasoning(resolveNumberMarkers(outcome.raw, run.unitIds));
  const filtered = filterCitations(split.answer.trim(), run.unitIds);
  const status: AnswerStatus = outcome.stopped ? 'stopped' : outcome.finishReason === 'length' ? 'truncated' : 'complete';
  const declined = filtered.text.toLowerCase().startsWith(LEAD_DECLINED.toLowerCase().slice(0, 28));
  // one or two sentences, none repeated: a repeat or a sentence past the limit is dropped (and counted)
  const sentences: string[] = [];
  let trimmed = 0;
  // a sentence that copies a quotation says what the quotation below already says, one that echoes the question
  // answers nothing: neither is a lead
  // (a quotation is often two sentences now: a lead copying one of them is a copy too)
  const copies = (s: string) =>
    quotes.quotes.some((q) => sameWords(stripCitations(s), q.text, config.lead.copyJaccard) || copiedFrom(stripCitations(s), q.text)) ||
    sameWords(stripCitations(s), input.question, config.lead.copyJaccard);
  const all = declined ? [] : splitSentences(filtered.text);
  // a reply cut by the token limit (or Stop) ends in a cut sentence: it is no statement, so it is not shown
  if (status !== 'complete' && all.length && !/[.!?]["')\]]*(?:\s*\[[^\]]+\])*\s*$/.test(all[all.length - 1]!)) {
    all.pop();
    trimmed++;
  }
  for (const s of all) {
    const key = stripCitations(s).toLowerCase().replace(/\W+/g, ' ').trim();
    const repeat = sentences.some((k) => stripCitations(k).toLowerCase().replace(/\W+/g, ' ').trim() === key);
    if (!key || repeat || copies(s) || sentences.length >= config.lead.maxSentences) trimmed++;
    else sentences.push(s);
  }
  const lead = sentences.length ? sentences.join(' ') : null;
  // shown with the passages' ids (the sources panel lists passages); the unit ids stay in `quoted` for the check
  const answer = lead ? shownLead(lead) : '';
  return {
    ...base,
    status,
    stopped: status === 'stopped',
    answer,
    reasoning: [outcome.reasoningField.trim(), split.reasoning].filter(Boolean).join('\n\n'),
    citations: citedIds(answer),
    display: numberCitations(answer),
    removedCitations: filtered.removed,
    wordingWarnings: findApprovalWording(answer),
    messages: run.messages,
    modelId: outcome.model ?? input.modelId ?? null,
    attempts: run.attempts,
    finishReason: outcome.finishReason,
    usage: outcome.usage ?? null,
    quoted: {
      quotes: quotes.quotes,
      unitIds: run.unitIds,
      lead,
      leadDropped: declined ? 'the model said the quotations do not answer the question' : null,
      leadTrimmed: trimmed,
      gap: quotes.gap,
    },
  };
}

/** The lead's messages: the lead prompt and the numbered quotations; the diagnostic smoke profile sends one line and the first quotation, cut. */
function leadMessages(question: string, quoted: QuotedAnswer, config: AnswerConfig): ChatMessage[] {
  if (config.instructions === 'minimal') {
    const first = quoted.quotes.slice(0, 1).map((q) => ({ ...q, text: q.text.slice(0, config.contextMaxChars ?? q.text.length) }));
    return [
      { role: 'system', content: MINIMAL_LEAD_PROMPT },
      { role: 'user', content: leadUserMessage(question, first) },
    ];
  }
  return [
    { role: 'system', content: LEAD_SYSTEM_PROMPT },
    { role: 'user', content: leadUserMessage(question, quoted.quotes) },
  ];
}
