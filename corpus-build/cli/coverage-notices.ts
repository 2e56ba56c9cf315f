/**
 * `npm run coverage:notices [-- --file corpus-build/data/coverage-notice-questions.jsonl] [--out <report.json>] [--verbose]`
 *
 * Do "not in these documents" notices point right? Runs the shipped decision (coverage.json and
 * decision-model.json, the app's retrieval: default config, no document agents, as
 * `npm run coverage:ask`) over questions written for this check, each with what is expected:
 * `answerable` (the documents answer it), `notice` (a notice is expected) and `acceptable` (the
 * entries a notice may name without pointing wrong). Counts:
 *   - misdirected: a notice naming an entry not in `acceptable` (on an answerable question or not);
 *   - missing: a notice expected, none given (and how many of those the evidence gate refused anyway);
 *   - answerable refused: an answerable question given a notice or "no evidence".
 * Nothing is fitted or chosen on these questions.
 */
import { readFileSync, writeFileSync } from 'node:fs';
import { parseArgs } from 'node:util';
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

const { values } = parseArgs({
  options: {
    file: { type: 'string', default: 'corpus-build/data/coverage-notice-questions.jsonl' },
    model: { type: 'string', default: 'src/core/coverage/decision-model.json' },
    out: { type: 'string' },
    verbose: { type: 'boolean', default: false },
  },
});

interface Case {
  id: string;
  set: string;
  q: string;
  answerable: boolean;
  notice: boolean;
  acceptable: string[];
}
const cases = readFileSync(values.file!, 'utf8')
  .split('\n')
  .filter((l) => l.trim())
  .map((l) => JSON.parse(l) as Case);
const coverage = parseCoverage(coverageJson);
const model = JSON.parse(readFileSync(values.model!, 'utf8')) as DecisionModel;
const { engine, index, embedder } = await nodeEngine({});
const absent = absentInstruments(coverage);
const vectors = model.similarity ? (await embedder.embed(absent.map(instrumentText), 'document')).map((vector, i) => ({ id: absent[i]!.id, vector })) : [];

interface Outcome extends Case {
  named: string | null;
  why: string | null;
  probability: number | null;
  noEvidence: boolean;
  message: string | null;
  misdirected: boolean;
  missing: boolean;
  answerableRefused: boolean;
}
const out: Outcome[] = [];
for (const c of cases) {
  const { retrieval } = await retrieveLocal({ index, engine, agents: null, queryEmbedder: embedder }, c.q, { filters: questionFilters(c.q) });
  const near = model.similarity ? nearestInstrument((await embedder.embed([c.q], 'query'))[0]!, vectors) : null;
  const d = decideAnswerability(c.q, coverage, evidenceSignal(retrieval), model, near);
  const named = d.verdict === 'not-in-documents' ? d.hit.instrument.id : null;
  const o: Outcome = {
    ...c,
    named,
    why: d.verdict === 'not-in-documents' ? `${d.hit.why.kind}: ${d.hit.why.matched}` : null,
    probability: d.probability,
    noEvidence: retrieval.noEvidence,
    message: d.verdict === 'not-in-documents' ? notInDocumentsMessage(d.hit) : null,
    misdirected: named !== null && !c.acceptable.includes(named),
    missing: c.notice && named === null,
    answerableRefused: c.answerable && (named !== null || retrieval.noEvidence),
  };
  out.push(o);
  const mark = o.misdirected ? 'MISDIRECTED' : o.missing ? 'MISSING' : o.answerableRefused ? 'REFUSED' : 'ok';
  console.log(
    `${c.id} ${mark.padEnd(11)} ${named ?? (retrieval.noEvidence ? '(no evidence)' : '—')}${d.probability !== null ? ` p ${d.probability.toFixed(2)}` : ''}  ${c.q}`,
  );
  if (values.verbose && o.message) console.log(`    ${o.message}`);
}

const count = (xs: Outcome[], f: (o: Outcome) => boolean) => xs.filter(f).length;
const summary = (xs: Outcome[]) => ({
  n: xs.length,
  notices: count(xs, (o) => o.named !== null),
  rightNotices: count(xs, (o) => o.notice && o.named !== null && !o.misdirected),
  misdirected: count(xs, (o) => o.misdirected),
  misdirectedOnAnswerable: count(xs, (o) => o.misdirected && o.answerable),
  misdirectedWrongInstrument: count(xs, (o) => o.misdirected && !o.answerable),
  noticeExpected: count(xs, (o) => o.notice),
  missing: count(xs, (o) => o.missing),
  missingButGateRefused: count(xs, (o) => o.missing && o.noEvidence),
  answerable: count(xs, (o) => o.answerable),
  answerableRefused: count(xs, (o) => o.answerableRefused),
  answerableRefusedByNotice: count(xs, (o) => o.answerable && o.named !== null),
  answerableRefusedByGate: count(xs, (o) => o.answerable && o.named === null && o.noEvidence),
});
const report = {
  generated: new Date().toISOString(),
  command: `npm run coverage:notices -- --file ${values.file}`,
  coverage: { indexManifestSha256: coverage.index.manifestSha256, entries: coverage.instruments.length },
  model: { file: values.model, threshold: model.threshold, date: (model.provenance as { date?: string }).date ?? null },
  all: summary(out),
  bySet: Object.fromEntries([...new Set(out.map((o) => o.set))].map((s) => [s, summary(out.filter((o) => o.set === s))])),
  outcomes: out.map(({ id, named, why, probability, noEvidence, misdirected, missing, answerableRefused }) => ({
    id,
    named,
    why,
    probability: probability === null ? null : Number(probability.toFixed(3)),
    noEvidence,
    misdirected,
    missing,
    answerableRefused,
  })),
};
console.log(JSON.stringify({ all: report.all, bySet: report.bySet }, null, 1));
if (values.out) writeFileSync(values.out, `${JSON.stringify(report, null, 1)}\n`);
