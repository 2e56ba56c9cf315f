/**
 * Prompts of the indicator workflow: the SKYSAFE system prompt (A.3.7) and developer rules (A.2.4,
 * reused per A.3.8), adapted to cite `[chunk-id]` markers, and the two user messages of A.3.4/A.3.6:
 * a request (output contract, indicator guidance, operation inputs) and a context message.
 *
 * The developer rules are appended to the system message: browser chat templates (WebLLM) accept a
 * single leading system message.
 */
import { formatTraceStep, type TraceStep } from '../sora/types.js';
import { allowedModelValues, INDICATOR_CATALOG, type IndicatorName, type IndicatorValue } from './catalog.js';
import { valueLabel, type InitialOperationInput } from './inputs.js';
import type { ChatMessage } from '../llm/engine.js';

export const NO_CONTEXT = '[NO CONTEXT]';

/** A.3.7, with the citation rule adapted to the `[chunk-id]` markers of the context block. */
export const INDICATOR_SYSTEM_PROMPT = `You are an assistant for drone operation pre assessment.

Your task
Given a small set of operation inputs provided exclusively in the context, produce exactly one requested indicator together with its explanation.

Use of context
Use only the information that appears inside the context section.
Do not rely on any external knowledge, prior training data, memory, or assumptions not explicitly supported by the context.
If the context does not contain sufficient information to determine the requested indicator, state this clearly in the explanation.

Scope and limitations
All outputs are indicative and preliminary.
Do not provide legal determinations, approvals, or final classifications.
Do not extrapolate beyond what can be justified from the context.

Indicator handling
You will be asked for one indicator at a time.
Return only the requested indicator.
Do not infer, compute, or mention other indicators.

Explanations
Provide one explanation corresponding to the requested indicator.
Explicitly reference which elements of the context influenced the result, citing each passage by its marker in square brackets, e.g. [easa-amc-gm-2019-947/amc1-art11/s4.2.3/table-1].
State any assumption explicitly and only if it is unavoidable.

Output format
Return exactly one valid JSON object.
The JSON object must contain
name
value
explanation
Do not include any text before or after the JSON.

Tone and style
Use a clear, technical, and regulatory tone appropriate for aviation safety assessment.
Be concise and deterministic.`;

/** A.2.4 developer rules, adapted to this task (indicator value "undetermined" instead of a refusal). */
export const INDICATOR_DEVELOPER_RULES = `Rules for using the context
1. Use only the information that appears inside the context section.
2. Do not rely on any external sources, prior knowledge, memory, or unstated assumptions.
3. If the context section contains the text ${NO_CONTEXT}, return the value "undetermined" and say in the explanation that no context was provided.
4. If the context contains information but it is insufficient to determine the requested indicator, state clearly which information is missing and do not infer it.
5. Do not invent facts or introduce reasoning that is not directly supported by the context.

Task specific behavior
- The model will be asked to produce one indicator at a time.
- Use only the context fields relevant to the requested indicator.
- Do not reference or compute other indicators.
- Treat all outputs as preliminary and indicative.
- When the inputs sit on a boundary between two values, say so and state the condition under which each value would apply.

Style and behavior
- Be concise, clear, and technically precise.
- Use a regulatory and professional tone suitable for aviation safety and compliance review.
- Prefer deterministic reasoning over narrative explanations.
- Do not speculate. If the context does not allow a determination, state this explicitly.`;

/** A value computed from the tables, which the model may only explain. */
export interface ComputedValue {
  readonly value: IndicatorValue;
  readonly trace: readonly TraceStep[];
}

/** The "Operation inputs" block: only the fields the indicator sees, only those that are set. */
export function operationInputsBlock(name: IndicatorName, input: InitialOperationInput): string {
  return INDICATOR_CATALOG[name].fields
    .map((f) => {
      const label = valueLabel(f, input);
      return label === null ? null : `${f}: ${label}`;
    })
    .filter((l): l is string => l !== null)
    .join('\n');
}

/** User message 1 (A.3.6): contract, indicator guidance and instructions, operation inputs. */
export function buildRequestMessage(name: IndicatorName, input: InitialOperationInput, computed?: ComputedValue): string {
  const spec = INDICATOR_CATALOG[name];
  const lines = [
    'You will receive a context section and a small set of operation inputs.',
    'Use only the context and the provided inputs.',
    'Return exactly one JSON object with keys name, value, explanation.',
    'Do not output any additional text.',
    '',
    `Requested indicator: ${name}`,
    `Goal: ${spec.goal}`,
  ];
  if (computed) {
    lines.push(
      `The value was derived deterministically from the regulation's tables or rules: ${JSON.stringify(computed.value)}. Return exactly this value; explain it from the context and the table cells below.`,
      ...computed.trace.map((s) => `Table cell: ${formatTraceStep(s)}`),
    );
  } else {
    lines.push(...spec.guidance);
    lines.push(`Use "undetermined" only when the context does not allow a determination. The value must be one of: ${allowedModelValues(spec).join(', ')}.`);
  }
  lines.push(
    ...spec.instructions,
    'Cite the context passages you rely on by their [chunk-id] markers.',
    '',
    'Operation inputs:',
    operationInputsBlock(name, input),
  );
  return lines.join('\n');
}

/** User message 2 (A.3.6): the retrieved context block, or the no-context marker. */
export function buildContextMessage(context: string): string {
  return `Context:\n${context.trim() === '' ? NO_CONTEXT : context}`;
}

export interface PromptOptions {
  /**
   * Insert an assistant acknowledgement between the two user messages (as in A.2.5), for chat
   * templates that require alternating roles. Default false (A.3.4: two consecutive user messages).
   */
  readonly alternateRoles?: boolean;
}

/** The full message sequence of one indicator request. */
export function buildIndicatorMessages(
  name: IndicatorName,
  input: InitialOperationInput,
  context: string,
  computed?: ComputedValue,
  options: PromptOptions = {},
): ChatMessage[] {
  return [
    { role: 'system', content: `${INDICATOR_SYSTEM_PROMPT}\n\n${INDICATOR_DEVELOPER_RULES}` },
    { role: 'user', content: buildRequestMessage(name, input, computed) },
    ...(options.alternateRoles ? [{ role: 'assistant' as const, content: 'Understood. Please provide the context.' }] : []),
    { role: 'user', content: buildContextMessage(context) },
  ];
}
