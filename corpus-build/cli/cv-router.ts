/**
 * `npm run cv:router [-- --k 5] [--deals 1,2,3] [--only 'name;name'] [--held-out name]`
 *
 * Chooses the router's training data and setting on the engineer-written routing questions
 * (corpus-build/data/route-written.jsonl, split `cv`): a group-wise K-fold cross-validation over their
 * topics (a topic never straddles folds), on several deals of the topics to folds. In each fold the
 * model is trained on the model-written and template questions (train:router's data) plus, for the
 * variants that use them, the written `cv` questions of the other folds, and scored on the fold's
 * written questions. Nothing here reads an evaluation file.
 *
 * The rule, fixed before the first run: the variant with the highest mean CV accuracy is adopted
 * when it beats the shipped setting ("shipped") by more than one standard error of that accuracy;
 * among variants within one standard error of the best, the one listed first (the simpler) is taken.
 *
 * `--held-out name` then trains that variant on all of its data (the written `cv` questions
 * included when it uses them) and scores the written `held-out` questions once: the report figure.
 */
import { parseArgs } from 'node:util';
import { foldsOf } from '../../src/core/evaluation/cross-validation.js';
import {
  messageClauses,
  predictRoute,
  ROUTE_CLASSES,
  trainRouteModel,
  type RouteClass,
  type RouteExample,
  type RouteTrainOptions,
} from '../../src/core/route/route-model.js';
import { extractOperation } from '../../src/core/sora/extract.js';
import { readsTableValue } from '../../src/core/route/router.js';
import { modelWrittenQuestions, templateQuestions, writtenQuestions, type WrittenQuestion } from '../synth/route-training.js';

const { values } = parseArgs({
  options: {
    k: { type: 'string', default: '5' },
    deals: { type: 'string', default: '1,2,3' },
    only: { type: 'string' },
    'held-out': { type: 'string' },
    templates: { type: 'string', default: '10' },
    help: { type: 'boolean', short: 'h', default: false },
  },
});
if (values.help) {
  console.log("Usage: npm run cv:router [-- --k 5] [--deals 1,2,3] [--only 'name;…'] [--held-out name]");
  process.exit(0);
}

interface Variant {
  readonly name: string;
  /** Train on the written cv questions of the other folds. */
  readonly written: boolean;
  /** Each written question this many times in the training set (default 1): they are few, and their labels clean. */
  readonly repeat?: number;
  /**
   * Relabel the model-written `both` questions that ask for nothing besides the value (one clause, in which
   * the extractor reads a table term) as `database`: the writer model often dropped the question's second
   * half (docs/router.md), and such a question is a value question whatever it was meant to be.
   */
  readonly clean?: boolean;
  /** The router's rule on top of the model: a table path for a message that neither asks for a table value nor gives one goes to rules (router.ts readsTableValue). */
  readonly settle?: boolean;
  readonly options: Partial<RouteTrainOptions>;
}

/** In order of simplicity: the shipped setting first. */
const VARIANTS: readonly Variant[] = [
  { name: 'shipped', written: false, options: { kind: 'multinomial', l2: 1e-2, extractorGate: true, features: 'words' } },
  { name: 'written', written: true, options: { kind: 'multinomial', l2: 1e-2, extractorGate: true, features: 'words' } },
  { name: 'clauses', written: false, options: { kind: 'multinomial', l2: 1e-2, extractorGate: true, features: 'clauses' } },
  { name: 'written+clauses', written: true, options: { kind: 'multinomial', l2: 1e-2, extractorGate: true, features: 'clauses' } },
  { name: 'written+clauses, no gate', written: true, options: { kind: 'multinomial', l2: 1e-2, extractorGate: false, features: 'clauses' } },
  { name: 'written+clauses, L2 0.003', written: true, options: { kind: 'multinomial', l2: 3e-3, extractorGate: true, features: 'clauses' } },
  { name: 'written+clauses, L2 0.03', written: true, options: { kind: 'multinomial', l2: 3e-2, extractorGate: true, features: 'clauses' } },
  { name: 'written+clauses, factored', written: true, options: { kind: 'factored', l2: 1e-2, extractorGate: true, features: 'clauses' } },
  // added after the first run (its best was 0.941, below the 0.95 target), before any held-out question was read
  { name: 'written+clauses, clean', written: true, clean: true, options: { kind: 'multinomial', l2: 1e-2, extractorGate: true, features: 'clauses' } },
  { name: 'written×3+clauses', written: true, repeat: 3, options: { kind: 'multinomial', l2: 1e-2, extractorGate: true, features: 'clauses' } },
  {
    name: 'written×3+clauses, clean',
    written: true,
    repeat: 3,
    clean: true,
    options: { kind: 'multinomial', l2: 1e-2, extractorGate: true, features: 'clauses' },
  },
  // added after the model was trained: two router unit tests ("What is a sparsely populated area?" → rules) failed with it, the
  // error most left in its CV; the calculator already falls back to the text for such a message (issue 35, item 1)
  { name: 'written+clauses, settled', written: true, settle: true, options: { kind: 'multinomial', l2: 1e-2, extractorGate: true, features: 'clauses' } },
];

const written = writtenQuestions();
if (!written) throw new Error('corpus-build/data/route-written.jsonl is missing');
const cvSet = written.questions.filter((q) => q.split === 'cv');
const heldOut = written.questions.filter((q) => q.split === 'held-out');
/** A message that asks for a table value and nothing else: one clause, in which the extractor reads a table output or two inputs. */
function asksValueOnly(text: string): boolean {
  const clauses = messageClauses(text);
  if (clauses.length !== 1) return false;
  const ex = extractOperation(clauses[0]!);
  return ex.targets.length > 0 || ex.inputs.length > 1;
}

const modelWritten = modelWrittenQuestions().examples;
const templates = templateQuestions(Number(values.templates));
const base: RouteExample[] = [...modelWritten, ...templates];
const cleaned: RouteExample[] = [
  ...modelWritten.map((e) => (e.path === 'both' && asksValueOnly(e.text) ? { ...e, path: 'database' as const } : e)),
  ...templates,
];
const asExample = (q: WrittenQuestion): RouteExample => ({ text: q.query, path: q.path });
/** The path the router gives with the model's: `settle` adds its rule for messages that read no table value. */
const routeWith = (v: Variant, model: ReturnType<typeof trainRouteModel>, text: string): RouteClass => {
  const path = predictRoute(model, text).path;
  return v.settle && path !== 'rules' && !readsTableValue(extractOperation(text.normalize('NFKC')), text) ? 'rules' : path;
};
const baseOf = (v: Variant) => (v.clean ? cleaned : base);
const writtenOf = (v: Variant, qs: readonly WrittenQuestion[]) => Array.from({ length: v.repeat ?? 1 }, () => qs.map(asExample)).flat();
const k = Number(values.k);
const deals = values.deals!.split(',').map(Number);
console.log(
  `written questions: cv ${cvSet.length} (${ROUTE_CLASSES.map((c) => `${c} ${cvSet.filter((q) => q.path === c).length}`).join(', ')}) in ${new Set(cvSet.map((q) => q.group)).size} topics; held-out ${heldOut.length} (not read unless --held-out); model-written and template questions ${base.length}`,
);

function score(items: readonly WrittenQuestion[], predicted: readonly RouteClass[]) {
  const recall: Record<string, number> = {};
  for (const c of ROUTE_CLASSES) {
    const idx = items.map((q, i) => (q.path === c ? i : -1)).filter((i) => i >= 0);
    recall[c] = Number((idx.filter((i) => predicted[i] === c).length / Math.max(1, idx.length)).toFixed(3));
  }
  const accuracy = items.filter((q, i) => predicted[i] === q.path).length / Math.max(1, items.length);
  return { accuracy, recall };
}

if (values['held-out']) {
  const v = VARIANTS.find((x) => x.name === values['held-out']);
  if (!v) throw new Error(`no variant "${values['held-out']}" (${VARIANTS.map((x) => x.name).join('; ')})`);
  const model = trainRouteModel([...baseOf(v), ...(v.written ? writtenOf(v, cvSet) : [])], v.options);
  const predicted = heldOut.map((q) => routeWith(v, model, q.query));
  const s = score(heldOut, predicted);
  console.log(
    `held-out (${heldOut.length} questions, never trained on) with "${v.name}": accuracy ${s.accuracy.toFixed(3)}, recall ${JSON.stringify(s.recall)}`,
  );
  heldOut.forEach((q, i) => predicted[i] !== q.path && console.log(`  ${q.id} ${q.path} → ${predicted[i]}: ${q.query}`));
  process.exit(0);
}

const only = values.only ? new Set(values.only.split(';')) : null;
const results: { v: Variant; mean: number; se: number }[] = [];
for (const v of VARIANTS) {
  if (only && !only.has(v.name)) continue;
  const t0 = Date.now();
  const accs: number[] = [];
  const recalls: Record<string, number>[] = [];
  const wrong = new Map<string, number>();
  const fixed = v.written ? null : trainRouteModel(baseOf(v), v.options);
  for (const deal of deals) {
    const folds = foldsOf(
      cvSet.map((q) => q.group),
      k,
      deal,
    );
    const predicted: RouteClass[] = new Array(cvSet.length);
    for (let f = 0; f < k; f++) {
      const model =
        fixed ??
        trainRouteModel(
          [
            ...baseOf(v),
            ...writtenOf(
              v,
              cvSet.filter((q) => folds.get(q.group) !== f),
            ),
          ],
          v.options,
        );
      cvSet.forEach((q, i) => folds.get(q.group) === f && (predicted[i] = routeWith(v, model, q.query)));
      if (fixed) break;
    }
    if (fixed) cvSet.forEach((q, i) => (predicted[i] = routeWith(v, fixed, q.query)));
    const s = score(cvSet, predicted);
    accs.push(s.accuracy);
    recalls.push(s.recall);
    cvSet.forEach(
      (q, i) =>
        predicted[i] !== q.path &&
        wrong.set(`${q.id} ${q.path} → ${predicted[i]}: ${q.query}`, (wrong.get(`${q.id} ${q.path} → ${predicted[i]}: ${q.query}`) ?? 0) + 1),
    );
  }
  const mean = accs.reduce((a, b) => a + b, 0) / accs.length;
  const se = Math.sqrt((mean * (1 - mean)) / cvSet.length);
  const meanRecall = Object.fromEntries(ROUTE_CLASSES.map((c) => [c, Number((recalls.reduce((a, r) => a + r[c]!, 0) / recalls.length).toFixed(3))]));
  console.log(
    `${v.name.padEnd(28)} CV accuracy ${mean.toFixed(3)} (deals ${accs.map((a) => a.toFixed(3)).join(' / ')}; SE ${se.toFixed(3)}) recall ${JSON.stringify(meanRecall)} (${((Date.now() - t0) / 1000).toFixed(0)} s)`,
  );
  for (const [w, n] of wrong) console.log(`    ${n}× ${w}`);
  results.push({ v, mean, se });
}
const shipped = results.find((r) => r.v.name === 'shipped');
if (shipped && results.length > 1) {
  const best = results.reduce((a, b) => (b.mean > a.mean ? b : a));
  const adopted = best.mean - shipped.mean > shipped.se ? results.find((r) => best.mean - r.mean <= best.se)! : shipped;
  console.log(`best "${best.v.name}" ${best.mean.toFixed(3)}; shipped ${shipped.mean.toFixed(3)} (SE ${shipped.se.toFixed(3)}): adopt "${adopted.v.name}"`);
}
