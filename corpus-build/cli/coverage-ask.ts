/**
 * `npm run coverage:ask -- "<question>" ["<question>" …]`: the answerability decision for
 * questions typed on the command line, through the app's retrieval (default config, no
 * document agents) and the committed coverage data and decision model. For trying it out.
 */
import { readFileSync } from 'node:fs';
import coverageJson from '../../src/core/coverage/coverage.json';
import { absentInstruments, parseCoverage } from '../../src/core/coverage/load.js';
import {
  decideAnswerability,
  evidenceSignal,
  instrumentText,
  nearestInstrument,
  notInDocumentsMessage,
  type DecisionModel,
} from '../../src/core/coverage/decide.js';
import { retrieveLocal } from '../../src/core/ask/retrieve.js';
import { nodeEngine } from '../node/engine.js';
import { questionFilters } from '../node/question-filters.js';

const questions = process.argv.slice(2).filter((a) => a.trim());
if (!questions.length) {
  console.error('Usage: npm run coverage:ask -- "<question>" ["<question>" …]');
  process.exit(2);
}
const coverage = parseCoverage(coverageJson);
const model = JSON.parse(readFileSync('src/core/coverage/decision-model.json', 'utf8')) as DecisionModel;
const { engine, index, embedder } = await nodeEngine({});
const absent = absentInstruments(coverage);
const vectors = model.similarity ? (await embedder.embed(absent.map(instrumentText), 'document')).map((vector, i) => ({ id: absent[i]!.id, vector })) : [];
for (const q of questions) {
  const { retrieval } = await retrieveLocal({ index, engine, agents: null, queryEmbedder: embedder }, q, { filters: questionFilters(q) });
  const near = model.similarity ? nearestInstrument((await embedder.embed([q], 'query'))[0]!, vectors) : null;
  const d = decideAnswerability(q, coverage, evidenceSignal(retrieval), model, near);
  console.log(q);
  if (d.verdict === 'not-in-documents')
    console.log(`  not in these documents (p ${d.probability.toFixed(2)}, ${d.hit.why.kind}: "${d.hit.why.matched}")\n  ${notInDocumentsMessage(d.hit)}`);
  else
    console.log(
      `  answerable${d.probability !== null ? ` (p not-in-documents ${d.probability.toFixed(2)})` : ''}${retrieval.noEvidence ? '; the evidence gate found no evidence' : ''}`,
    );
  console.log(
    `  passages: ${
      retrieval.evidence
        .slice(0, 3)
        .map((e) => e.id)
        .join(', ') || '—'
    }`,
  );
}
