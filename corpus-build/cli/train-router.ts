/**
 * `npm run train:router [-- --cases <router jsonl>] [--k 5] [--no-write]`
 *
 * Trains the router's model (src/core/route/route-model.ts) on model-written questions:
 *  - `rules`: the passage questions of corpus-build/data/synthetic-questions.jsonl, except those of
 *    table passages (a question about a table may ask for a lookup);
 *  - `database` / `both`: corpus-build/data/route-questions.jsonl (`npm run synth:routes`);
 * and, in the training folds only, template questions written from the calculator's typed tables
 * (corpus-build/synth/route-templates.ts, `--templates N`).
 * Prints a group-wise K-fold cross-validation on these questions (a group is one table, or one
 * passage's section: a group never straddles folds), then writes src/core/route/route-model.json.
 * `--cases` only measures the trained model on a labelled routing file (e.g. the dev set): those
 * questions are never trained on, and no setting is chosen from them.
 */
import { readFileSync, writeFileSync } from 'node:fs';
import { parseArgs } from 'node:util';
import { foldsOf } from '../../src/core/evaluation/cross-validation.js';
import {
  DEFAULT_ROUTE_TRAIN,
  predictRoute,
  ROUTE_CLASSES,
  type RouteClass,
  type RouteExample,
  type RouteTrainOptions,
  trainRouteModel,
} from '../../src/core/route/route-model.js';
import { composeBoth } from '../synth/compose-routes.js';
import { ROUTE_PROMPT_VERSION } from '../synth/route-prompt.js';
import { modelWrittenQuestions, sectionOf, templateQuestions, WRITTEN_FILE, writtenQuestions, type Labelled } from '../synth/route-training.js';
import { parseJsonl } from '../synth/store.js';

/** Template questions per table and path added to the training folds (0 = none; docs/router.md says why 10). */
const DEFAULT_TEMPLATES = 10;

const HELP = `Usage: npm run train:router [-- --cases <file.jsonl>] [--k 5] [--compose N] [--templates N] [--fold-seed S] [--default-only] [--no-write]

Trains the router on the synthetic questions, prints a group-wise cross-validation and writes
src/core/route/route-model.json. --cases measures it on a labelled routing file ({query, path}).
--compose N adds N composed both questions per database question (a value question joined with a
question about the table's section; corpus-build/synth/compose-routes.ts) to the training folds
only. --templates N (default ${DEFAULT_TEMPLATES}) adds N template questions per table for database and
for both, and N/4 for rules, written from the calculator's typed tables
(corpus-build/synth/route-templates.ts), to the training folds only; with N > 0 the default setting
is also cross-validated with and without them on the fold deals --check-seeds (default 1,2,3),
for comparison. --fold-seed S deals the groups to other folds
(repeated CV). --default-only cross-validates the default setting only.`;

const { values } = parseArgs({
  options: {
    cases: { type: 'string' },
    k: { type: 'string', default: '5' },
    compose: { type: 'string', default: '0' },
    templates: { type: 'string', default: String(DEFAULT_TEMPLATES) },
    'fold-seed': { type: 'string', default: '1' },
    'check-seeds': { type: 'string', default: '1,2,3' },
    'default-only': { type: 'boolean', default: false },
    'no-write': { type: 'boolean', default: false },
    'no-written': { type: 'boolean', default: false },
    out: { type: 'string', default: 'src/core/route/route-model.json' },
    help: { type: 'boolean', short: 'h', default: false },
  },
});
if (values.help) {
  console.log(HELP);
  process.exit(0);
}
const fail = (msg: string): never => {
  console.error(`train:router: ${msg}`);
  process.exit(2);
};

let loaded: ReturnType<typeof modelWrittenQuestions> | null = null;
try {
  loaded = modelWrittenQuestions();
} catch (e) {
  fail((e as Error).message);
}
const { examples, routeRecords, passages, hashes } = loaded!;
// the engineer-written routing questions of the `cv` split (npm run cv:router chose them; docs/router.md): in every
// training set, never scored here (their own CV is cv:router's); the `held-out` split is never trained on
const writtenFile = values['no-written'] ? null : writtenQuestions();
const written: RouteExample[] = (writtenFile?.questions ?? []).filter((q) => q.split === 'cv').map((q) => ({ text: q.query, path: q.path }));
// composed both questions (training folds only): a database question joined with a question about
// its table's section; they belong to both groups, and leave a fold's training set when either is tested
const composeN = Number(values.compose);
if (!Number.isInteger(composeN) || composeN < 0) fail(`--compose must be a whole number ≥ 0, got ${values.compose}`);
interface Composed extends RouteExample {
  readonly groups: readonly [string, string];
}
const composed: Composed[] = composeN
  ? composeBoth(
      routeRecords.filter((r) => r.path === 'database').map((r) => ({ table: r.table, valueQuestions: r.questions.map((q) => q.q) })),
      passages.map((p) => ({ chunk: p.chunk, questions: p.questions.map((q) => q.q) })),
      { perQuestion: composeN },
    ).map((c) => ({ text: c.text, path: 'both', groups: [`table:${c.table}`, `section:${sectionOf(c.chunk)}`] }))
  : [];
// template questions written from the calculator's typed tables (corpus-build/synth/route-templates.ts):
// training folds only, each in its table's group, so a held-out table's templates leave its training set
const templatesN = Number(values.templates);
if (!Number.isInteger(templatesN) || templatesN < 0) fail(`--templates must be a whole number ≥ 0, got ${values.templates}`);
const templates: Labelled[] = templateQuestions(templatesN);
const trainingOutside = (f: number | null): RouteExample[] => [
  ...written,
  ...examples.filter((e) => f === null || folds.get(e.group) !== f),
  ...composed.filter((c) => f === null || c.groups.every((g) => folds.get(g) !== f)),
  ...templates.filter((t) => f === null || folds.get(t.group) !== f),
];
const countOf = (c: RouteClass) => examples.filter((e) => e.path === c).length;
console.log(
  `training questions: ${ROUTE_CLASSES.map((c) => `${c} ${countOf(c)}`).join(', ')}${composed.length ? `, plus ${composed.length} composed both questions (training only)` : ''}${templates.length ? `, plus ${templates.length} template questions (training only)` : ''}${written.length ? `, plus ${written.length} engineer-written questions (training only)` : ''}`,
);

/** Accuracy and per-class recall of a predictor over labelled questions. */
function score(items: readonly { text: string; path: RouteClass }[], predict: (t: string) => RouteClass) {
  const confusion: Record<string, Record<string, number>> = {};
  let ok = 0;
  for (const it of items) {
    const p = predict(it.text);
    if (p === it.path) ok++;
    (confusion[it.path] ??= {})[p] = (confusion[it.path]![p] ?? 0) + 1;
  }
  const recall = Object.fromEntries(
    ROUTE_CLASSES.map((c) => [c, Number(((confusion[c]?.[c] ?? 0) / Math.max(1, items.filter((i) => i.path === c).length)).toFixed(3))]),
  );
  return { n: items.length, accuracy: Number((ok / Math.max(1, items.length)).toFixed(3)), recall, confusion };
}

// group-wise K-fold CV on the synthetic questions (tables and sections never straddle folds), for each
// candidate setting, scored by balanced accuracy (mean recall: the classes differ in size). The default
// (the first candidate) is kept unless another beats it by more than one standard error of the
// default's balanced accuracy (the one-standard-error rule: smaller differences are noise here, with
// about a hundred questions in the database and both classes).
const k = Number(values.k);
const folds = foldsOf(
  examples.map((e) => e.group),
  k,
  Number(values['fold-seed']),
);
const candidates: Partial<RouteTrainOptions>[] = [
  { kind: DEFAULT_ROUTE_TRAIN.kind, l2: DEFAULT_ROUTE_TRAIN.l2, extractorGate: DEFAULT_ROUTE_TRAIN.extractorGate, features: DEFAULT_ROUTE_TRAIN.features },
];
if (!values['default-only'])
  for (const kind of ['multinomial', 'factored'] as const)
    for (const l2 of [1e-1, 3e-2, 1e-2, 1e-3, 1e-4])
      for (const extractorGate of [true, false])
        if (JSON.stringify({ kind, l2, extractorGate, features: DEFAULT_ROUTE_TRAIN.features }) !== JSON.stringify(candidates[0]))
          candidates.push({ kind, l2, extractorGate, features: DEFAULT_ROUTE_TRAIN.features });
const balanced = (r: Record<string, number>) => Number((ROUTE_CLASSES.reduce((a, c) => a + (r[c] ?? 0), 0) / ROUTE_CLASSES.length).toFixed(3));
/** Standard error of the balanced accuracy: the per-class recalls' binomial variances, averaged. */
const balancedSe = (r: Record<string, number>) =>
  Math.sqrt(ROUTE_CLASSES.reduce((a, c) => a + ((r[c] ?? 0) * (1 - (r[c] ?? 0))) / Math.max(1, countOf(c)), 0)) / ROUTE_CLASSES.length;
type Scored = { options: Partial<RouteTrainOptions>; balanced: number; cv: ReturnType<typeof score> };
const scored: Scored[] = [];
for (const options of candidates) {
  const t0 = Date.now();
  const predicted = new Map<number, RouteClass>();
  for (let f = 0; f < k; f++) {
    const m = trainRouteModel(trainingOutside(f), options);
    examples.forEach((e, i) => folds.get(e.group) === f && predicted.set(i, predictRoute(m, e.text).path));
  }
  const byText = new Map(examples.map((e, i) => [e.text, predicted.get(i)!]));
  const cv = score(examples, (t) => byText.get(t)!);
  const b = balanced(cv.recall);
  console.log(
    `CV ${JSON.stringify(options)}: balanced accuracy ${b}, accuracy ${cv.accuracy}, recall ${JSON.stringify(cv.recall)} (${((Date.now() - t0) / 1000).toFixed(0)} s)`,
  );
  scored.push({ options, balanced: b, cv });
}
if (templates.length) {
  // like for like: the default setting with and without the template questions, on the same folds, for
  // several deals of the groups to folds (with 12 tables in 5 folds, the deal moves the figure by more
  // than the standard error: one deal alone does not settle a difference of that size)
  const cvDefault = (dealt: Map<string, number>, withTemplates: boolean) => {
    const predicted = new Map<number, RouteClass>();
    for (let f = 0; f < k; f++) {
      const m = trainRouteModel([...written, ...[...examples, ...(withTemplates ? templates : [])].filter((e) => dealt.get(e.group) !== f)], candidates[0]);
      examples.forEach((e, i) => dealt.get(e.group) === f && predicted.set(i, predictRoute(m, e.text).path));
    }
    return score(
      examples.map((e, i) => ({ text: String(i), path: e.path })),
      (i) => predicted.get(Number(i))!,
    ).recall;
  };
  const seeds = values['check-seeds']!.split(',').map(Number);
  const diffs: number[] = [];
  for (const seed of seeds) {
    const dealt = foldsOf(
      examples.map((e) => e.group),
      k,
      seed,
    );
    const without = cvDefault(dealt, false);
    const withT = cvDefault(dealt, true);
    diffs.push(balanced(withT) - balanced(without));
    console.log(
      `templates, fold deal ${seed}: default setting without ${balanced(without)} ${JSON.stringify(without)}, with ${balanced(withT)} ${JSON.stringify(withT)} ` +
        `(difference ${diffs.at(-1)!.toFixed(3)}, standard error ${balancedSe(without).toFixed(3)})`,
    );
  }
  console.log(`templates: mean difference over ${seeds.length} fold deals ${(diffs.reduce((x, y) => x + y, 0) / diffs.length).toFixed(3)}`);
}
const byBalance = [...scored].sort((a, b) => b.balanced - a.balanced);
const se = balancedSe(scored[0]!.cv.recall);
const best = byBalance[0]!.balanced - scored[0]!.balanced > se ? byBalance[0]! : scored[0]!;
console.log(
  `best by CV ${JSON.stringify(byBalance[0]!.options)} (${byBalance[0]!.balanced}); default ${JSON.stringify(scored[0]!.options)} (${scored[0]!.balanced}, standard error ${se.toFixed(3)}): kept ${JSON.stringify(best.options)}`,
);
console.log(`its CV confusion (gold → predicted): ${JSON.stringify(best.cv.confusion)}`);
const cv = best.cv;

const model = trainRouteModel(trainingOutside(null), best.options, {
  ...hashes,
  ...(writtenFile && written.length ? { [WRITTEN_FILE]: writtenFile.sha256, written: written.length } : {}),
  routePrompt: ROUTE_PROMPT_VERSION,
  composedBoth: composeN ? { perQuestion: composeN, n: composed.length } : 0,
  templates: templatesN ? { perTable: templatesN, n: templates.length } : 0,
  cv: { k, balancedAccuracy: best.balanced, accuracy: cv.accuracy, recall: cv.recall },
});
console.log(`model: ${Object.keys(model.weights).length} features`);

if (values.cases) {
  const cases = parseJsonl<{ id?: string; query: string; path: RouteClass }>(readFileSync(values.cases, 'utf8'), values.cases);
  const s = score(
    cases.map((c) => ({ text: c.query, path: c.path })),
    (t) => predictRoute(model, t).path,
  );
  console.log(`${values.cases} (measured only, never trained on): accuracy ${s.accuracy} (n ${s.n}), recall ${JSON.stringify(s.recall)}`);
  console.log(`  confusion (gold → predicted): ${JSON.stringify(s.confusion)}`);
}
if (!values['no-write']) {
  writeFileSync(values.out!, `${JSON.stringify(model)}\n`);
  console.log(`wrote ${values.out} (${(readFileSync(values.out!).length / 1024).toFixed(0)} KB)`);
}
