/**
 * `npm run train:data [-- --source bank|synthetic] [--pool 30 --negatives 8]`: training data for the tuned
 * bi-encoder and the cross-encoder reranker, from the question bank (default; docs/question-bank.md) or
 * the older model-written synthetic questions (never from evaluation questions):
 *
 *   .cache/train/passages.jsonl  {id, docId, text}: each chunk's retrieval string
 *   .cache/train/pairs.jsonl     {q, style, pos, negs, posWin, negWins, split}: a synthetic question, its
 *                                passage, hard negatives mined by the current retriever
 *                                (its top `pool` within the same document, minus the
 *                                passage's own unit: parts and tables of one section
 *                                may answer the same question), the text of each one's passage
 *                                window that best matches the question (what the reranker reads),
 *                                and the split
 *   .cache/train/offtopic.jsonl  {q, topic, lookalikes}: off-topic questions and the windows of
 *                                the passages the retriever ranks highest for them (negatives)
 *
 * The split: with the bank, its held-out part is left out entirely, and its CV fold 0 (whole sections)
 * is held back — never trained on, it measures the tuned models on sections they have not seen; with
 * the synthetic questions, every passage whose id hashes to 0 mod 10 (about 10 %) is held back.
 */
import { createHash } from 'node:crypto';
import { mkdirSync, writeFileSync } from 'node:fs';
import { parseArgs } from 'node:util';
import { nodeEngine } from '../node/engine.js';
import { windowScorer } from '../../src/core/retrieval/windows.js';
import { windowText } from '../../src/core/retrieval/rerank-input.js';
import { OFFTOPIC_FILE, type OfftopicQuestions, questionsByChunk, readVerified } from '../synth/store.js';
import { checkBank, readBank } from '../bank/store.js';

const { values } = parseArgs({
  options: {
    pool: { type: 'string', default: '30' },
    negatives: { type: 'string', default: '8' },
    out: { type: 'string', default: '.cache/train' },
    source: { type: 'string', default: 'bank' },
  },
});
const pool = Number(values.pool);
const maxNeg = Number(values.negatives);

export const heldBack = (chunkId: string): boolean => createHash('sha256').update(chunkId).digest()[0]! % 10 === 0;
/** A chunk's unit: its id without the part / table suffix. */
const unitOf = (id: string) => id.replace(/\/(?:part-\d+|table-[^/]+)$/, '');

const { engine, index, embedder } = await nodeEngine();
const windows = windowScorer(index.windows, index.manifest.dimension, index.chunks.length);
const bestWindowText = (qv: Float32Array, id: string): string => {
  const { window } = windows.best(qv, index.rowOf.get(id)!);
  return window < 0 ? index.chunks[index.rowOf.get(id)!]!.retrieval : windowText(index, window);
};
// each passage's questions and the split of each question
const byChunk = new Map<string, { style: string; q: string; split: 'train' | 'heldback' }[]>();
if (values.source === 'bank') {
  for (const q of checkBank(readBank('corpus-build/data'), index.chunks).usable) {
    if (q.split === 'heldout') continue; // the bank's held-out part is reported once, never trained on
    byChunk.set(q.chunk, [...(byChunk.get(q.chunk) ?? []), { style: q.style, q: q.q, split: q.fold === 0 ? 'heldback' : 'train' }]);
  }
} else {
  const synth = questionsByChunk(index.chunks);
  console.error(`${synth.byChunk.size} passages with synthetic questions (${synth.stale} stale, ${synth.missing} without).`);
  for (const [id, qs] of synth.byChunk)
    byChunk.set(
      id,
      qs.map((x) => ({ style: x.style, q: x.q, split: heldBack(id) ? 'heldback' : 'train' })),
    );
}
mkdirSync(values.out!, { recursive: true });
writeFileSync(`${values.out}/passages.jsonl`, index.chunks.map((c) => JSON.stringify({ id: c.id, docId: c.docId, text: c.retrieval })).join('\n') + '\n');

const lines: string[] = [];
const t0 = Date.now();
let n = 0;
const total = [...byChunk.values()].reduce((a, qs) => a + qs.length, 0);
for (const chunk of index.chunks) {
  const qs = byChunk.get(chunk.id);
  if (!qs) continue;
  for (const { style, q, split } of qs) {
    const r = await engine.retrieve(q, { filters: { docIds: [chunk.docId] }, config: { gate: { enabled: false }, rrf: { k: 60, pool }, keep: pool } });
    const negs = r.evidence
      .map((e) => e.id)
      .filter((id) => id !== chunk.id && unitOf(id) !== unitOf(chunk.id))
      .slice(0, maxNeg);
    const rank = r.evidence.findIndex((e) => e.id === chunk.id) + 1;
    const [qv] = await embedder.embed([q]);
    lines.push(
      JSON.stringify({ q, style, pos: chunk.id, negs, posWin: bestWindowText(qv!, chunk.id), negWins: negs.map((id) => bestWindowText(qv!, id)), split, rank }),
    );
    if (++n % 200 === 0) console.error(`  mined ${n}/${total} (${((Date.now() - t0) / 1000).toFixed(0)} s)`);
  }
}
writeFileSync(`${values.out}/pairs.jsonl`, lines.join('\n') + '\n');
let off: OfftopicQuestions[] = [];
try {
  off = readVerified<OfftopicQuestions>(OFFTOPIC_FILE);
} catch (e) {
  console.error(`No off-topic questions (${(e as Error).message.split('.')[0]}).`);
}
const offLines: string[] = [];
for (const r of off) {
  for (const q of r.questions) {
    // the passages that look most like an off-topic question: the reranker's hardest negatives for the gate
    const res = await engine.retrieve(q, { config: { gate: { enabled: false }, keep: 3 } });
    const [qv] = await embedder.embed([q]);
    offLines.push(JSON.stringify({ q, topic: r.topic, lookalikes: res.evidence.map((e) => bestWindowText(qv!, e.id)) }));
  }
}
writeFileSync(`${values.out}/offtopic.jsonl`, offLines.join('\n') + (offLines.length ? '\n' : ''));
console.error(
  `Wrote ${lines.length} pairs (${lines.filter((l) => l.includes('"heldback"')).length} held back) to ${values.out}/ in ${((Date.now() - t0) / 1000).toFixed(0)} s.`,
);
await embedder.dispose?.();
