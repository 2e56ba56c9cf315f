/**
 * The indicator workflow (SKYSAFE UC-CLS-01, Table 2): for each requested indicator, a
 * deterministic retrieval query, then
 *  - a value computed from the corpus tables (or a rule printed in the corpus) when there is one —
 *    a model, when loaded, only explains it;
 *  - otherwise, with a model, N runs (default 5) of the single-indicator prompt, each validated
 *    against the schema, and a majority vote with its value consistency; a split vote is framed as
 *    conditional;
 *  - otherwise (no model) no value and an evidence-only rationale.
 * Then cross-indicator coherence checks.
 *
 * Error flows: E1 invalid inputs → {@link OperationInputError}; E2 empty (or failed) retrieval →
 * low-confidence result asking for what is missing; E3 model failure → one retry per run, then an
 * {@link IndicatorError} on that indicator only; E4 export → see `export.ts`.
 */
import type { Filters } from '../retrieval/types.js';
import type { TraceStep } from '../sora/types.js';
import {
  CALCULATED_INDICATORS,
  INDICATOR_CATALOG,
  INDICATOR_NAMES,
  MODEL_INDICATORS,
  UNDETERMINED,
  formatIndicatorValue,
  type IndicatorName,
  type IndicatorValue,
} from './catalog.js';
import { checkCoherence, type CoherenceFlag } from './coherence.js';
import { deriveIndicator, runCalculator, type CalculatorOutcome, type Derivation } from './deterministic.js';
import { fieldLabel, OperationInputError, validateOperationInput, type InitialOperationInput, type OptionalField } from './inputs.js';
import { DEFAULT_SAMPLING } from './model.js';
import { type CompletionModel } from '../llm/complete.js';
import { withRetry } from '../llm/retry.js';
import { SkyCiteError } from '../errors.js';
import { buildIndicatorMessages, type PromptOptions } from './prompt.js';
import { buildIndicatorQuery } from './query.js';
import { indicatorGenerationSchema } from './output-schema.js';
import { parseIndicatorOutput } from './schema.js';
import { citedChunkIds, sourcesFromRetrieval, type ChunkLookup, type IndicatorRetrieval, type IndicatorSource, type RetrievedEvidence } from './sources.js';

export type Confidence = 'calculated' | 'model-majority' | 'evidence-only' | 'low';

/** One model run (with its retry). */
export interface RunRecord {
  readonly run: number;
  /** 1, or 2 when the run was retried. */
  readonly attempts: number;
  readonly value: IndicatorValue | null;
  readonly explanation: string | null;
  /** Why the attempt(s) failed, when they did. */
  readonly errors: readonly string[];
  /** `[chunk-id]` markers the explanation cites that were not in the context. */
  readonly unknownCitations: readonly string[];
}

/** Typed error attached to an indicator when its model runs failed (E3). */
export interface IndicatorError {
  readonly type: 'IndicatorModelError';
  /** unavailable = the model threw twice in a run (endpoint down, timeout); invalid-output = no run gave valid JSON. */
  readonly kind: 'unavailable' | 'invalid-output';
  readonly indicator: IndicatorName;
  readonly message: string;
  readonly attempts: number;
}

export interface VoteShare {
  readonly value: IndicatorValue;
  readonly count: number;
}

export interface IndicatorResult {
  readonly name: IndicatorName;
  readonly label: string;
  readonly value: IndicatorValue | null;
  readonly valueLabel: string;
  readonly explanation: string;
  readonly confidence: Confidence;
  /** Framed as conditional: split vote, calculator on a boundary, or a rule with conditions. */
  readonly conditional: boolean;
  readonly conditionalReasons: readonly string[];
  /** Share of valid runs agreeing with the majority (0–1); null without model runs. */
  readonly consistency: number | null;
  readonly votes: readonly VoteShare[];
  readonly runs: readonly RunRecord[];
  readonly sources: readonly IndicatorSource[];
  /** Table cells (or corpus rules) the value was read from. */
  readonly trace: readonly TraceStep[];
  /** The deterministic account of a computed value (kept when a model explains it). */
  readonly calculation: string | null;
  readonly query: string;
  /** Inputs that would allow or strengthen a value. */
  readonly missing: readonly OptionalField[];
  /** A question for the user when the result is low-confidence (E2). */
  readonly clarification: string | null;
  readonly notes: readonly string[];
  readonly error: IndicatorError | null;
}

export interface AssessmentResult {
  readonly input: InitialOperationInput;
  readonly order: readonly IndicatorName[];
  readonly results: Partial<Record<IndicatorName, IndicatorResult>>;
  readonly coherence: readonly CoherenceFlag[];
  readonly calculator: CalculatorOutcome;
  readonly model: { readonly id: string; readonly runs: number; readonly temperature: number; readonly top_p: number } | null;
  readonly generatedAt: string;
}

export type ProgressEvent =
  | { readonly indicator: IndicatorName; readonly stage: 'retrieve' }
  | { readonly indicator: IndicatorName; readonly stage: 'run'; readonly run: number; readonly of: number }
  | { readonly indicator: IndicatorName; readonly stage: 'done'; readonly result: IndicatorResult };

export interface AssessOptions {
  readonly retrieval: IndicatorRetrieval;
  readonly model?: CompletionModel;
  /** Model runs per indicator (majority vote). Default 5. */
  readonly runs?: number;
  readonly signal?: AbortSignal;
  /** Indicators to evaluate; default: the four orientations plus the calculated ones the inputs allow. */
  readonly indicators?: readonly IndicatorName[];
  readonly filters?: Filters;
  readonly chunkLookup?: ChunkLookup;
  readonly sampling?: { readonly temperature: number; readonly top_p: number };
  /** Below this consistency a majority is framed as conditional. Default 0.6. */
  readonly conditionalBelow?: number;
  /** Ask the model to explain computed values (value fixed). Default true when a model is given. */
  readonly explainCalculated?: boolean;
  readonly prompt?: PromptOptions;
  readonly onProgress?: (event: ProgressEvent) => void;
  readonly now?: () => Date;
}

export const DEFAULT_RUNS = 5;
export const DEFAULT_CONDITIONAL_BELOW = 0.6;

function throwIfAborted(signal: AbortSignal | undefined): void {
  if (signal?.aborted) throw signal.reason instanceof Error ? signal.reason : new DOMException('The assessment was aborted.', 'AbortError');
}

const errorText = (e: unknown): string => (e instanceof Error ? e.message : String(e));

/** Default indicator list: the four orientations, plus iGRC/final GRC/SAIL when the inputs allow them. */
export function defaultIndicators(input: InitialOperationInput): IndicatorName[] {
  const calc = runCalculator(input);
  const calculated = CALCULATED_INDICATORS.filter((n) => calc.missing[n].length === 0);
  return [...MODEL_INDICATORS, ...calculated];
}

interface Vote {
  readonly value: IndicatorValue;
  readonly votes: readonly VoteShare[];
  readonly consistency: number;
}

/**
 * Majority vote over the valid runs. Ties go to the more demanding value (later in the catalogue's
 * order), and `undetermined` wins any tie it is part of: the conservative reading.
 */
export function majorityVote(name: IndicatorName, values: readonly IndicatorValue[]): Vote | null {
  if (values.length === 0) return null;
  const order = [...INDICATOR_CATALOG[name].values, UNDETERMINED];
  const counts = new Map<IndicatorValue, number>();
  for (const v of values) counts.set(v, (counts.get(v) ?? 0) + 1);
  const votes = [...counts.entries()]
    .map(([value, count]) => ({ value, count }))
    .sort((a, b) => b.count - a.count || order.indexOf(b.value) - order.indexOf(a.value));
  const top = votes[0] as VoteShare;
  return { value: top.value, votes, consistency: top.count / values.length };
}

interface ModelCall {
  readonly ok: boolean;
  readonly value: IndicatorValue | null;
  readonly explanation: string | null;
  readonly attempts: number;
  readonly errors: readonly string[];
  readonly threwTwice: boolean;
  readonly unknownCitations: readonly string[];
}

/** A model reply that is not a valid indicator object: retried once, then recorded in the run (never shown as the assessment's error). */
class IndicatorOutputError extends SkyCiteError {
  override name = 'IndicatorOutputError';
  override readonly code = 'indicator-output';
}

/** One run: an attempt and, if it fails (throws or invalid output), one retry. */
async function callWithRetry(
  model: CompletionModel,
  name: IndicatorName,
  messages: ReturnType<typeof buildIndicatorMessages>,
  sampling: { temperature: number; top_p: number },
  contextIds: ReadonlySet<string>,
  expectedValue: IndicatorValue | undefined,
  signal: AbortSignal | undefined,
): Promise<ModelCall> {
  const errors: string[] = [];
  let thrown = 0;
  const attempt = async (n: number): Promise<ModelCall> => {
    throwIfAborted(signal);
    let raw: string;
    try {
      raw = await model.complete(messages, { ...sampling, schema: indicatorGenerationSchema(name), ...(signal ? { signal } : {}) });
    } catch (e) {
      throwIfAborted(signal);
      thrown++;
      errors.push(`attempt ${n}: model failure: ${errorText(e)}`);
      throw e;
    }
    const parsed = parseIndicatorOutput(raw, name, expectedValue === undefined ? {} : { expectedValue });
    if (!parsed.ok) {
      errors.push(`attempt ${n}: invalid output (${parsed.reason}): ${parsed.message}`);
      throw new IndicatorOutputError(parsed.message);
    }
    const unknownCitations = citedChunkIds(parsed.output.explanation).filter((id) => !contextIds.has(id));
    return { ok: true, value: parsed.output.value, explanation: parsed.output.explanation, attempts: n, errors, threwTwice: false, unknownCitations };
  };
  try {
    // a stop is not retried: it ends the assessment
    return await withRetry(attempt, { retries: 1, retryable: () => !signal?.aborted });
  } catch {
    throwIfAborted(signal);
    return { ok: false, value: null, explanation: null, attempts: 2, errors, threwTwice: thrown === 2, unknownCitations: [] };
  }
}

function evidenceOnly(d: Derivation, sources: readonly IndicatorSource[]): string {
  // titles and pages, never passage ids (the ids stay in the result's sources and in the export)
  const lines = sources.map((s) => `• ${s.title} (${s.pages}): ${s.excerpt}`);
  return `${d.explanation}\nRetrieved passages bearing on this indicator (for the assessor to read; no value is inferred from them):\n${lines.join('\n')}`;
}

function missingQuestion(name: IndicatorName, missing: readonly OptionalField[]): string {
  const label = INDICATOR_CATALOG[name].label.replace(/^[A-Z](?=[a-z])/, (c) => c.toLowerCase());
  return missing.length > 0
    ? `To give the ${label}, please provide: ${missing.map((f) => fieldLabel(f)).join(', ')}.`
    : `No regulatory passage supports the ${label} for these inputs. Please check the operation inputs, the retrieval filters or the index, or describe the operation further.`;
}

/** Runs the indicator workflow for one operation. */
export async function assessIndicators(rawInput: unknown, options: AssessOptions): Promise<AssessmentResult> {
  const validated = validateOperationInput(rawInput);
  if (!validated.ok) throw new OperationInputError(validated.errors);
  const input = validated.value;
  const { retrieval, model, signal } = options;
  const runs = Math.max(1, Math.floor(options.runs ?? DEFAULT_RUNS));
  const sampling = options.sampling ?? DEFAULT_SAMPLING;
  const conditionalBelow = options.conditionalBelow ?? DEFAULT_CONDITIONAL_BELOW;
  const explainCalculated = options.explainCalculated ?? true;
  const requested = options.indicators ?? defaultIndicators(input);
  for (const n of requested) {
    if (!(INDICATOR_NAMES as readonly string[]).includes(n)) {
      throw new OperationInputError([
        {
          field: 'indicators',
          got: n,
          allowed: [...INDICATOR_NAMES],
          message: `Unknown indicator "${String(n)}"; the indicators are ${INDICATOR_NAMES.join(', ')}.`,
        },
      ]);
    }
  }
  const order = [...new Set(requested)];
  const calc = runCalculator(input);
  const results: Partial<Record<IndicatorName, IndicatorResult>> = {};

  for (const name of order) {
    throwIfAborted(signal);
    const spec = INDICATOR_CATALOG[name];
    const q = buildIndicatorQuery(name, input);
    options.onProgress?.({ indicator: name, stage: 'retrieve' });
    const notes: string[] = [];
    let retrieved: RetrievedEvidence = { evidence: [], context: '', noEvidence: true };
    try {
      retrieved = await retrieval.retrieve(q.query, options.filters ? { filters: options.filters } : {});
    } catch (e) {
      throwIfAborted(signal);
      notes.push(`Retrieval failed: ${errorText(e)}`);
    }
    const sources = sourcesFromRetrieval(retrieved, options.chunkLookup);
    const empty = retrieved.noEvidence || sources.length === 0;
    const derived = deriveIndicator(name, input, calc);
    const contextIds = new Set(sources.map((s) => s.id));
    const base = {
      name,
      label: spec.label,
      sources,
      query: q.query,
      trace: derived.trace,
      calculation: derived.value !== null ? derived.explanation : null,
    };
    let result: IndicatorResult;
    /** An outcome without a value: the fields all such outcomes share, plus what differs. */
    const noValue = (
      over: Pick<IndicatorResult, 'explanation' | 'confidence' | 'runs' | 'missing' | 'clarification' | 'notes' | 'error'>,
    ): IndicatorResult => ({
      ...base,
      value: null,
      valueLabel: formatIndicatorValue(name, null),
      conditional: false,
      conditionalReasons: [],
      consistency: null,
      votes: [],
      ...over,
    });

    if (derived.value !== null) {
      // Computed from the tables (or a corpus rule): the model may only explain it.
      let explanation = derived.explanation;
      const runRecords: RunRecord[] = [];
      let error: IndicatorError | null = null;
      if (model && explainCalculated && !empty) {
        options.onProgress?.({ indicator: name, stage: 'run', run: 1, of: 1 });
        const messages = buildIndicatorMessages(name, input, retrieved.context, { value: derived.value, trace: derived.trace }, options.prompt);
        const call = await callWithRetry(model, name, messages, sampling, contextIds, derived.value, signal);
        runRecords.push({
          run: 1,
          attempts: call.attempts,
          value: call.value,
          explanation: call.explanation,
          errors: call.errors,
          unknownCitations: call.unknownCitations,
        });
        if (call.ok && call.explanation) explanation = call.explanation;
        else {
          notes.push('The model explanation failed; the calculator explanation is shown.');
          error = {
            type: 'IndicatorModelError',
            kind: call.threwTwice ? 'unavailable' : 'invalid-output',
            indicator: name,
            message: call.errors.join(' | '),
            attempts: call.attempts,
          };
        }
        if (call.unknownCitations.length) notes.push(`The explanation cites passages that were not in the context: ${call.unknownCitations.join(', ')}.`);
      }
      if (empty) notes.push('No passage was retrieved for this indicator; the value rests on the table cells cited in the trace.');
      result = {
        ...base,
        value: derived.value,
        valueLabel: formatIndicatorValue(name, derived.value),
        explanation,
        confidence: 'calculated',
        conditional: derived.conditionalReasons.length > 0,
        conditionalReasons: derived.conditionalReasons,
        consistency: null,
        votes: [],
        runs: runRecords,
        missing: derived.missing,
        clarification: null,
        notes: [...derived.notes, ...notes],
        error,
      };
    } else if (empty) {
      // E2: nothing retrieved — no model call ([NO CONTEXT]), low confidence, ask for what is missing.
      const missing = [...new Set([...derived.missing, ...spec.helpfulInputs.filter((f) => input[f] === undefined)])];
      result = noValue({
        explanation: `Low confidence: no regulatory passage was retrieved for this indicator (query: "${q.query}"), so no value is given. ${derived.explanation}`,
        confidence: 'low',
        runs: [],
        missing,
        clarification: missingQuestion(name, missing),
        notes: [...derived.notes, ...notes],
        error: null,
      });
    } else if (model && spec.kind === 'model') {
      const messages = buildIndicatorMessages(name, input, retrieved.context, undefined, options.prompt);
      const runRecords: RunRecord[] = [];
      let error: IndicatorError | null = null;
      for (let i = 1; i <= runs; i++) {
        options.onProgress?.({ indicator: name, stage: 'run', run: i, of: runs });
        const call = await callWithRetry(model, name, messages, sampling, contextIds, undefined, signal);
        runRecords.push({
          run: i,
          attempts: call.attempts,
          value: call.value,
          explanation: call.explanation,
          errors: call.errors,
          unknownCitations: call.unknownCitations,
        });
        if (call.threwTwice) {
          error = {
            type: 'IndicatorModelError',
            kind: 'unavailable',
            indicator: name,
            message: `The model failed twice in run ${i}: ${call.errors.join(' | ')}`,
            attempts: runRecords.reduce((s, r) => s + r.attempts, 0),
          };
          break;
        }
      }
      const valid = runRecords.filter((r) => r.value !== null);
      const vote = error
        ? null
        : majorityVote(
            name,
            valid.map((r) => r.value as IndicatorValue),
          );
      if (!vote) {
        error ??= {
          type: 'IndicatorModelError',
          kind: 'invalid-output',
          indicator: name,
          message: `No run returned a valid ${name} object: ${runRecords.flatMap((r) => r.errors).join(' | ')}`,
          attempts: runRecords.reduce((s, r) => s + r.attempts, 0),
        };
        result = noValue({
          explanation: evidenceOnly(derived, sources),
          confidence: 'evidence-only',
          runs: runRecords,
          missing: derived.missing,
          clarification: null,
          notes: [...derived.notes, ...notes, 'The model failed for this indicator; the other indicators are unaffected.'],
          error,
        });
      } else {
        const winner = valid.find((r) => r.value === vote.value);
        const reasons: string[] = [];
        const share = (v: VoteShare) => `${formatIndicatorValue(name, v.value)} (${v.count}/${valid.length})`;
        if (vote.consistency < conditionalBelow) reasons.push(`Runs split: ${vote.votes.map(share).join(', ')}.`);
        if (valid.length < Math.ceil(runs / 2)) reasons.push(`Only ${valid.length} of ${runs} runs returned a valid answer.`);
        const undetermined = vote.value === UNDETERMINED;
        const unknown = [...new Set(valid.flatMap((r) => r.unknownCitations))];
        if (unknown.length) notes.push(`Explanations cite passages that were not in the context: ${unknown.join(', ')}.`);
        const conditional = reasons.length > 0;
        const explanation = winner?.explanation ?? '';
        result = {
          ...base,
          value: undetermined ? null : vote.value,
          valueLabel: formatIndicatorValue(name, undetermined ? null : vote.value),
          explanation: conditional ? `Conditional (indicative only): ${reasons.join(' ')} Majority reading: ${explanation}` : explanation,
          confidence: undetermined ? 'low' : 'model-majority',
          conditional,
          conditionalReasons: reasons,
          consistency: vote.consistency,
          votes: vote.votes,
          runs: runRecords,
          missing: undetermined ? spec.helpfulInputs.filter((f) => input[f] === undefined) : [],
          clarification: undetermined
            ? missingQuestion(
                name,
                spec.helpfulInputs.filter((f) => input[f] === undefined),
              )
            : null,
          notes: [...derived.notes, ...notes],
          error: null,
        };
      }
    } else {
      // No model (or a calculated indicator without a value): evidence-only rationale, never a guess.
      result = noValue({
        explanation: evidenceOnly(derived, sources),
        confidence: 'evidence-only',
        runs: [],
        missing: derived.missing,
        clarification: derived.missing.length > 0 ? missingQuestion(name, derived.missing) : null,
        notes: [...derived.notes, ...notes],
        error: null,
      });
    }
    results[name] = result;
    options.onProgress?.({ indicator: name, stage: 'done', result });
  }

  const values = Object.fromEntries(Object.values(results).map((r) => [r.name, r.value]));
  // Computed table values take part in the checks even when not requested as indicators.
  const calcValues: Partial<Record<IndicatorName, IndicatorValue | null>> = {
    igrc: calc.igrc?.status === 'ok' ? calc.igrc.value.igrc : null,
    final_grc: calc.finalGrc?.status === 'ok' ? calc.finalGrc.value.finalGrc : null,
    sail: calc.sail?.status === 'ok' ? calc.sail.value.sail : null,
  };
  return {
    input,
    order,
    results,
    coherence: checkCoherence({ ...calcValues, ...values }, input),
    calculator: calc,
    model: model ? { id: model.id ?? 'unnamed model', runs, temperature: sampling.temperature, top_p: sampling.top_p } : null,
    generatedAt: (options.now?.() ?? new Date()).toISOString(),
  };
}
