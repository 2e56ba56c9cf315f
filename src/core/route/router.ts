/**
 * Message router: sends each chat message to `rules` (answered from regulatory text), `database`
 * (a table lookup or calculation) or `both`.
 *
 * The first-turn decision is the learned model of `route-model.ts`: a logistic regression over the
 * message's words and what the calculator's own extractor (`extract.ts`) reads from it, trained
 * by `npm run train:router` on model-written questions (passage questions for `rules`, table
 * questions for `database` / `both`) and template questions written from the calculator's tables —
 * no pattern is written from a routing file.
 * Follow-ups inherit the path of the previous user turn: a message that opens like one ("and for
 * ARC-d?", "what if…"), refers back to the same operation ("same drone but…"), or only changes
 * calculation inputs without asking for anything new — whatever its length.
 * A message the model is unsure of (no class above {@link DECIDED_PROBABILITY}) goes to an optional
 * {@link RouterClassifier}: the LLM classifier of `router-classifier.ts` (the Ask view uses it when
 * a model is loaded).
 */
import { extractOperation, statesIgrc, type Extraction, type InputKind } from '../sora/extract.js';
import { extractJurisdictions } from './jurisdictions.js';
import { parseRouteModel, predictRoute, ROUTE_CLASSES, type RouteClass, type RouteModel } from './route-model.js';
import routeModelFile from './route-model.json';

export type RoutePath = RouteClass;
export const ROUTE_PATHS: readonly RoutePath[] = ROUTE_CLASSES;

export interface ChatTurn {
  readonly role: 'user' | 'assistant';
  readonly content: string;
  /** The path this turn was routed to, when known (user turns). */
  readonly path?: RoutePath;
}

export interface RouteDecision {
  readonly path: RoutePath;
  /** 0–1. */
  readonly confidence: number;
  /** ISO 3166-1 alpha-2 codes or "EU"; [] = no jurisdiction filter. */
  readonly jurisdictions: readonly string[];
  readonly reasoning: string;
}

/** What the pre-filter saw. */
export interface PrefilterResult {
  readonly decision: RouteDecision;
  /** False when the cues are too weak; a classifier should decide. */
  readonly decided: boolean;
  readonly cues: {
    /** Table outputs the calculator's extractor found named. */
    readonly calcTargets: readonly string[];
    /** Table inputs the extractor read. */
    readonly calcInputs: readonly string[];
    /** The learned model's probability of each path. */
    readonly probabilities: Readonly<Record<RoutePath, number>>;
    readonly followUpOf?: RoutePath;
  };
  /** The calculator extractor's reading of the message (targets, parameters), so a turn reads it once. */
  readonly operation: ReturnType<typeof extractOperation>;
}

export interface ClassifierRequest {
  readonly message: string;
  readonly history: readonly ChatTurn[];
  readonly prefilter: PrefilterResult;
}

export interface ClassifierVerdict {
  readonly path: RoutePath;
  readonly confidence: number;
  readonly reasoning: string;
}

/** Classifier for messages the pre-filter cannot decide: `createLlmRouterClassifier` (router-classifier.ts) over a local LLM. */
export interface RouterClassifier {
  classify(request: ClassifierRequest): Promise<ClassifierVerdict>;
}

/** A first-turn message is decided when the model gives one path more than this probability (a majority). */
export const DECIDED_PROBABILITY = 0.5;

let model: RouteModel | null = null;
/** The shipped route model (parsed and checked once). */
export function routeModel(): RouteModel {
  return (model ??= parseRouteModel(routeModelFile));
}

const INPUT_NAMES: Readonly<Record<InputKind, string>> = {
  dimension: 'UA dimension',
  speed: 'speed',
  mass: 'mass',
  population: 'population density',
  residual_arc: 'ARC value',
  mitigation: 'mitigation level',
  grc: 'GRC value',
  sail: 'SAIL value',
  oso: 'OSO number',
};

/**
 * Whether a message asks for a table value or gives one to read a table with: it names a table output,
 * states an iGRC, or gives any input the extractor reads other than an area's description (a size, a
 * speed, a mass, a density as a number, an ARC, a GRC, a SAIL, an OSO, a mitigation with its level).
 * A message whose only table term is an area's description — "What is a controlled ground area?",
 * "Can PDRA-S02 be used over a populated area?" — asks about the term, and the text answers it.
 */
export function readsTableValue(ex: Pick<Extraction, 'targets' | 'inputs' | 'params'>, text: string): boolean {
  if (ex.targets.length || statesIgrc(text)) return true;
  if (ex.inputs.some((k) => k !== 'population')) return true;
  return ex.params.population !== undefined && !ex.params.populationDescriptor;
}

/** A follow-up opening ("and for ARC-d?", "what about SAIL IV?", "what if we fly at night instead?"). */
const FOLLOW_UP_OPENING =
  /^\s*(?:and|also|what\s+about|how\s+about|same\s+(?:for|with|but)|but\s+(?:for|with|if|what)|now\s+(?:for|with)|and\s+if|what\s+if|suppose|assume|then|in\s+that\s+case|ok(?:ay)?,?\s+(?:and|now|what|but))\b/i;
/** A reference back to the operation or question of the previous turn. */
const REFERS_BACK =
  /\b(?:(?:the\s+)?same\s+(?:drone|UA|UAS|aircraft|operation|flight|mission|case|setup|set-up|scenario|area|one)|(?:that|this|these|those)\s+(?:drone|UA|UAS|aircraft|operation|flight|mission|case|scenario|one)|instead|as\s+before|previous(?:ly)?|above)\b/i;

function wordCount(text: string): number {
  return text.trim().split(/\s+/).filter(Boolean).length;
}

/** Path of the previous user turn: its recorded path, or the pre-filter's verdict on it. */
function previousUserPath(history: readonly ChatTurn[]): RoutePath | undefined {
  for (let i = history.length - 1; i >= 0; i--) {
    const turn = history[i];
    if (turn?.role !== 'user') continue;
    return turn.path ?? prefilterRoute(turn.content, history.slice(0, i)).decision.path;
  }
  return undefined;
}

/**
 * Keyword and pattern pre-filter. Always returns a decision; `decided` is false when a classifier
 * should be consulted.
 */
export function prefilterRoute(message: string, history: readonly ChatTurn[] = []): PrefilterResult {
  const text = message.normalize('NFKC');
  const ex = extractOperation(text);
  const calcTargets = ex.targets.map((t) => `names ${t}`);
  const calcInputs = ex.inputs.map((k) => INPUT_NAMES[k]);
  const predicted = predictRoute(routeModel(), text, ex);
  const { probabilities, gated } = predicted;
  // a table path for a message that neither asks for a table value nor gives one: the text answers
  const settled = predicted.path !== 'rules' && !readsTableValue(ex, text);
  const learned: RoutePath = settled ? 'rules' : predicted.path;
  const jurisdictions = extractJurisdictions(text);
  const cues = { calcTargets, calcInputs, probabilities };
  const pct = (p: number) => `${Math.round(100 * p)} %`;
  const describe = (extra: string) =>
    [
      calcTargets.length ? `asks for: ${calcTargets.join(', ').replace(/names /g, '')}` : '',
      calcInputs.length ? `parameters: ${calcInputs.join(', ')}` : '',
      `model: rules ${pct(probabilities.rules)}, database ${pct(probabilities.database)}, both ${pct(probabilities.both)}`,
      extra,
    ]
      .filter(Boolean)
      .join('; ');
  // what the model reads in the message: a request for text (an explanation or requirement) and a calculation with inputs
  const asksText = learned !== 'database';
  const isCalc = learned !== 'rules' && calcInputs.length > 0;

  // Follow-up: opens like one, refers back to the previous operation, or only changes inputs — with no request of its own.
  const previous = history.length > 0 ? previousUserPath(history) : undefined;
  const opening = FOLLOW_UP_OPENING.test(text);
  const refersBack = REFERS_BACK.test(text);
  // only changes calculation inputs: gives a value of one (a term of a table alone is a question of its own)
  const inputsOnly = calcTargets.length === 0 && readsTableValue(ex, text);
  const looksLikeFollowUp =
    previous !== undefined &&
    (opening || refersBack || inputsOnly) &&
    // a text request of its own makes it a new question, unless it is phrased as a follow-up
    (!asksText || opening || refersBack) &&
    // a fresh calculation request with its own inputs and no link back is a new question
    !(isCalc && calcTargets.length > 0 && !opening && !refersBack && wordCount(text) > 12);
  if (looksLikeFollowUp && previous) {
    const calcPrev = previous !== 'rules';
    const path: RoutePath =
      previous === 'rules' && isCalc ? 'both' : calcPrev && learned === 'rules' && !inputsOnly && calcTargets.length === 0 ? 'both' : previous;
    return {
      decision: { path, confidence: 0.8, jurisdictions, reasoning: describe(`follow-up of a ${previous} question`) },
      decided: true,
      cues: { ...cues, followUpOf: previous },
      operation: ex,
    };
  }
  if (settled) {
    return {
      decision: {
        path: 'rules',
        confidence: probabilities.rules + probabilities[predicted.path],
        jurisdictions,
        reasoning: describe(`no table value asked for or given (the model said ${predicted.path})`),
      },
      decided: wordCount(text) >= 2,
      cues,
      operation: ex,
    };
  }
  // the extractor gate (inputs and an output read) settles "a table value is asked for"; what is left open is whether text is asked for too
  const confidence = gated ? probabilities[learned] / (probabilities.database + probabilities.both) : probabilities[learned];
  const why = gated
    ? 'table lookup (the calculator reads its inputs and output)'
    : learned === 'database'
      ? 'table lookup or calculation'
      : learned === 'both'
        ? 'calculation and explanation'
        : 'explanation or requirement';
  return {
    decision: { path: learned, confidence, jurisdictions, reasoning: describe(why) },
    decided: (gated || confidence > DECIDED_PROBABILITY) && wordCount(text) >= 2,
    cues,
    operation: ex,
  };
}

/**
 * Routes a chat message. The pre-filter decides clear cases; otherwise the classifier (when given)
 * decides, and the pre-filter's jurisdictions are kept.
 */
export async function routeMessage(message: string, history: readonly ChatTurn[] = [], classifier?: RouterClassifier): Promise<RouteDecision> {
  return (await routeTurn(message, history, classifier)).decision;
}

/**
 * A turn's routing, done once: the decision, and the pre-filter it came from (its cues — a
 * follow-up of which path — and the calculator extractor's reading of the message).
 */
export async function routeTurn(
  message: string,
  history: readonly ChatTurn[] = [],
  classifier?: RouterClassifier,
): Promise<{ decision: RouteDecision; prefilter: PrefilterResult }> {
  const prefilter = prefilterRoute(message, history);
  if (prefilter.decided || !classifier) return { decision: prefilter.decision, prefilter };
  const verdict = await classifier.classify({ message, history, prefilter });
  return {
    decision: {
      path: verdict.path,
      confidence: verdict.confidence,
      jurisdictions: prefilter.decision.jurisdictions,
      reasoning: `classifier: ${verdict.reasoning}`,
    },
    prefilter,
  };
}
