/**
 * `npx tsx tools/train/first-position-cv.ts [--embedder <id>] [--limit N]`: would a reranker of cheap
 * features put the answering passage first more often than the fused order? Group-wise 5-fold CV on
 * the question bank's training part (a document section's questions never in two folds).
 *
 * For each question, the fused list's first 20 passages (the app's flat retrieval, gate off), each
 * described by what retrieval already knows: its fused rank and score, its rank and score in the dense,
 * window and BM25 lists, its kind (glossary entry, table, OSO …), its length, whether an older
 * edition prints it, and the share of the question's content words in its title. A logistic regression
 * (L2, standardised features) trained on four folds orders the fifth. A passage counts as the answer
 * when it is in the question's own section (part and table suffixes dropped), as `npm run eval` counts.
 * Prints Hit@1, Hit@5 and MRR of the fused order and of the learned order, fold by fold.
 */
import { parseArgs } from 'node:util';
import { fitLogistic, logOdds } from '../../corpus-build/calibration/logistic.js';
import { nodeEngine } from '../../corpus-build/node/engine.js';
import { checkBank, readBank } from '../../corpus-build/bank/store.js';
import { eraOf } from '../../src/core/retrieval/engine.js';
import { contentTokens } from '../../src/core/text/tokenize.js';
import type { ChunkKind } from '../../src/core/model/chunk.js';

const { values } = parseArgs({ options: { embedder: { type: 'string' }, limit: { type: 'string' }, top: { type: 'string', default: '20' } } });
const TOP = Number(values.top);
const KINDS: ChunkKind[] = ['glossary', 'table', 'oso', 'section', 'amc-gm-entry', 'curated'];
const FEATURES = [
  'fusedInv',
  'fusedRel',
  'denseInv',
  'denseScore',
  'windowInv',
  'windowScore',
  'bm25Inv',
  'bm25Rel',
  'logWords',
  'older',
  'titleShare',
  ...KINDS.map((k) => `kind:${k}`),
];

const loaded = await nodeEngine(values.embedder ? { embedder: values.embedder, reranker: false } : { reranker: false });
const { engine, index } = loaded;
const currentEra = Math.max(0, ...index.chunks.map(eraOf));
const sectionOf = (id: string) => id.replace(/\/(?:part-\d+|table-[^/]+)$/, '');
const rowOf = new Map(index.chunks.map((c, i) => [c.id, i]));
const bank = checkBank(readBank('corpus-build/data'), index.chunks)
  .usable.filter((q) => q.split === 'train')
  .slice(0, values.limit ? Number(values.limit) : Infinity);

interface Example {
  fold: number;
  x: number[][];
  y: number[];
}
const examples: Example[] = [];
const t0 = Date.now();
for (const q of bank) {
  const r = await engine.retrieve(q.q, { config: { gate: { enabled: false } } });
  const list = (stage: RegExp) => r.trace.find((s) => stage.test(s.stage))?.candidates ?? [];
  const fused = list(/^rrf/).slice(0, TOP);
  if (!fused.length) continue;
  const lookup = (stage: RegExp) => new Map(list(stage).map((c, i) => [c.id, { rank: i + 1, score: c.score }] as const));
  const dense = lookup(/^dense/);
  const windows = lookup(/^windows/);
  const bm25 = lookup(/^bm25/);
  const bm25Max = Math.max(1e-9, ...list(/^bm25/).map((c) => c.score));
  const qWords = new Set(contentTokens(q.q));
  const x = fused.map((c, i) => {
    const chunk = index.chunks[rowOf.get(c.id)!]!;
    const title = new Set(contentTokens(chunk.title));
    const d = dense.get(c.id);
    const w = windows.get(c.id);
    const b = bm25.get(c.id);
    return [
      1 / (i + 1),
      c.score / (fused[0]!.score || 1),
      d ? 1 / d.rank : 0,
      d?.score ?? 0,
      w ? 1 / w.rank : 0,
      w?.score ?? 0,
      b ? 1 / b.rank : 0,
      b ? b.score / bm25Max : 0,
      Math.log1p(chunk.text.split(/\s+/).length),
      eraOf(chunk) < currentEra ? 1 : 0,
      qWords.size ? [...qWords].filter((t) => title.has(t)).length / qWords.size : 0,
      ...KINDS.map((k) => (chunk.kind === k ? 1 : 0)),
    ];
  });
  examples.push({ fold: q.fold, x, y: fused.map((c) => (sectionOf(c.id) === sectionOf(q.chunk) ? 1 : 0)) });
  if (examples.length % 200 === 0) console.error(`  ${examples.length}/${bank.length} questions, ${((Date.now() - t0) / 1000).toFixed(0)} s`);
}

function fit(train: Example[]) {
  const m = fitLogistic(
    train.flatMap((e) => e.x),
    train.flatMap((e) => e.y),
    { steps: 300 },
  );
  return Object.assign((x: number[]) => logOdds(m, x), { weights: Object.fromEntries(FEATURES.map((f, k) => [f, +m.weights[k]!.toFixed(3)])) });
}

function metrics(es: Example[], score: (e: Example) => number[]) {
  let h1 = 0;
  let h5 = 0;
  let rr = 0;
  for (const e of es) {
    const s = score(e);
    const order = s.map((v, i) => [v, i] as const).sort((a, b) => b[0] - a[0] || a[1] - b[1]);
    const rank = order.findIndex(([, i]) => e.y[i] === 1) + 1;
    if (rank === 1) h1++;
    if (rank >= 1 && rank <= 5) h5++;
    if (rank >= 1) rr += 1 / rank;
  }
  const n = es.length || 1;
  return { n: es.length, hit1: +(h1 / n).toFixed(3), hit5: +(h5 / n).toFixed(3), mrr: +(rr / n).toFixed(3) };
}

const fusedOrder = (e: Example) => e.x.map((_, i) => -i);
const learned = new Map<Example, number[]>();
for (let f = 0; f < 5; f++) {
  const model = fit(examples.filter((e) => e.fold !== f));
  const test = examples.filter((e) => e.fold === f);
  for (const e of test) learned.set(e, e.x.map(model));
  console.log(`fold ${f}: fused ${JSON.stringify(metrics(test, fusedOrder))}, learned ${JSON.stringify(metrics(test, (e) => learned.get(e)!))}`);
}
console.log(
  JSON.stringify({
    embedder: index.manifest.model.id,
    top: TOP,
    seconds: Math.round((Date.now() - t0) / 1000),
    fused: metrics(examples, fusedOrder),
    learned: metrics(examples, (e) => learned.get(e)!),
    // the standardised weights of a model fitted on every fold: which features carry the order
    weights: fit(examples).weights,
  }),
);
