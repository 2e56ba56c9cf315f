/**
 * The LLM router classifier: decides the messages the learned pre-filter leaves
 * undecided, with structured (JSON) output. Any failure — endpoint error,
 * malformed JSON, a path outside the three — falls back to the pre-filter's
 * choice with low confidence, so routing never blocks an answer.
 */
import { parseReplyJson } from '../llm/json.js';
import type { CompletionModel } from '../llm/complete.js';
import type { ClassifierRequest, ClassifierVerdict, RouterClassifier, RoutePath } from './router.js';

const PATHS: readonly RoutePath[] = ['rules', 'database', 'both'];

export const ROUTER_SYSTEM_PROMPT = [
  'You route questions about EU drone (UAS) regulation for an assistant with two sources:',
  '- "rules": the regulatory text (AMC/GM to Regulation (EU) 2019/947, SORA 2.5, PDRAs) — definitions, requirements, procedures, explanations;',
  '- "database": the SORA tables as data — a lookup or calculation such as the iGRC from dimension, speed and population density, the final GRC after mitigations, the SAIL from GRC and residual ARC, TMPR, containment or OSO robustness;',
  '- "both": a calculation plus the text explaining or qualifying it.',
  'Consider the conversation: a short follow-up ("and for ARC-d?") continues the previous path.',
  'Return exactly one JSON object: {"path": "rules" | "database" | "both", "confidence": number between 0 and 1, "reasoning": "one short sentence"}. No other text.',
].join('\n');

/** The verdict's JSON schema: the model's reply is constrained to it (response_format); parseRouterVerdict still checks it. */
export const ROUTER_VERDICT_SCHEMA = {
  type: 'object',
  properties: {
    path: { type: 'string', enum: [...PATHS] },
    confidence: { type: 'number', minimum: 0, maximum: 1 },
    reasoning: { type: 'string', maxLength: 300 },
  },
  required: ['path', 'confidence', 'reasoning'],
} as const;

export function routerMessages(req: ClassifierRequest): { role: 'system' | 'user'; content: string }[] {
  const recent = req.history.slice(-4).map((t) => `${t.role}${t.path ? ` (${t.path})` : ''}: ${t.content.slice(0, 400)}`);
  const cues = req.prefilter.cues;
  return [
    { role: 'system', content: ROUTER_SYSTEM_PROMPT },
    {
      role: 'user',
      content: [
        recent.length ? `Conversation so far:\n${recent.join('\n')}` : 'Conversation so far: (none)',
        `Pre-filter: calculation targets [${cues.calcTargets.join(', ')}], inputs [${cues.calcInputs.join(', ')}], path probabilities rules ${cues.probabilities.rules.toFixed(2)}, database ${cues.probabilities.database.toFixed(2)}, both ${cues.probabilities.both.toFixed(2)}`,
        `Message to route: ${req.message}`,
      ].join('\n\n'),
    },
  ];
}

/** Parse the model's JSON verdict; null when it is not a valid verdict. */
export function parseRouterVerdict(text: string): ClassifierVerdict | null {
  const v = parseReplyJson(text)?.value;
  if (!v || typeof v.path !== 'string' || !PATHS.includes(v.path as RoutePath)) return null;
  const confidence = typeof v.confidence === 'number' && v.confidence >= 0 && v.confidence <= 1 ? v.confidence : 0.6;
  const reasoning = typeof v.reasoning === 'string' ? v.reasoning.slice(0, 300) : '';
  return { path: v.path as RoutePath, confidence, reasoning };
}

export function createLlmRouterClassifier(model: CompletionModel, options: { signal?: AbortSignal } = {}): RouterClassifier {
  return {
    async classify(req) {
      const fallback = (why: string): ClassifierVerdict => ({
        path: req.prefilter.decision.path,
        confidence: Math.min(req.prefilter.decision.confidence, 0.5),
        reasoning: `model verdict unusable (${why}); kept the pre-filter's default`,
      });
      let text: string;
      try {
        text = await model.complete(routerMessages(req), {
          temperature: 0,
          top_p: 1,
          max_tokens: 120,
          schema: ROUTER_VERDICT_SCHEMA,
          ...(options.signal ? { signal: options.signal } : {}),
        });
      } catch (e) {
        return fallback((e as Error).message);
      }
      return parseRouterVerdict(text) ?? fallback('not a JSON verdict with a known path');
    },
  };
}
