/**
 * Message router: sends each chat message to `rules` (answered from regulatory text), `database`
 * (a table lookup or calculation) or `both`.
 *
 * A keyword-and-pattern pre-filter decides clear cases from general regulatory vocabulary:
 *  - calculation = a requested table output (iGRC, final GRC, SAIL, TMPR, containment, OSO
 *    robustness, mitigation credit) together with parameters, read by the calculator's own
 *    extractor (`extract.ts`: sizes, speeds, masses and densities in common units, the density
 *    words of SORA Table 2, "GRC 4", "ARC-c", "SAIL II", "M2 high", "OSO #5");
 *  - explanation/requirement = why, meaning, definitions, who/when/how-should questions,
 *    permissions, obligations, scope, compliance activities; also a first-person operation
 *    described in qualitative terms (farmland, BVLOS, suburban…) that the text must map onto the
 *    table inputs;
 *  - `both` = the two together.
 * Follow-ups inherit the path of the previous user turn: a message that opens like one ("and for
 * ARC-d?", "what if…"), refers back to the same operation ("same drone but…"), or only changes
 * calculation inputs without asking for anything new — whatever its length.
 * The few choices the cues leave open are a {@link RouterPolicy}; `router-cv.ts` estimates the
 * accuracy of choosing them with K-fold cross-validation.
 * Undecided messages go to an optional {@link RouterClassifier}: the LLM classifier of
 * `router-classifier.ts` (the Ask view uses it when a model is loaded).
 */
import { extractOperation, type InputKind } from './extract.js';
import { extractJurisdictions } from './jurisdictions.js';

export type RoutePath = 'rules' | 'database' | 'both';
export const ROUTE_PATHS: readonly RoutePath[] = ['rules', 'database', 'both'];

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
    readonly calcTargets: readonly string[];
    readonly calcInputs: readonly string[];
    readonly explain: readonly string[];
    readonly followUpOf?: RoutePath;
  };
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

interface Cue {
  readonly name: string;
  readonly re: RegExp;
}

/**
 * The choices the cues leave open (each value written before any evaluation; which one is used
 * is the tunable part `router-cv.ts` cross-validates):
 *  - `targets`: a requested table output is a phrase pattern ("what SAIL", "iGRC for…": `cues`),
 *    any table output named without a value of its own (`named`), or either (`union`);
 *  - `inputs`: calculation inputs are what the calculator's extractor reads (`extractor`), the
 *    generic number-with-unit patterns (`cues`), or either (`union`);
 *  - `qualitative`: when a first-person operation described in qualitative terms (farmland,
 *    BVLOS, suburban…) adds an explanation cue (the text must map it onto the table inputs):
 *    `always`, only when the extractor could not read a population from it (`unread`: Table 2's
 *    descriptors are data the calculator reads), or `never`;
 *  - `weakExplain`: the compliance-activity and example/guidance words count as explanation cues.
 */
export interface RouterPolicy {
  readonly targets: 'cues' | 'named' | 'union';
  readonly inputs: 'extractor' | 'cues' | 'union';
  readonly qualitative: 'always' | 'unread' | 'never';
  readonly weakExplain: boolean;
}

export const DEFAULT_ROUTER_POLICY: RouterPolicy = { targets: 'union', inputs: 'extractor', qualitative: 'unread', weakExplain: true };

/** Every policy, the default first (cross-validation keeps the earlier one on ties). */
export function routerPolicies(): RouterPolicy[] {
  const out: RouterPolicy[] = [DEFAULT_ROUTER_POLICY];
  for (const targets of ['union', 'cues', 'named'] as const)
    for (const inputs of ['extractor', 'union', 'cues'] as const)
      for (const qualitative of ['unread', 'always', 'never'] as const)
        for (const weakExplain of [true, false]) {
          const p = { targets, inputs, qualitative, weakExplain };
          if (!out.some((o) => JSON.stringify(o) === JSON.stringify(p))) out.push(p);
        }
  return out;
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

const TARGET = String.raw`(?:final\s+|intrinsic\s+|initial\s+|residual\s+)?(?:i?GRC|iARC|ARC|SAIL|TMPR|containment(?:\s+robustness|\s+level)?|ground\s+risk\s+class|air\s+risk\s+class|OSOs?|robustness(?:\s+level)?)`;

/** Cues that a table output is being asked for. */
const CALC_TARGET_CUES: readonly Cue[] = [
  { name: 'what/which <table output>', re: new RegExp(String.raw`\b(?:what|which)\s+(?:(?:is|are|would\s+be|will\s+be)\s+)?(?:(?:the|my|our|its)\s+)?(?:resulting\s+|required\s+|applicable\s+)?${TARGET}\b`, 'i') },
  { name: '<table output> for/of/with …', re: new RegExp(String.raw`\b${TARGET}\s+(?:for|of|with|at|please|from)\b`, 'i') },
  { name: '<table output> please', re: new RegExp(String.raw`[—–,:-]\s*${TARGET}\s*(?:please|\?)`, 'i') },
  { name: 'how much/many credit', re: /\bhow\s+(?:much|many)\s+(?:GRC\s+)?(?:credit|reduction|points?|GRC)\b/i },
  { name: 'calculate/determine', re: new RegExp(String.raw`\b(?:calculate|compute|work\s+out|look\s+up|determine|find)\b[^?.]{0,30}\b${TARGET}`, 'i') },
  { name: 'what … do we land on / get', re: new RegExp(String.raw`\bwhat\s+${TARGET}\b[^?.]{0,40}\b(?:get|land|end\s+up|results?|applies|apply|need)\b`, 'i') },
];

/** Parameters of a calculation. */
const CALC_INPUT_CUES: readonly Cue[] = [
  { name: 'number with unit', re: /\b\d+(?:[.,]\d+)?\s*(?:m\/s|km\/h|kts?|knots|kg|g|m|cm|mm|ft|people\/km2?|people\s+per\s+km2?|\/km2|km2)(?![\p{L}])/iu },
  { name: 'GRC value', re: /\b(?:i|final\s+|intrinsic\s+)?GRC\s*(?:of\s*|=\s*|:\s*)?\d{1,2}\b/i },
  { name: 'ARC value', re: /\bARC\s*[-–]?\s*[a-d]\b/i },
  { name: 'SAIL value', re: /\bSAIL\s*(?:VI|V|IV|III|II|I|[1-6])(?![\p{L}])/u },
  { name: 'mitigation level', re: /\b(?:(?:low|medium|high)\s+(?:robustness\s+)?(?:M1\s*\(?[ABC]\)?|M2)|(?:M1\s*\(?[ABC]\)?|M2)\s+(?:at\s+|with\s+|of\s+)?(?:low|medium|high))\b/i },
  { name: 'OSO number', re: /\bOSO\s*#?\s*\d{1,2}\b/i },
  { name: 'population band', re: /(?:[<>]\s*\d[\d\s]*\s*(?:people|ppl|inhabitants|\/km)|controlled ground area\b.*\b(?:iGRC|GRC)\b)/i },
];

/** Explanation / requirement cues. */
const EXPLAIN_CUES: readonly Cue[] = [
  { name: 'why', re: /\bwhy\b/i },
  { name: 'meaning', re: /\b(?:mean|means|meant|meaning)\b/i },
  { name: 'explain', re: /\b(?:explain|clarify|describe|elaborate)\b/i },
  { name: 'who', re: /\bwho(?:m|se)?\b/i },
  { name: 'how-question', re: /\bhow\s+(?:should|do|does|did|can|could|must|is|are|was|were|to|would)\b/i },
  { name: 'when-question', re: /\bwhen\s+(?:is|are|do|does|must|should|can|may|would|will)\b/i },
  { name: 'definition', re: /\b(?:what\s+(?:is|are)\s+(?:a|an)\b|defin(?:e|ed|ition)|difference\s+between)/i },
  { name: 'permission', re: /\b(?:can|may|could)\s+(?:I|we|one|the\s+operator)\b|\b(?:am\s+I|are\s+we|is\s+it)\s+(?:allowed|permitted|possible|necessary|mandatory)\b/i },
  { name: 'obligation', re: /\b(?:must|shall|obligations?|requirements?|responsib\w*|mandatory)\b|\bdo\s+(?:I|we|they)\s+(?:need|have)\s+to\b|\b(?:do|does)\s+(?:[\p{L}-]+\s+){0,3}need\b/iu },
  { name: 'scope / applicability', re: /\b(?:scope|applicab\w*|exempt\w*|covered\s+by)\b/i },
  { name: 'classification', re: /\b(?:count(?:s|ed)?\s+as|considered|qualif(?:y|ies)\s+as|regarded\s+as)\b/i },
  { name: 'compliance activity', re: /\b(?:check|checks|verify|validate|demonstrate|document|evidence|consider|assess|evaluate|measured|audit)\b/i },
  { name: 'list of criteria', re: /\bwhat\s+(?:are|were)\s+the\b[^?]*\b(?:factors|criteria|conditions|steps|elements|principles|limitations|procedures|contents?)\b/i },
  { name: 'example / guidance', re: /\b(?:examples?|guidance|procedure|best\s+practice)\b/i },
];

const WEAK_EXPLAIN = new Set(['compliance activity', 'example / guidance']);

/** A first-person operation described in qualitative terms: the text must map it onto table inputs. */
const NARRATIVE = /\b(?:we|I)\s+(?:fly|operate|plan|will|want|intend|are\s+going)\b|\b(?:my|our)\s+(?:\d[\d.,]*\s*(?:m|kg|g)\b|drone|UA|UAS|operation|aircraft|multi\w*|quad\w*|survey|fixed[- ]wing|helicopter|VTOL)/i;
const QUALITATIVE_SETTING = /\b(?:BVLOS|VLOS|EVLOS|farmland|rural|suburban|urban|city|town|village|forest|industrial|residential|remote|sparsely|populated|crowd|assembl\w*|sea|coast\w*|motorway|railway|power\s*lines?)\b/i;

/** A follow-up opening ("and for ARC-d?", "what about SAIL IV?", "what if we fly at night instead?"). */
const FOLLOW_UP_OPENING = /^\s*(?:and|also|what\s+about|how\s+about|same\s+(?:for|with|but)|but\s+(?:for|with|if|what)|now\s+(?:for|with)|and\s+if|what\s+if|suppose|assume|then|in\s+that\s+case|ok(?:ay)?,?\s+(?:and|now|what|but))\b/i;
/** A reference back to the operation or question of the previous turn. */
const REFERS_BACK = /\b(?:(?:the\s+)?same\s+(?:drone|UA|UAS|aircraft|operation|flight|mission|case|setup|set-up|scenario|area|one)|(?:that|this|these|those)\s+(?:drone|UA|UAS|aircraft|operation|flight|mission|case|scenario|one)|instead|as\s+before|previous(?:ly)?|above)\b/i;

function matches(cues: readonly Cue[], text: string): string[] {
  return cues.filter((c) => c.re.test(text)).map((c) => c.name);
}

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
export function prefilterRoute(message: string, history: readonly ChatTurn[] = [], policy: RouterPolicy = DEFAULT_ROUTER_POLICY): PrefilterResult {
  const text = message.normalize('NFKC');
  const ex = extractOperation(text);
  const cueTargets = matches(CALC_TARGET_CUES, text);
  const namedTargets = ex.targets.map((t) => `names ${t}`);
  const calcTargets = policy.targets === 'cues' ? cueTargets : policy.targets === 'named' ? namedTargets : [...cueTargets, ...(cueTargets.length ? [] : namedTargets)];
  const cueInputs = matches(CALC_INPUT_CUES, text);
  const extracted = ex.inputs.map((k) => INPUT_NAMES[k]);
  const calcInputs = policy.inputs === 'cues' ? cueInputs : policy.inputs === 'extractor' ? extracted : [...new Set([...extracted, ...cueInputs])];
  const explain = matches(EXPLAIN_CUES, text).filter((n) => policy.weakExplain || !WEAK_EXPLAIN.has(n));
  const isCalc = calcTargets.length > 0 && calcInputs.length > 0;
  const qualitative = policy.qualitative === 'always' || (policy.qualitative === 'unread' && !ex.inputs.includes('population'));
  if (qualitative && isCalc && NARRATIVE.test(text) && QUALITATIVE_SETTING.test(text)) explain.push('own operation described qualitatively');
  const jurisdictions = extractJurisdictions(text);
  const cues = { calcTargets, calcInputs, explain };
  const describe = (extra: string) =>
    [
      calcTargets.length ? `asks for: ${calcTargets.join(', ')}` : '',
      calcInputs.length ? `parameters: ${calcInputs.join(', ')}` : '',
      explain.length ? `explanation cues: ${explain.join(', ')}` : '',
      extra,
    ]
      .filter(Boolean)
      .join('; ');

  // Follow-up: opens like one, refers back to the previous operation, or only changes inputs — with no request of its own.
  const previous = history.length > 0 ? previousUserPath(history) : undefined;
  const opening = FOLLOW_UP_OPENING.test(text);
  const refersBack = REFERS_BACK.test(text);
  const inputsOnly = calcInputs.length > 0 && calcTargets.length === 0;
  const looksLikeFollowUp =
    previous !== undefined &&
    (opening || refersBack || inputsOnly) &&
    // an explanation request of its own makes it a new question, unless it is phrased as a follow-up
    (explain.length === 0 || opening || refersBack) &&
    // a fresh calculation request with its own inputs and no link back is a new question
    !(isCalc && !opening && !refersBack && wordCount(text) > 12);
  if (looksLikeFollowUp && previous) {
    const calcPrev = previous !== 'rules';
    const path: RoutePath =
      previous === 'rules' && isCalc ? 'both' : calcPrev && explain.length > 0 && !isCalc && !inputsOnly ? 'both' : previous;
    return {
      decision: { path, confidence: 0.8, jurisdictions, reasoning: describe(`follow-up of a ${previous} question`) },
      decided: true,
      cues: { ...cues, followUpOf: previous },
    };
  }

  if (isCalc && explain.length > 0) {
    return { decision: { path: 'both', confidence: 0.8, jurisdictions, reasoning: describe('calculation and explanation') }, decided: true, cues };
  }
  if (isCalc) {
    const confidence = Math.min(0.95, 0.8 + 0.05 * (calcTargets.length + calcInputs.length - 1));
    return { decision: { path: 'database', confidence, jurisdictions, reasoning: describe('table lookup or calculation') }, decided: true, cues };
  }
  if (explain.length > 0) {
    // A table output named without parameters ("How is the SAIL determined?") is still a text question.
    const confidence = calcTargets.length > 0 ? 0.7 : Math.min(0.95, 0.75 + 0.05 * explain.length);
    return { decision: { path: 'rules', confidence, jurisdictions, reasoning: describe('explanation or requirement') }, decided: true, cues };
  }
  // No explanation cue and no complete calculation: default to the regulatory text, undecided.
  return {
    decision: { path: 'rules', confidence: calcTargets.length + calcInputs.length > 0 ? 0.45 : 0.55, jurisdictions, reasoning: describe('no decisive cue; defaulting to the regulatory text') },
    decided: calcTargets.length + calcInputs.length === 0 && wordCount(text) >= 4,
    cues,
  };
}

/**
 * Routes a chat message. The pre-filter decides clear cases; otherwise the classifier (when given)
 * decides, and the pre-filter's jurisdictions are kept.
 */
export async function routeMessage(
  message: string,
  history: readonly ChatTurn[] = [],
  classifier?: RouterClassifier,
): Promise<RouteDecision> {
  const prefilter = prefilterRoute(message, history);
  if (prefilter.decided || !classifier) return prefilter.decision;
  const verdict = await classifier.classify({ message, history, prefilter });
  return {
    path: verdict.path,
    confidence: verdict.confidence,
    jurisdictions: prefilter.decision.jurisdictions,
    reasoning: `classifier: ${verdict.reasoning}`,
  };
}
