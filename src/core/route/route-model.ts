/**
 * The router's learned model: a multinomial logistic regression over the words of a message
 * (unigrams and bigrams, numbers folded to "#") and what the calculator's extractor reads from it
 * (the table inputs it found, the table outputs it names). It is trained by `npm run train:router`
 * on model-written questions — the passage questions of `synthetic-questions.jsonl` for
 * `rules`, and the table questions of `route-questions.jsonl` for `database` and `both` — and on
 * template questions written from the calculator's typed tables (`corpus-build/synth/route-templates.ts`),
 * never on evaluation questions. Pure functions: featurize, train, predict; the weights are a JSON file
 * (`route-model.json`) shipped with the app.
 */
import { extractOperation, type Extraction } from '../sora/extract.js';
import { SkyCiteError } from '../errors.js';

/** A route-model file this version cannot read (rebuild it with `npm run train:router`). */
export class RouteModelError extends SkyCiteError {
  override name = 'RouteModelError';
  override readonly code = 'route-model';
}

export const ROUTE_CLASSES = ['rules', 'database', 'both'] as const;
export type RouteClass = (typeof ROUTE_CLASSES)[number];

/**
 * How the classes are modelled:
 *  - `multinomial`: one softmax over rules / database / both;
 *  - `factored`: two independent yes/no heads — does the message ask for a table value (calc) and
 *    does it ask for text (an explanation or requirement) — with database = calc and no text,
 *    both = calc and text, rules = no calc. `both` questions then teach both heads.
 */
export type RouteModelKind = 'multinomial' | 'factored';

export interface RouteModel {
  readonly formatVersion: 1;
  readonly kind: RouteModelKind;
  /**
   * When the calculator's extractor reads both table inputs and a table output it names, the
   * message asks for a table value: the path is `database` or `both`, whichever the model finds
   * more probable.
   */
  readonly extractorGate: boolean;
  /** Which features it reads (absent: `words`, the model files before clause features). */
  readonly features?: RouteFeatureSet;
  /** What it was trained on (file hashes, counts, settings), for the record. */
  readonly trainedOn: Record<string, unknown>;
  readonly classes: readonly RouteClass[];
  /** One value per class (multinomial) or per head: [calc, text] (factored). */
  readonly bias: readonly number[];
  /** feature → one weight per class or head. */
  readonly weights: Readonly<Record<string, readonly number[]>>;
}

export interface RouteExample {
  readonly text: string;
  readonly path: RouteClass;
}

/**
 * - `words`: the message's words and word pairs, and what the calculator's extractor reads in it;
 * - `clauses`: the same, and the message's clauses (split at "?", ";", a dash, ", and what …"): how many
 *   of them the extractor reads a table input or output in, how many ask for something else, and the
 *   words of those others (`t:`), so that a request for text beside a value request is seen as such.
 */
export type RouteFeatureSet = 'words' | 'clauses';

/** Options of {@link trainRouteModel}, with their defaults. */
export interface RouteTrainOptions {
  /** L2 penalty per example (default 1e-3). */
  readonly l2: number;
  /** Full-batch gradient steps (default 300). */
  readonly epochs: number;
  /** Step size (default 0.5; AdaGrad-scaled per weight). */
  readonly rate: number;
  /** A word feature seen in fewer training questions is dropped (default 2). */
  readonly minCount: number;
  /** Model kind (default `multinomial`; `npm run train:router` cross-validates both). */
  readonly kind: RouteModelKind;
  /** {@link RouteModel.extractorGate} (default true; cross-validated too). */
  readonly extractorGate: boolean;
  /** {@link RouteFeatureSet} (default `clauses`, chosen by `npm run cv:router`; docs/router.md). */
  readonly features: RouteFeatureSet;
}

export const DEFAULT_ROUTE_TRAIN: RouteTrainOptions = {
  l2: 1e-2,
  epochs: 300,
  rate: 0.5,
  minCount: 2,
  kind: 'multinomial',
  extractorGate: true,
  features: 'clauses',
};

const sigmoid = (z: number) => 1 / (1 + Math.exp(-z));

const tokens = (text: string): string[] =>
  (
    text
      .normalize('NFKC')
      .toLowerCase()
      .match(/[\p{L}\p{N}]+(?:[.,'’-][\p{L}\p{N}]+)*/gu) ?? []
  ).map((t) => (/\d/.test(t) ? '#' : t));

/**
 * A message's clauses: split at a question mark, a semicolon, a dash between spaces, a sentence
 * end, and before "and" / "also" that opens a new request ("…, and what must …", "… and explain …").
 */
export function messageClauses(text: string): string[] {
  return text
    .normalize('NFKC')
    .split(
      /[?;]|\s[—–-]\s|[.!](?=\s+\p{Lu})|,?\s+(?:and|also|plus)\s+(?=(?:what|which|how|why|who|when|where|whether|is|are|does|do|can|could|must|should|may|explain|tell|describe|give|list|show)\b)|\b(?:also|and\s+also)\b,?/iu,
    )
    .map((c) => c.trim())
    .filter((c) => /\p{L}{2}/u.test(c));
}

/** Words that only ask (they say nothing of what is asked for). */
const CLAUSE_STOP = new Set(['the', 'a', 'an', 'of', 'to', 'for', 'in', 'on', 'at', 'and', 'or', 'is', 'it', 'that', 'this', 'me', 'i', 'we', 'my', 'our']);

/** `c:` clause features: how many clauses ask for a table value (the extractor reads an output, or two inputs, in them), how many do not, and the latter's words (`t:`). */
function clauseFeatures(text: string, out: Set<string>): void {
  const clauses = messageClauses(text);
  let calc = 0;
  let other = 0;
  for (const c of clauses) {
    const ex = extractOperation(c);
    // a value request names a table output, or gives the inputs of one; a clause with one term of a table and no output may ask what it means
    if (ex.targets.length || ex.inputs.length > 1) {
      calc++;
      continue;
    }
    other++;
    for (const t of tokens(c)) if (t !== '#' && !CLAUSE_STOP.has(t)) out.add(`t:${t}`);
  }
  out.add(`c:n:${Math.min(clauses.length, 3)}`);
  out.add(`c:calc:${Math.min(calc, 2)}`);
  out.add(`c:other:${Math.min(other, 2)}`);
  if (calc && other) out.add('c:calc+other');
}

/** Features of a message: `w:` words, `b:` word pairs, `x:` what the extractor read; with `clauses`, `c:` and `t:` clause features. */
export function routeFeatures(text: string, ex: Extraction = extractOperation(text), set: RouteFeatureSet = 'words'): string[] {
  const t = tokens(text);
  const out = new Set<string>();
  for (let i = 0; i < t.length; i++) {
    out.add(`w:${t[i]}`);
    if (i > 0) out.add(`b:${t[i - 1]} ${t[i]}`);
  }
  for (const k of ex.inputs) out.add(`x:in:${k}`);
  for (const k of ex.targets) out.add(`x:out:${k}`);
  out.add(`x:inputs:${Math.min(ex.inputs.length, 2)}`);
  if (ex.inputs.length && ex.targets.length) out.add('x:inputs+output');
  if (set === 'clauses') clauseFeatures(text, out);
  return [...out];
}

function softmax(z: number[]): number[] {
  const m = Math.max(...z);
  const e = z.map((v) => Math.exp(v - m));
  const s = e.reduce((a, b) => a + b, 0);
  return e.map((v) => v / s);
}

/** rules / database / both from P(calc) and P(text). */
function factoredProbabilities(calc: number, text: number): number[] {
  return [1 - calc, calc * (1 - text), calc * text];
}

/** Class probabilities for a message (`ex`: the extractor's reading of it, when the caller already has it), in `model.classes` order. */
export function predictRoute(
  model: RouteModel,
  text: string,
  ex: Extraction = extractOperation(text),
): { path: RouteClass; probabilities: Record<RouteClass, number>; gated: boolean } {
  const z = [...model.bias];
  for (const f of routeFeatures(text, ex, model.features ?? 'words')) {
    const w = model.weights[f];
    if (w) for (let c = 0; c < z.length; c++) z[c]! += w[c]!;
  }
  const p = model.kind === 'factored' ? factoredProbabilities(sigmoid(z[0]!), sigmoid(z[1]!)) : softmax(z);
  let best = 0;
  for (let c = 1; c < p.length; c++) if (p[c]! > p[best]!) best = c;
  const probabilities = Object.fromEntries(model.classes.map((c, i) => [c, p[i]!])) as Record<RouteClass, number>;
  // the gate settles "a table value is asked for": the choice left is whether text is asked for too
  const gated = model.extractorGate && ex.inputs.length > 0 && ex.targets.length > 0;
  if (gated) return { path: probabilities.both > probabilities.database ? 'both' : 'database', probabilities, gated };
  return { path: model.classes[best]!, probabilities, gated };
}

/**
 * Trains the model: classes weighted to equal total weight (the sets differ in size), full-batch
 * gradient descent with AdaGrad steps and an L2 penalty. Deterministic for the same examples.
 */
export function trainRouteModel(
  examples: readonly RouteExample[],
  options: Partial<RouteTrainOptions> = {},
  trainedOn: Record<string, unknown> = {},
): RouteModel {
  const o = { ...DEFAULT_ROUTE_TRAIN, ...options };
  if (!examples.length) throw new RangeError('no training examples');
  const classes = ROUTE_CLASSES;
  const feats = examples.map((e) => routeFeatures(e.text, undefined, o.features));
  const count = new Map<string, number>();
  for (const fs of feats) for (const f of fs) count.set(f, (count.get(f) ?? 0) + 1);
  const vocab = [...count.keys()].filter((f) => /^[xc]:/.test(f) || count.get(f)! >= o.minCount).sort();
  const index = new Map(vocab.map((f, i) => [f, i]));
  const rows = feats.map((fs) => fs.map((f) => index.get(f)).filter((i): i is number => i !== undefined));
  const y = examples.map((e) => classes.indexOf(e.path));
  const perClass = classes.map((_, c) => y.filter((v) => v === c).length);
  const n = examples.length;
  // heads: the three classes (softmax), or calc = database|both and text = rules|both (two sigmoids)
  const K = o.kind === 'factored' ? 2 : classes.length;
  const targets: number[][] = y.map((c) => (o.kind === 'factored' ? [c === 0 ? 0 : 1, c === 1 ? 0 : 1] : classes.map((_, k) => (k === c ? 1 : 0))));
  // every head's positives and negatives (multinomial: every class) carry equal total weight
  const positives = [0, 1].map((h) => targets.filter((t) => t[h] === 1).length);
  const weightOf: number[][] =
    o.kind === 'factored'
      ? targets.map((t) =>
          t.map((v, h) => {
            const m = v === 1 ? positives[h]! : n - positives[h]!;
            return m ? n / (2 * m) : 0;
          }),
        )
      : y.map((c) => {
          const w = perClass[c]! ? n / (classes.length * perClass[c]!) : 0;
          return classes.map(() => w);
        });
  const W = new Float64Array(vocab.length * K);
  const b = new Float64Array(K);
  const gW2 = new Float64Array(vocab.length * K);
  const gb2 = new Float64Array(K);
  for (let epoch = 0; epoch < o.epochs; epoch++) {
    const gW = new Float64Array(vocab.length * K);
    const gb = new Float64Array(K);
    rows.forEach((r, i) => {
      const z = Array.from(b);
      for (const f of r) for (let c = 0; c < K; c++) z[c]! += W[f * K + c]!;
      const p = o.kind === 'factored' ? z.map(sigmoid) : softmax(z);
      for (let c = 0; c < K; c++) {
        const g = (weightOf[i]![c]! * (p[c]! - targets[i]![c]!)) / n;
        gb[c]! += g;
        for (const f of r) gW[f * K + c]! += g;
      }
    });
    for (let j = 0; j < W.length; j++) {
      const g = gW[j]! + o.l2 * W[j]!;
      gW2[j]! += g * g;
      if (gW2[j]! > 0) W[j]! -= (o.rate * g) / Math.sqrt(gW2[j]!);
    }
    for (let c = 0; c < K; c++) {
      gb2[c]! += gb[c]! * gb[c]!;
      if (gb2[c]! > 0) b[c]! -= (o.rate * gb[c]!) / Math.sqrt(gb2[c]!);
    }
  }
  const round = (v: number) => Math.round(v * 1000) / 1000;
  const weights: Record<string, number[]> = {};
  vocab.forEach((f, i) => {
    const w = Array.from(W.subarray(i * K, i * K + K), round);
    if (w.some((v) => v !== 0)) weights[f] = w;
  });
  return {
    formatVersion: 1,
    kind: o.kind,
    extractorGate: o.extractorGate,
    ...(o.features !== 'words' ? { features: o.features } : {}),
    trainedOn: { ...trainedOn, options: o, examples: n, perClass: Object.fromEntries(classes.map((c, i) => [c, perClass[i]])) },
    classes,
    bias: Array.from(b, round),
    weights,
  };
}

/** Checks a parsed route-model file; throws a message that names the fix. */
export function parseRouteModel(json: unknown): RouteModel {
  const m = json as Partial<RouteModel> | null;
  const fix = 'Rebuild it with `npm run train:router`.';
  if (!m || m.formatVersion !== 1) throw new RouteModelError(`route model: unknown format. ${fix}`);
  if (!Array.isArray(m.classes) || m.classes.join() !== ROUTE_CLASSES.join())
    throw new RouteModelError(`route model: classes must be ${ROUTE_CLASSES.join(', ')}. ${fix}`);
  if (typeof m.extractorGate !== 'boolean') throw new RouteModelError(`route model: extractorGate must be true or false. ${fix}`);
  if (m.features !== undefined && m.features !== 'words' && m.features !== 'clauses')
    throw new RouteModelError(`route model: features must be words or clauses. ${fix}`);
  if (m.kind !== 'multinomial' && m.kind !== 'factored') throw new RouteModelError(`route model: kind must be multinomial or factored. ${fix}`);
  const K = m.kind === 'factored' ? 2 : ROUTE_CLASSES.length;
  if (!Array.isArray(m.bias) || m.bias.length !== K) throw new RouteModelError(`route model: bias must have ${K} values. ${fix}`);
  if (!m.weights || typeof m.weights !== 'object') throw new RouteModelError(`route model: no weights. ${fix}`);
  for (const [f, w] of Object.entries(m.weights))
    if (!Array.isArray(w) || w.length !== K || w.some((v) => typeof v !== 'number' || !Number.isFinite(v)))
      throw new RouteModelError(`route model: bad weights for "${f}". ${fix}`);
  return m as RouteModel;
}
