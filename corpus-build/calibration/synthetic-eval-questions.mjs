// Questions in the evaluation files' format made from the committed synthetic questions (never from
// evaluation questions), for checking the answer pipeline on real model output: a seeded sample of
// passages (mulberry32, seed 947), one question each (the style rotates), gold = that passage.
//   node corpus-build/calibration/synthetic-eval-questions.mjs 16 .cache/synthetic-eval.jsonl
// then: npm run eval:answers -- --questions .cache/synthetic-eval.jsonl --model <gguf> --records <file>
// grounding-real-labels.jsonl holds the hand labels of the 0.5B answers' sentences made this way.
import { readFileSync, writeFileSync } from 'node:fs';
const chunks = new Map(
  JSON.parse(readFileSync('static-index/chunks.json', 'utf8')).chunks?.map?.((c) => [c.id, c]) ??
    JSON.parse(readFileSync('static-index/chunks.json', 'utf8')).map((c) => [c.id, c]),
);
const recs = readFileSync('corpus-build/data/synthetic-questions.jsonl', 'utf8')
  .split('\n')
  .filter(Boolean)
  .map((l) => JSON.parse(l));
let a = 947;
const rnd = () => {
  a = (a + 0x6d2b79f5) >>> 0;
  let t = a;
  t = Math.imul(t ^ (t >>> 15), t | 1);
  t ^= t + Math.imul(t ^ (t >>> 7), t | 61);
  return ((t ^ (t >>> 14)) >>> 0) / 4294967296;
};
const pool = recs.filter((r) => chunks.has(r.chunk) && r.questions.length);
const out = [];
const used = new Set();
while (out.length < Number(process.argv[2] ?? 16) && used.size < pool.length) {
  const i = Math.floor(rnd() * pool.length);
  if (used.has(i)) continue;
  used.add(i);
  const r = pool[i];
  const c = chunks.get(r.chunk);
  const q = r.questions[out.length % r.questions.length];
  out.push({
    id: `synth-${String(out.length + 1).padStart(2, '0')}`,
    group: `synth-${out.length + 1}`,
    variant: q.style,
    question: q.q,
    corpus: c.docId,
    answerable: true,
    evidence: [{ quote: c.text.replace(/\s+/g, ' ').trim().slice(0, 60) }],
  });
}
writeFileSync(process.argv[3] ?? '.cache/synthetic-eval.jsonl', out.map((o) => JSON.stringify(o)).join('\n') + '\n');
console.log(out.length, 'questions');
