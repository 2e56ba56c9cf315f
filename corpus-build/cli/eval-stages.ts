/**
 * `npm run eval:stages -- --questions <file.jsonl> [--corpus <id>]`: recall of each
 * retrieval stage's candidate list (is a hit among its first k?) for k = 5, 10, 20,
 * 50, with the fused pool widened to 100 and no cut, so one sees where the right
 * passage is lost: never retrieved, or retrieved but ranked too low.
 */
import { parseArgs } from 'node:util';
import { type RetrievalQuestion, isHit } from '../../src/core/evaluation/retrieval-metrics.js';
import { readRetrievalQuestions } from '../node/read-cases.js';
import { nodeEngine } from '../node/engine.js';
import { questionFilters } from '../node/question-filters.js';

const { values } = parseArgs({ options: { questions: { type: 'string' }, corpus: { type: 'string' } } });
if (!values.questions) {
  console.error('Usage: npm run eval:stages -- --questions <file.jsonl> [--corpus <id>]');
  process.exit(2);
}
let questions: RetrievalQuestion[];
try {
  questions = readRetrievalQuestions(values.questions);
} catch (e) {
  console.error((e as Error).message);
  process.exit(2);
}
const { engine, index } = await nodeEngine();
const selected = questions.filter((q) => q.answerable && (!values.corpus || q.corpus === values.corpus || q.corpus === 'any'));
const KS = [5, 10, 20, 50];
const ranks = new Map<string, number[]>();
for (const q of selected) {
  const r = await engine.retrieve(q.question, {
    filters: questionFilters(q.question, values.corpus),
    config: { gate: { enabled: false }, rrf: { k: 60, pool: 100 }, keep: 100 },
  });
  for (const st of r.trace) {
    if (!st.candidates.length && !['synthetic questions', 'bm25', 'windows'].includes(st.stage)) continue;
    const at = st.candidates.findIndex((c) => isHit(q, index.chunks[index.rowOf.get(c.id)!]!));
    const list = ranks.get(st.stage) ?? [];
    list.push(at < 0 ? Infinity : at + 1);
    ranks.set(st.stage, list);
  }
}
console.log(
  `${selected.length} answerable questions${values.corpus ? ` of ${values.corpus}` : ''}; recall@k per stage (a stage with no candidates for a question counts as a miss)`,
);
console.log(`${'stage'.padEnd(22)}${KS.map((k) => `R@${k}`.padStart(8)).join('')}`);
for (const [stage, rs] of ranks) {
  console.log(`${stage.padEnd(22)}${KS.map((k) => (rs.filter((x) => x <= k).length / selected.length).toFixed(3).padStart(8)).join('')}`);
}
