/**
 * `npm run train:units [-- --heldout] [--passages 5] [--out src/core/answer/unit-ranker.json]`
 *
 * Trains the unit ranker (src/core/answer/unit-ranker.ts) on the question bank's training part: each
 * question is retrieved as the app retrieves it, the quotable units of its first passages are the
 * candidates, and a unit is an answer when it overlaps the answering text the bank marks. A logistic
 * model over the ranker's features, chosen and reported by group-wise 5-fold cross-validation (a
 * section's questions never train and test together), with three baselines (rarity-weighted word
 * overlap, embedding similarity, the first unit of the first passage). The answer threshold is set on
 * the cross-validated predictions: it separates questions whose best unit answers from the same
 * questions with their answering passage removed (the honest gap). `--heldout` reports the held-out
 * part once, with the model trained on all training questions; it changes nothing.
 *
 * Node only; about 2 minutes on two cores.
 */
import { createHash } from 'node:crypto';
import { readFileSync, writeFileSync } from 'node:fs';
import { parseArgs } from 'node:util';
import { createDocumentAgents, agentConfigForEmbedder } from '../../src/core/agents/agents.js';
import { candidateUnits, DEFAULT_QUOTES_CONFIG } from '../../src/core/answer/quotes.js';
import {
  documentFrequencies,
  scoreFeatures,
  UNIT_FEATURES,
  unitFeatures,
  type UnitCandidate,
  type UnitRankerModel,
} from '../../src/core/answer/unit-ranker.js';
import { gridForChunk } from '../../src/core/sora/tables/grid.js';
import { collapseWhitespace } from '../../src/core/text/sentences.js';
import { checkBank, readBank } from '../bank/store.js';
import { spanText, type BankQuestion } from '../bank/bank.js';
import { fitLogistic, type LogisticFit } from '../calibration/logistic.js';
import { nodeEngine, nodeRetrieval } from '../node/engine.js';

const { values } = parseArgs({
  options: {
    heldout: { type: 'boolean', default: false },
    passages: { type: 'string', default: '5' },
    out: { type: 'string', default: 'src/core/answer/unit-ranker.json' },
    limit: { type: 'string' },
    'no-removed': { type: 'boolean', default: false },
    'next-part': { type: 'string' },
  },
});
const PASSAGES = Number(values.passages);
const WITH_REMOVED = !values['no-removed'];
const QUOTES = { ...DEFAULT_QUOTES_CONFIG, passages: PASSAGES, ...(values['next-part'] !== undefined ? { nextPartUnits: Number(values['next-part']) } : {}) };

const loaded = await nodeEngine({});
const { baseIndex: index, baseEmbedder: embedder } = loaded;
const retrieval = nodeRetrieval(loaded, createDocumentAgents(index, loaded.engine, agentConfigForEmbedder(null)));
const bankAll = checkBank(readBank('corpus-build/data'), index.chunks).usable;
const freq = documentFrequencies(index.chunks.map((c) => c.text));
const chunkById = new Map(index.chunks.map((c) => [c.id, c]));

interface Example {
  q: BankQuestion;
  x: number[][];
  y: number[];
  /** Features with the answering passages left out (the honest-gap simulation). */
  xRemoved: number[][];
  /** Each candidate's passage, and the passage retrieval put first. */
  chunkIds: string[];
  retrievedFirst: string;
}

/** Answer texts of a bank question (whitespace collapsed). */
const answersOf = (q: BankQuestion): string[] => q.answer.map((a) => spanText(chunkById.get(q.chunk)!.text, a)).filter((t): t is string => !!t);

function isAnswer(c: UnitCandidate, q: BankQuestion, answers: string[]): boolean {
  if (
    c.chunkId === q.chunk &&
    q.answer.some((a) => Math.min(a.end, c.unit.end) - Math.max(a.start, c.unit.start) >= 0.5 * Math.min(a.end - a.start, c.unit.end - c.unit.start))
  )
    return true;
  const u = collapseWhitespace(c.unit.printed ?? c.unit.text);
  return answers.some((a) => (a.length >= 40 && u.includes(a)) || (u.length >= 40 && a.includes(u)));
}

async function examplesOf(questions: BankQuestion[]): Promise<Example[]> {
  const out: Example[] = [];
  let k = 0;
  for (const q of questions) {
    const ask = await retrieval.retrieve(q.q);
    const [qv] = await embedder.embed([q.q], 'query');
    const chunks = ask.chunks.slice(0, PASSAGES);
    const evidence = ask.retrieval.evidence.slice(0, PASSAGES);
    const cands = await candidateUnits({ queryVector: qv!, chunks, evidence, index, embedder, gridOf: gridForChunk, config: QUOTES });
    if (!cands.length) continue;
    const answers = answersOf(q);
    const y = cands.map((c) => (isAnswer(c, q, answers) ? 1 : 0));
    // the same question with every answering passage removed from the context
    const answering = new Set(cands.filter((_, i) => y[i]).map((c) => c.chunkId));
    answering.add(q.chunk);
    const keep = chunks.map((c, i) => ({ c, e: evidence[i]! })).filter((x) => !answering.has(x.c.id));
    const removed = keep.length
      ? await candidateUnits({
          queryVector: qv!,
          chunks: keep.map((x) => x.c),
          evidence: keep.map((x) => x.e),
          index,
          embedder,
          gridOf: gridForChunk,
          config: QUOTES,
        })
      : [];
    out.push({
      q,
      x: unitFeatures(q.q, cands, freq),
      y,
      xRemoved: removed.length ? unitFeatures(q.q, removed, freq) : [],
      chunkIds: cands.map((c) => c.chunkId),
      retrievedFirst: chunks[0]!.id,
    });
    if (++k % 100 === 0) console.error(`  ${k}/${questions.length} questions`);
  }
  return out;
}

// ---------------------------------------------------------------------------------------------
// logistic regression (corpus-build/calibration/logistic.ts)

interface Fitted extends LogisticFit {
  features: readonly string[];
}

function fit(examples: Example[], l2 = 1e-3, steps = 400, rate = 0.5): Fitted {
  // with each question's answering passages removed as all-negative lists too, so the probability is absolute:
  // a top unit of passages that do not answer scores low (the honest gap), not merely lower than its neighbours
  const rows = [...examples.flatMap((e) => e.x), ...(WITH_REMOVED ? examples.flatMap((e) => e.xRemoved) : [])];
  const ys = [...examples.flatMap((e) => e.y), ...(WITH_REMOVED ? examples.flatMap((e) => e.xRemoved.map(() => 0)) : [])];
  return { features: UNIT_FEATURES, ...fitLogistic(rows, ys, { l2, steps, rate }) };
}

/** Hit@1 and MRR of a scoring over questions with an answering unit among the candidates. */
function rankMetrics(examples: Example[], score: (e: Example) => number[]): { n: number; hit1: number; hit3: number; mrr: number } {
  const answerable = examples.filter((e) => e.y.some((v) => v === 1));
  let hit1 = 0;
  let hit3 = 0;
  let rr = 0;
  for (const e of answerable) {
    const s = score(e);
    const order = s.map((v, i) => [v, i] as const).sort((a, b) => b[0] - a[0] || a[1] - b[1]);
    const rank = order.findIndex(([, i]) => e.y[i] === 1) + 1;
    if (rank === 1) hit1++;
    if (rank <= 3) hit3++;
    rr += 1 / rank;
  }
  const n = answerable.length || 1;
  return { n: answerable.length, hit1: hit1 / n, hit3: hit3 / n, mrr: rr / n };
}

const r3 = (x: number): number => Math.round(x * 1000) / 1000;

/** A passage's section unit (part and table suffixes dropped), as the retrieval evaluation counts a hit. */
const sectionOf = (id: string) => id.replace(/\/(?:part-\d+|table-[^/]+)$/, '');

/**
 * Which passage a reader meets first: the retrieval's first passage, or the passage of the top-scored
 * unit (the first quotation). Share of the questions whose first passage is their own passage's section.
 */
function firstPassage(examples: Example[], score: (e: Example) => number[]): { retrieval: number; firstQuote: number } {
  let byRetrieval = 0;
  let byQuote = 0;
  for (const e of examples) {
    const s = score(e);
    const top = s.indexOf(Math.max(...s));
    if (sectionOf(e.retrievedFirst) === sectionOf(e.q.chunk)) byRetrieval++;
    if (sectionOf(e.chunkIds[top]!) === sectionOf(e.q.chunk)) byQuote++;
  }
  const n = examples.length || 1;
  return { retrieval: r3(byRetrieval / n), firstQuote: r3(byQuote / n) };
}
const col = (k: (typeof UNIT_FEATURES)[number]) => UNIT_FEATURES.indexOf(k);

// ---------------------------------------------------------------------------------------------

const limit = values.limit ? Number(values.limit) : Infinity;
const train = bankAll.filter((q) => q.split === 'train').slice(0, limit);
console.error(`unit ranker: ${train.length} training questions, first ${PASSAGES} passages each`);
const t0 = performance.now();
const examples = await examplesOf(train);
console.error(`  examples in ${((performance.now() - t0) / 1000).toFixed(0)} s`);

// group-wise 5-fold CV: each fold's questions scored by a model trained on the other folds
const cvScores = new Map<Example, { all: number[]; removed: number[] }>();
for (let fold = 0; fold < 5; fold++) {
  const model = fit(examples.filter((e) => e.q.fold !== fold));
  for (const e of examples.filter((x) => x.q.fold === fold))
    cvScores.set(e, { all: scoreFeatures(e.x, model), removed: e.xRemoved.length ? scoreFeatures(e.xRemoved, model) : [] });
}
const cv = rankMetrics(examples, (e) => cvScores.get(e)!.all);
const baselines = {
  overlap: rankMetrics(examples, (e) => e.x.map((f) => f[col('overlap')]! + 1e-3 * f[col('passageRank')]!)),
  cosine: rankMetrics(examples, (e) => e.x.map((f) => f[col('cosine')]!)),
  firstUnitOfFirstPassage: rankMetrics(examples, (e) => e.x.map((f) => f[col('passageRank')]! * 10 - f[col('position')]!)),
};

// the answer threshold: the highest cut that keeps the lead for 95 % of the questions whose best unit answers
// (a false "not stated" costs the lead, the quotes are still shown); what it then says of the same questions
// with their answering passages removed is reported (the honest gap)
const answered = examples
  .filter((e) => e.y.some((v) => v === 1))
  .map((e) => {
    const s = cvScores.get(e)!.all;
    const top = s.indexOf(Math.max(...s));
    return { best: s[top]!, correct: e.y[top] === 1 };
  });
const removedBest = examples
  .map((e) => cvScores.get(e)!.removed)
  .filter((s) => s.length)
  .map((s) => Math.max(...s));
const correctBest = answered.filter((a) => a.correct).map((a) => a.best);
const KEEP = 0.95;
let threshold = 0.01;
for (let t = 0.01; t < 0.99; t += 0.01) {
  const tpr = correctBest.filter((s) => s >= t).length / Math.max(1, correctBest.length);
  if (tpr >= KEEP) threshold = Math.round(t * 100) / 100;
}
const gapAt = (t: number) => ({
  answeredKept: r3(correctBest.filter((s) => s >= t).length / Math.max(1, correctBest.length)),
  removedSaidGap: r3(removedBest.filter((s) => s < t).length / Math.max(1, removedBest.length)),
});

const final = fit(examples);
const bankSha = createHash('sha256').update(readFileSync('corpus-build/data/question-bank.jsonl')).digest('hex');
const report = {
  questions: examples.length,
  withAnswerAmongCandidates: cv.n,
  cv: { hit1: r3(cv.hit1), hit3: r3(cv.hit3), mrr: r3(cv.mrr) },
  baselines: Object.fromEntries(Object.entries(baselines).map(([k, m]) => [k, { hit1: r3(m.hit1), hit3: r3(m.hit3), mrr: r3(m.mrr) }])),
  threshold,
  honestGap: gapAt(threshold),
  firstPassageHit: firstPassage(examples, (e) => cvScores.get(e)!.all),
};
console.log(JSON.stringify(report, null, 2));

if (values.heldout) {
  const held = await examplesOf(bankAll.filter((q) => q.split === 'heldout').slice(0, limit));
  const m = rankMetrics(held, (e) => scoreFeatures(e.x, final));
  const hb = held.map((e) => (e.xRemoved.length ? Math.max(...scoreFeatures(e.xRemoved, final)) : null)).filter((x): x is number => x !== null);
  console.log(
    JSON.stringify(
      {
        heldout: {
          questions: held.length,
          withAnswerAmongCandidates: m.n,
          hit1: r3(m.hit1),
          hit3: r3(m.hit3),
          mrr: r3(m.mrr),
          removedSaidGap: r3(hb.filter((s) => s < threshold).length / Math.max(1, hb.length)),
          firstPassageHit: firstPassage(held, (e) => scoreFeatures(e.x, final)),
        },
      },
      null,
      2,
    ),
  );
} else {
  const model: UnitRankerModel = {
    version: 1,
    features: [...UNIT_FEATURES],
    mean: final.mean.map((v) => Number(v.toFixed(6))),
    std: final.std.map((v) => Number(v.toFixed(6))),
    weights: final.weights.map((v) => Number(v.toFixed(6))),
    bias: Number(final.bias.toFixed(6)),
    answerThreshold: threshold,
    provenance: {
      command: `npm run train:units -- --passages ${PASSAGES} --next-part ${QUOTES.nextPartUnits}`,
      bank: { file: 'corpus-build/data/question-bank.jsonl', sha256: bankSha, split: 'train' },
      index: { chunksSha256: index.manifest.artifacts['chunks.json']?.sha256 ?? null, model: index.manifest.model.id },
      trainedAt: new Date().toISOString(),
      report,
    },
  };
  writeFileSync(values.out!, JSON.stringify(model, null, 2) + '\n');
  console.error(`wrote ${values.out}`);
}
