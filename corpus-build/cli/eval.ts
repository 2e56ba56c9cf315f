/**
 * `npm run eval -- --questions <file.jsonl> [--corpus <id>] [--json]` and ablation
 * flags: --dense-only, --bm25-only, --mmr / --no-mmr, --post / --no-post, --rerank / --no-rerank,
 * --elbow / --no-elbow, --no-threshold, --no-windows, --no-expansion, --no-scope, --voy, and --lexicon-holdout (leave-one-group-out estimate
 * for the hand-written expansion lexicon: entries that fire on one group only are skipped for that group),
 * and --decompose (compound questions split by the deterministic splitter, sub-query evidence merged). Prints Hit@1/3/5/10 and MRR per variant, per corpus and
 * overall, and the no-evidence rate on unanswerable questions.
 */
import { parseArgs } from 'node:util';
import { type RetrievalConfigOverrides } from '../../src/core/retrieval/config.js';
import { type Metrics, type QuestionOutcome, type RetrievalQuestion, firstHitRank, summarise } from '../../src/core/evaluation/retrieval-metrics.js';
import { readRetrievalQuestions } from '../node/read-cases.js';
import { nodeEngine } from '../node/engine.js';
import { questionFilters } from '../node/question-filters.js';
import { lexiconHoldout } from '../../src/core/retrieval/expand.js';
import { deterministicDecomposer, retrieveDecomposed } from '../../src/core/retrieval/decompose.js';

const { values } = parseArgs({
  options: {
    questions: { type: 'string' },
    corpus: { type: 'string' },
    json: { type: 'boolean', default: false },
    'dense-only': { type: 'boolean', default: false },
    'bm25-only': { type: 'boolean', default: false },
    'no-mmr': { type: 'boolean', default: false },
    'no-post': { type: 'boolean', default: false },
    post: { type: 'boolean', default: false },
    rerank: { type: 'boolean', default: false },
    'no-rerank': { type: 'boolean', default: false },
    'no-elbow': { type: 'boolean', default: false },
    'no-threshold': { type: 'boolean', default: false },
    voy: { type: 'boolean', default: false },
    mmr: { type: 'boolean', default: false },
    elbow: { type: 'boolean', default: false },
    'no-windows': { type: 'boolean', default: false },
    'no-expansion': { type: 'boolean', default: false },
    'no-scope': { type: 'boolean', default: false },
    'lexicon-holdout': { type: 'boolean', default: false },
    decompose: { type: 'boolean', default: false },
    verbose: { type: 'boolean', default: false },
  },
});

function fail(msg: string): never {
  console.error(msg);
  process.exit(2);
}

if (!values.questions) fail('Usage: npm run eval -- --questions <file.jsonl> [--corpus <id>] [--json] [ablation flags]');
let questions: RetrievalQuestion[];
try {
  questions = readRetrievalQuestions(values.questions);
} catch (e) {
  fail((e as Error).message);
}

const over: RetrievalConfigOverrides = {};
if (values['dense-only']) Object.assign(over, { bm25: { enabled: false } });
if (values['bm25-only']) Object.assign(over, { dense_enabled: false, mmr: { enabled: false } });
if (values['no-mmr']) Object.assign(over, { mmr: { enabled: false } });
if (values['no-post']) Object.assign(over, { postScore: { enabled: false } });
if (values.post) Object.assign(over, { postScore: { enabled: true } });
if (values.rerank) Object.assign(over, { rerank: { enabled: true } });
if (values['no-rerank']) Object.assign(over, { rerank: { enabled: false } });
if (values['no-elbow']) Object.assign(over, { elbow: { enabled: false } });
if (values['no-threshold']) Object.assign(over, { minDenseScore: -1 });
if (values.mmr) Object.assign(over, { mmr: { enabled: true } });
if (values.elbow) Object.assign(over, { elbow: { enabled: true } });
if (values['no-windows']) Object.assign(over, { windows: { enabled: false } });
if (values['no-expansion']) Object.assign(over, { expansion: { enabled: false } });
if (values['no-scope']) Object.assign(over, { scope: { enabled: false } });
if (values.voy) Object.assign(over, { dense: { pool: 50, backend: 'voy' } });

const { engine, index } = await nodeEngine({ voy: values.voy });
const known = new Set(index.manifest.sources.map((s) => s.id));
if (values.corpus && !known.has(values.corpus)) fail(`Unknown corpus "${values.corpus}". The index holds: ${[...known].join(', ')}.`);
const selected = values.corpus ? questions.filter((q) => q.corpus === values.corpus || q.corpus === 'any') : questions;

const groupOf = (q: { id: string; group?: string }) => q.group ?? q.id;
const holdout = values['lexicon-holdout'] ? lexiconHoldout(questions.map((q) => ({ question: q.question, group: groupOf(q) }))) : new Map<string, string[]>();
const outcomes: QuestionOutcome[] = [];
for (const q of selected) {
  const exclude = holdout.get(groupOf(q));
  const options = {
    filters: questionFilters(q.question, values.corpus),
    config: exclude ? { ...over, expansion: { enabled: over.expansion?.enabled ?? true, exclude } } : over,
  };
  const r = values.decompose
    ? await retrieveDecomposed(engine, q.question, deterministicDecomposer, (row) => index.chunks[row]!, options)
    : await engine.retrieve(q.question, options);
  const ranked = r.evidence.map((e) => index.chunks[e.row]!);
  const o = { question: q, rank: firstHitRank(q, ranked), noEvidence: r.noEvidence, topIds: ranked.slice(0, 5).map((c) => c.id) };
  outcomes.push(o);
  if (values.verbose) console.error(`${q.id.padEnd(22)} rank ${o.rank} ${r.noEvidence ? 'NO-EVIDENCE ' : ''}${o.topIds[0] ?? ''} best=${r.evidence[0]?.parts.dense.toFixed(3) ?? '-'}`);
}
const report = summarise(outcomes);
if (values.json) {
  process.stdout.write(`${JSON.stringify(report)}\n`);
} else {
  const row = (name: string, m: Metrics) =>
    `${name.padEnd(24)} ${String(m.n).padStart(4)} ${[m['hit@1'], m['hit@3'], m['hit@5'], m['hit@10']].map((x) => x.toFixed(3).padStart(7)).join('')} ${m.mrr.toFixed(3).padStart(7)}`;
  console.log(`${'set'.padEnd(24)} ${'n'.padStart(4)}   Hit@1  Hit@3  Hit@5 Hit@10     MRR`);
  console.log(row('overall', report.overall));
  for (const [k, m] of Object.entries(report.byVariant)) console.log(row(`variant ${k}`, m));
  for (const [k, m] of Object.entries(report.byCorpus)) console.log(row(`corpus ${k}`, m));
  console.log(`unanswerable: n=${report.unanswerable.n}, no-evidence rate ${report.unanswerable.noEvidenceRate.toFixed(3)}`);
}
