/**
 * `npm run train:router [-- --cases <router jsonl>] [--k 5] [--no-write]`
 *
 * Trains the router's model (src/core/route/route-model.ts) on model-written questions only:
 *  - `rules`: the passage questions of corpus-build/data/synthetic-questions.jsonl, except those of
 *    table passages (a question about a table may ask for a lookup);
 *  - `database` / `both`: corpus-build/data/route-questions.jsonl (`npm run synth:routes`).
 * Prints a group-wise K-fold cross-validation on these questions (a group is one table, or one
 * passage's section: a group never straddles folds), then writes src/core/route/route-model.json.
 * `--cases` only measures the trained model on a labelled routing file (e.g. the dev set): those
 * questions are never trained on, and no setting is chosen from them.
 */
import { readFileSync, writeFileSync } from 'node:fs';
import { resolve } from 'node:path';
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
import { composeBoth, isTableChunk } from '../synth/compose-routes.js';
import { ROUTE_FILE, ROUTE_PROMPT_VERSION, type RouteQuestions } from '../synth/route-prompt.js';
import { DATA_DIR, type PassageQuestions, parseJsonl, readVerified, sha256, SYNTH_FILE } from '../synth/store.js';

const HELP = `Usage: npm run train:router [-- --cases <file.jsonl>] [--k 5] [--compose N] [--no-write]

Trains the router on the synthetic questions, prints a group-wise cross-validation and writes
src/core/route/route-model.json. --cases measures it on a labelled routing file ({query, path}).
--compose N adds N composed both questions per database question (a value question joined with a
question about the table's section; corpus-build/synth/compose-routes.ts) to the training folds
only, and cross-validates with and without them.`;

const { values } = parseArgs({
  options: {
    cases: { type: 'string' },
    k: { type: 'string', default: '5' },
    compose: { type: 'string', default: '0' },
    'no-write': { type: 'boolean', default: false },
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

interface Labelled extends RouteExample {
  readonly group: string;
}

const sha = (path: string) => sha256(readFileSync(path));
const routePath = resolve(DATA_DIR, ROUTE_FILE);
let routeRecords: RouteQuestions[] = [];
try {
  routeRecords = parseJsonl<RouteQuestions>(readFileSync(routePath, 'utf8'), ROUTE_FILE).filter((r) => r.prompt === ROUTE_PROMPT_VERSION);
} catch (e) {
  fail(`cannot read corpus-build/data/${ROUTE_FILE} (${(e as Error).message}); write it with npm run synth:routes -- --model <GGUF>`);
}
if (!routeRecords.length) fail(`corpus-build/data/${ROUTE_FILE} has no ${ROUTE_PROMPT_VERSION} records; run npm run synth:routes -- --model <GGUF>`);
const passages = readVerified<PassageQuestions>(SYNTH_FILE);

const sectionOf = (chunkId: string) => chunkId.replace(/\/(?:part-\d+|table-[^/]+)$/, '').replace(/\/[^/]+$/, '');
const examples: Labelled[] = [];
for (const r of routeRecords) for (const q of r.questions) examples.push({ text: q.q, path: r.path, group: `table:${r.table}` });
for (const r of passages)
  if (!isTableChunk(r.chunk)) for (const q of r.questions) examples.push({ text: q.q, path: 'rules', group: `section:${sectionOf(r.chunk)}` });
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
const trainingOutside = (f: number | null): RouteExample[] => [
  ...examples.filter((e) => f === null || folds.get(e.group) !== f),
  ...composed.filter((c) => f === null || c.groups.every((g) => folds.get(g) !== f)),
];
const countOf = (c: RouteClass) => examples.filter((e) => e.path === c).length;
console.log(
  `training questions: ${ROUTE_CLASSES.map((c) => `${c} ${countOf(c)}`).join(', ')}${composed.length ? `, plus ${composed.length} composed both questions (training only)` : ''}`,
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
  1,
);
const candidates: Partial<RouteTrainOptions>[] = [
  { kind: DEFAULT_ROUTE_TRAIN.kind, l2: DEFAULT_ROUTE_TRAIN.l2, extractorGate: DEFAULT_ROUTE_TRAIN.extractorGate },
];
for (const kind of ['multinomial', 'factored'] as const)
  for (const l2 of [1e-1, 3e-2, 1e-2, 1e-3, 1e-4])
    for (const extractorGate of [true, false])
      if (JSON.stringify({ kind, l2, extractorGate }) !== JSON.stringify(candidates[0])) candidates.push({ kind, l2, extractorGate });
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
const byBalance = [...scored].sort((a, b) => b.balanced - a.balanced);
const se = balancedSe(scored[0]!.cv.recall);
const best = byBalance[0]!.balanced - scored[0]!.balanced > se ? byBalance[0]! : scored[0]!;
console.log(
  `best by CV ${JSON.stringify(byBalance[0]!.options)} (${byBalance[0]!.balanced}); default ${JSON.stringify(scored[0]!.options)} (${scored[0]!.balanced}, standard error ${se.toFixed(3)}): kept ${JSON.stringify(best.options)}`,
);
console.log(`its CV confusion (gold → predicted): ${JSON.stringify(best.cv.confusion)}`);
const cv = best.cv;

const model = trainRouteModel(trainingOutside(null), best.options, {
  [ROUTE_FILE]: sha(routePath),
  [SYNTH_FILE]: sha(resolve(DATA_DIR, SYNTH_FILE)),
  routePrompt: ROUTE_PROMPT_VERSION,
  composedBoth: composeN ? { perQuestion: composeN, n: composed.length } : 0,
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
