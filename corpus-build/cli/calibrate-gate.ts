/**
 * `npm run calibrate:gate`: the evidence gate's thresholds, from synthetic
 * questions only (never evaluation questions):
 *   - answerable: held-back synthetic questions (passages never trained on), asked
 *     of the whole index; the gate score is the best candidate's relevance;
 *   - unanswerable: held-back off-topic questions (aviation and drone subjects the
 *     documents do not address, written by the LLM), and held-back questions asked
 *     with their own passage's unit left out (the nearest other passages must not
 *     pass for evidence).
 * The threshold is the largest value that keeps the share of answerable questions
 * refused at or under `--max-refused` (default 5 %). Writes
 * src/core/retrieval/gate-calibration.json (the defaults the engine uses) with the
 * data's figures and the hashes of the models it was calibrated with.
 */
import { createHash } from 'node:crypto';
import { existsSync, readFileSync, writeFileSync } from 'node:fs';
import { resolve } from 'node:path';
import { parseArgs } from 'node:util';
import { nodeEngine } from '../node/engine.js';
import { MODELS_DIR, modelFile } from '../node/model.js';
import { RERANKER_ID } from '../../src/core/retrieval/cross-encoder.js';
import { DEFAULT_EMBEDDER_ID } from '../../src/core/embedding/embedder.js';
import { vectorSetDir } from '../../src/core/index/vector-set.js';

const { values } = parseArgs({
  options: {
    data: { type: 'string', default: '.cache/train' },
    'max-refused': { type: 'string', default: '0.05' },
    // every off-topic question, not only the held-back subjects: right when no model was trained on off-topic questions
    'all-offtopic': { type: 'boolean', default: false },
    // calibrate for another embedder's vector set (npm run index:vectors); written to gate-calibration.<model slug>.json
    embedder: { type: 'string' },
  },
});
const maxRefused = Number(values['max-refused']);
const dir = values.data!;
const read = (f: string) =>
  existsSync(`${dir}/${f}`)
    ? readFileSync(`${dir}/${f}`, 'utf8')
        .split('\n')
        .filter(Boolean)
        .map((l) => JSON.parse(l))
    : [];
const pairs = read('pairs.jsonl').filter((p: { split: string }) => p.split === 'heldback') as { q: string; pos: string }[];
const heldTopic = (t: string) => createHash('sha256').update(t).digest()[0]! % 5 === 0;
const offtopic = read('offtopic.jsonl').filter((o: { topic: string }) => values['all-offtopic'] || heldTopic(o.topic)) as { q: string }[];
if (!pairs.length) {
  console.error(`No held-back questions in ${dir}/pairs.jsonl: run npm run train:data first.`);
  process.exit(2);
}
const unitOf = (id: string) => id.replace(/\/(?:part-\d+|table-[^/]+)$/, '');

const { engine, index, reranker } = await nodeEngine(values.embedder ? { embedder: values.embedder, uncalibratedGate: true } : { uncalibratedGate: true });
const ids = index.chunks.map((c) => c.id);
const embedderFile = modelFile(index.manifest.model.dtype as 'fp32' | 'q8', index.manifest.model.id);
const sha = (f: string) => createHash('sha256').update(readFileSync(f)).digest('hex');

interface Scores {
  rerank: number[];
  dense: number[];
}
async function scores(qs: { q: string; exclude?: string[] }[]): Promise<Scores> {
  const out: Scores = { rerank: [], dense: [] };
  for (const { q, exclude } of qs) {
    const filters = exclude ? { excludeIds: exclude } : {};
    const d = await engine.retrieve(q, { filters, config: { gate: { enabled: true, minDense: -1, minRerank: -1 }, rerank: { enabled: false } } });
    out.dense.push(d.gate?.score ?? -1);
    if (reranker) {
      const r = await engine.retrieve(q, {
        filters,
        config: { gate: { enabled: true, by: 'rerank', minDense: -1, minRerank: -1 }, rerank: { enabled: true } },
      });
      out.rerank.push(r.gate?.source === 'rerank' ? r.gate.score : NaN);
    }
  }
  return out;
}

const t0 = Date.now();
const pos = await scores(pairs.map((p) => ({ q: p.q })));
const withoutOwn = await scores(pairs.map((p) => ({ q: p.q, exclude: ids.filter((id) => unitOf(id) === unitOf(p.pos)) })));
const off = await scores(offtopic.map((o) => ({ q: o.q })));

function calibrate(p: number[], negatives: { name: string; values: number[] }[]) {
  const sorted = [...p].filter(Number.isFinite).sort((a, b) => a - b);
  // largest threshold with at most maxRefused of the answerable below it
  const k = Math.floor(maxRefused * sorted.length);
  const threshold = sorted.length ? sorted[k]! : NaN;
  const refusedAnswerable = sorted.filter((x) => x < threshold).length / Math.max(sorted.length, 1);
  // the trade-off at other refusal budgets, for the record
  const tradeOff = [0.05, 0.1, 0.2, 0.3, 0.5].map((share) => {
    const t = sorted.length ? sorted[Math.floor(share * sorted.length)]! : NaN;
    return {
      answerableRefused: share,
      threshold: Number(t.toFixed(4)),
      ...Object.fromEntries(
        negatives.map((n) => [`${n.name}Refused`, Number((n.values.filter((x) => x < t).length / Math.max(n.values.length, 1)).toFixed(4))]),
      ),
    };
  });
  return {
    tradeOff,
    threshold: Number(threshold.toFixed(4)),
    answerable: { n: sorted.length, refused: Number(refusedAnswerable.toFixed(4)) },
    unanswerable: Object.fromEntries(
      negatives.map((n) => [
        n.name,
        { n: n.values.length, refused: Number((n.values.filter((x) => x < threshold).length / Math.max(n.values.length, 1)).toFixed(4)) },
      ]),
    ),
  };
}
const dense = calibrate(pos.dense, [
  { name: 'offTopic', values: off.dense },
  { name: 'ownPassageLeftOut', values: withoutOwn.dense },
]);
// no finite reranker score (the engine's gate did not report one): no reranker side rather than a threshold of NaN
const rerank =
  reranker && pos.rerank.some(Number.isFinite)
    ? calibrate(pos.rerank, [
        { name: 'offTopic', values: off.rerank },
        { name: 'ownPassageLeftOut', values: withoutOwn.rerank },
      ])
    : null;
const rerankerDir = resolve(MODELS_DIR, RERANKER_ID, 'onnx', 'model_quantized.onnx');
const result = {
  maxRefused,
  embedder: { file: embedderFile.replace(`${process.cwd()}/`, ''), sha256: sha(embedderFile) },
  reranker: reranker && existsSync(rerankerDir) ? { file: rerankerDir.replace(`${process.cwd()}/`, ''), sha256: sha(rerankerDir) } : null,
  dense,
  rerank,
  seconds: Math.round((Date.now() - t0) / 1000),
};
console.log(JSON.stringify(result, null, 2));
const isIndexModel = !values.embedder || values.embedder === DEFAULT_EMBEDDER_ID;
// data, not code: thresholds of the evidence gate calibrated on synthetic questions (held-back passages'
// questions against held-back off-topic questions and questions asked without their own passage);
// recalibrate whenever the embedder or the reranker changes (tests/retrieval/gate-calibration.test.ts compares the hashes)
writeFileSync(
  isIndexModel
    ? 'src/core/retrieval/gate-calibration.json'
    : `src/core/retrieval/gate-calibration.${vectorSetDir(values.embedder!).replace('vectors/', '')}.json`,
  `${JSON.stringify(result, null, 2)}\n`,
);
