/**
 * `npm run eval -- --questions <file.jsonl> [--corpus <id>] [--json] [--cv K]` and
 * ablation flags. Prints Hit@1/3/5/10 and MRR per variant, per corpus and overall,
 * and the no-evidence rate on unanswerable questions. `--cv K` adds, for every
 * tunable choice (corpus-build/eval/knobs.ts), the group-wise K-fold estimate: the
 * value picked on K−1 folds, measured on the held-out fold.
 */
import { parseArgs } from 'node:util';
import { type RetrievalConfigOverrides } from '../../src/core/retrieval/config.js';
import { deepMerge } from '../../src/core/config/merge.js';
import {
  type Metrics,
  type QuestionOutcome,
  type RetrievalQuestion,
  firstHitRank,
  isHit,
  summarise,
  type EvalReport,
  documentSelection,
  goldDocuments,
} from '../../src/core/evaluation/retrieval-metrics.js';
import { type AgentConfig, agentConfigForEmbedder, createDocumentAgents } from '../../src/core/agents/agents.js';
import { crossValidateChoice, foldsOf, type ChoiceEstimate } from '../../src/core/evaluation/cross-validation.js';
import { readRetrievalQuestions } from '../node/read-cases.js';
import { decideCoverage, retrieveLocal } from '../../src/core/ask/retrieve.js';
import { eraOf } from '../../src/core/retrieval/engine.js';
import { nodeEngine, nodeScope } from '../node/engine.js';
import { questionFilters } from '../node/question-filters.js';
import { deterministicDecomposer, retrieveDecomposed } from '../../src/core/retrieval/decompose.js';
import { AGENT_KNOBS, KNOBS, type Knob } from '../eval/knobs.js';
import { ablationOverrides } from '../eval/ablation-flags.js';
import { sha256File } from '../node/file-hash.js';
import { buildBm25 } from '../../src/core/index/bm25.js';
import { createRetrievalEngine } from '../../src/core/retrieval/engine.js';
import { appendFileSync, existsSync, mkdirSync, readFileSync } from 'node:fs';
import { basename, resolve } from 'node:path';
import { createLlamaEngine } from '../node/llama-engine.js';
import { alternativesFrom, assistQuery, type QueryAssistance } from '../../src/core/answer/query-assist.js';

const USAGE = `Usage: npm run eval -- --questions <file.jsonl> [--corpus <id>] [--json] [--cv K] [ablation flags]

  --cv K           group-wise K-fold cross-validated estimate for every tunable choice
  --rewrite <gguf> model-assisted retrieval: the GGUF model (node-llama-cpp, CPU) rewrites each
                   question, writes a hypothetical answer and sub-questions, searched as extra
                   formulations (replies cached in .cache/assist/)
  ablation flags   --dense-only --bm25-only --mmr --post --rerank --no-rerank --elbow --no-threshold
                   --no-windows --no-questions (synthetic-question vectors) --no-question-bm25
                   (BM25 without the synthetic questions) --expansion --voy --decompose
                   --rrf-k60 (the fusion constant before the bank's CV chose 10);
                   --rerank and --no-rerank, --dense-only and --bm25-only exclude each other
  --agents         document agents (the agent-based RAG paper): top-3 documents from the summary index
                   and the flat hits they own, retrieval inside each, per-document evidence gate, merged
                   ranking; adds "documentSelection" {n, top1, top3} (gold passage's document among the
                   selected ones). Without --agents, documentSelection is measured on the flat ranking
                   (its first three distinct documents), for comparison
  --agent-merge global|weighted-rrf  how the documents' evidence is merged (default global)
  --knobs all|retrieval|agents  which choices --cv cross-validates (default all: the retrieval
                   knobs, plus the agents' with --agents)
  --no-scope       without the "not in these documents" decision (src/core/ask/scope.ts): the evidence
                   gate alone decides refusals
  --embedder <id>  retrieve with another model's vector set (npm run index:vectors), as the app does
                   after the user downloads it; its own calibrated evidence gate
  --verbose        one line per question on stderr`;

let values: Record<string, string | boolean | undefined>;
try {
  values = parseArgs({
    options: {
      questions: { type: 'string' },
      corpus: { type: 'string' },
      json: { type: 'boolean', default: false },
      cv: { type: 'string' },
      rewrite: { type: 'string' },
      threads: { type: 'string', default: '2' },
      'dense-only': { type: 'boolean', default: false },
      'bm25-only': { type: 'boolean', default: false },
      post: { type: 'boolean', default: false },
      rerank: { type: 'boolean', default: false },
      'no-rerank': { type: 'boolean', default: false },
      'no-threshold': { type: 'boolean', default: false },
      voy: { type: 'boolean', default: false },
      'rrf-k60': { type: 'boolean', default: false },
      mmr: { type: 'boolean', default: false },
      elbow: { type: 'boolean', default: false },
      'no-windows': { type: 'boolean', default: false },
      'no-questions': { type: 'boolean', default: false },
      'no-question-bm25': { type: 'boolean', default: false },
      'no-scope': { type: 'boolean', default: false },
      expansion: { type: 'boolean', default: false },
      decompose: { type: 'boolean', default: false },
      agents: { type: 'boolean', default: false },
      'agent-merge': { type: 'string' },
      knobs: { type: 'string', default: 'all' },
      verbose: { type: 'boolean', default: false },
      embedder: { type: 'string' },
      help: { type: 'boolean', short: 'h', default: false },
    },
  }).values;
} catch (e) {
  console.error(`${(e as Error).message}\n\n${USAGE}`);
  process.exit(2);
}

function fail(msg: string): never {
  console.error(msg);
  process.exit(2);
}
if (values.help) {
  console.log(USAGE);
  process.exit(0);
}
// the ablation flags' overrides, merged at any depth; contradictory flags are a usage error
const ablation = ablationOverrides(values);
if (!ablation.ok) fail(`${ablation.message}\n\n${USAGE}`);
if (!values.questions) fail(USAGE);
let questions: RetrievalQuestion[];
try {
  questions = readRetrievalQuestions(values.questions as string);
} catch (e) {
  fail((e as Error).message);
}

const over: RetrievalConfigOverrides = ablation.over;

let loaded: Awaited<ReturnType<typeof nodeEngine>>;
try {
  loaded = await nodeEngine({ voy: !!values.voy, ...(values.embedder ? { embedder: values.embedder as string } : {}) });
} catch (e) {
  fail((e as Error).message);
}
const { engine: baseEngine, index, embedder } = loaded;
// --no-question-bm25: the lexical index rebuilt from the chunks alone (without their synthetic questions)
const engine = values['no-question-bm25']
  ? createRetrievalEngine({ index: { ...index, bm25: buildBm25(index.chunks) }, embedder, ...(loaded.reranker ? { reranker: loaded.reranker } : {}) })
  : baseEngine;
const known = new Set(index.manifest.sources.map((s) => s.id));
const corpus = values.corpus as string | undefined;
if (corpus && !known.has(corpus)) fail(`Unknown corpus "${corpus}". The index holds: ${[...known].join(', ')}.`);
const selected = corpus ? questions.filter((q) => q.corpus === corpus || q.corpus === 'any') : questions;
const groupOf = (q: { id: string; group?: string }) => q.group ?? q.id;

// query embeddings are computed once and reused by every configuration
const vectors = new Map<string, Float32Array>();
async function vectorOf(text: string): Promise<Float32Array> {
  let v = vectors.get(text);
  if (!v) {
    [v] = await embedder.embed([text], 'query');
    vectors.set(text, v!);
  }
  return v!;
}

const cachedEmbedder = { embed: (texts: string[]) => Promise.all(texts.map(vectorOf)) };
// what the documents do not hold, as the app decides it (--no-scope: the gate alone, as before)
const scopeCheck = values['no-scope'] ? null : nodeScope({ baseIndex: loaded.baseIndex, baseEmbedder: loaded.baseEmbedder });

// model-assisted retrieval: one reply per question, cached by model file hash and question
const assisted = new Map<string, { text: string; label: string }[]>();
let assistReport: Record<string, unknown> | undefined;
if (values.rewrite) {
  const modelPath = resolve(process.env.INIT_CWD ?? process.cwd(), values.rewrite as string);
  if (!existsSync(modelPath)) fail(`--rewrite: model file not found: ${modelPath}`);
  const modelSha = await sha256File(modelPath);
  const cacheFile = `.cache/assist/${modelSha.slice(0, 16)}.jsonl`;
  const cache = new Map<string, QueryAssistance>(
    existsSync(cacheFile)
      ? readFileSync(cacheFile, 'utf8')
          .split('\n')
          .filter(Boolean)
          .map((l) => {
            const r = JSON.parse(l);
            return [r.question, r.assistance];
          })
      : [],
  );
  const todo = selected.filter((q) => !cache.has(q.question));
  let llm: Awaited<ReturnType<typeof createLlamaEngine>> | null = null;
  if (todo.length) {
    llm = await createLlamaEngine(modelPath, { threads: Number(values.threads) });
    mkdirSync('.cache/assist', { recursive: true });
    let n = 0;
    for (const q of todo) {
      const a = await assistQuery(q.question, llm);
      cache.set(q.question, a);
      appendFileSync(cacheFile, `${JSON.stringify({ question: q.question, assistance: a })}\n`);
      if (values.verbose || ++n % 10 === 0) console.error(`  model assistance ${n}/${todo.length}`);
    }
  }
  for (const q of selected) assisted.set(q.question, alternativesFrom(cache.get(q.question)!));
  const st = llm?.stats();
  assistReport = {
    model: basename(modelPath),
    sha256: modelSha,
    parsed: selected.filter((q) => cache.get(q.question)!.parsed).length / Math.max(selected.length, 1),
    ...(st
      ? {
          tokensPerSecond: {
            prefill: Number((st.promptTokens / Math.max(st.prefillSeconds, 1e-9)).toFixed(1)),
            decode: Number((st.outputTokens / Math.max(st.decodeSeconds, 1e-9)).toFixed(1)),
          },
          secondsPerQuestion: Number(((st.prefillSeconds + st.decodeSeconds) / Math.max(todo.length, 1)).toFixed(1)),
        }
      : { cached: true }),
  };
  await llm?.dispose();
}

const merge = values['agent-merge'] as string | undefined;
if (merge && merge !== 'global' && merge !== 'weighted-rrf') fail(`--agent-merge must be "global" or "weighted-rrf", got "${merge}".`);
// with another embedder, its cross-validated agent choices (agents.ts EMBEDDER_AGENT_CHOICES), as the app does
const baseAgentConfig: AgentConfig = {
  ...agentConfigForEmbedder((values.embedder as string | undefined) ?? null),
  ...(merge ? { merge: merge as AgentConfig['merge'] } : {}),
};
const agentsFor = (over: Partial<AgentConfig> = {}) => createDocumentAgents(index, engine, { ...baseAgentConfig, ...over });
const agents = values.agents ? agentsFor() : null;
if (agents && values.decompose) fail('--agents and --decompose cannot be combined.');
const selections: { gold: string[]; selected: string[]; kept?: string[] }[] = [];
// current edition first: questions whose gold includes a passage of the newest SORA edition, and whether an older edition's passage came first
const currentEra = Math.max(0, ...index.chunks.map(eraOf));
const editionChecks: { olderFirst: boolean }[] = [];

async function run(config: RetrievalConfigOverrides, qs: RetrievalQuestion[], agentOver?: Partial<AgentConfig>): Promise<QuestionOutcome[]> {
  const docAgents = agents && agentOver ? agentsFor(agentOver) : agents;
  const outcomes: QuestionOutcome[] = [];
  selections.length = 0;
  editionChecks.length = 0;
  for (const q of qs) {
    const options = { filters: questionFilters(q.question, corpus), config, alternatives: assisted.get(q.question) ?? [] };
    let r;
    let selected: string[];
    let kept: string[] | undefined;
    if (values.decompose) {
      r = await retrieveDecomposed(engine, q.question, deterministicDecomposer, (row) => index.chunks[row]!, options);
    } else {
      // the retrieval the app's Ask turn runs (core/ask/retrieve.ts), on cached query vectors
      const { retrieval, agentResult, queryVector } = await retrieveLocal(
        { index, engine, agents: docAgents, queryEmbedder: cachedEmbedder },
        q.question,
        options,
      );
      const scope = await decideCoverage(scopeCheck, q.question, retrieval, { vector: queryVector, embedder: cachedEmbedder });
      r = agentResult ?? retrieval;
      // "not in these documents" is a refusal, as the app says it (counted in the no-evidence rates)
      if (scope) r = { ...r, noEvidence: true };
      if (agentResult) {
        // selected: the documents the selection chose (before the evidence gate; a backfilled one is not counted); kept: those whose evidence passed the gate
        selected = agentResult.consulted
          .slice(0, baseAgentConfig.topDocuments)
          .filter((c) => !c.backfilled)
          .map((c) => c.id);
        kept = agentResult.consulted.filter((c) => c.kept).map((c) => c.id);
      }
    }
    const ranked = r.evidence.map((e) => index.chunks[e.row]!);
    selected ??= [...new Set(ranked.map((c) => c.documentId ?? c.docId))].slice(0, 3);
    const gold = q.answerable ? goldDocuments(q, index.chunks) : [];
    if (q.answerable) selections.push({ gold, selected, kept });
    if (q.answerable && index.chunks.some((c) => eraOf(c) === currentEra && isHit(q, c))) {
      const topEra = ranked[0] ? eraOf(ranked[0]) : 0;
      editionChecks.push({ olderFirst: topEra > 0 && topEra < currentEra });
    }
    const o = { question: q, rank: firstHitRank(q, ranked), noEvidence: r.noEvidence, topIds: ranked.slice(0, 5).map((c) => c.id) };
    outcomes.push(o);
    if (values.verbose)
      console.error(
        `${q.id.padEnd(22)} rank ${o.rank} ${r.noEvidence ? 'NO-EVIDENCE ' : ''}${gold.length && !gold.some((g) => selected.includes(g)) ? `DOCUMENT-MISSED(gold ${gold.join('|')}) ` : ''}${o.topIds[0] ?? ''} gate=${'gate' in r ? (r.gate?.note ?? '-') : '-'}${'consulted' in r ? ` docs=${r.consulted.map((c) => `${c.id}${c.kept ? '' : `(${c.reason})`}`).join(',')}` : ''}`,
      );
  }
  return outcomes;
}

const t0 = performance.now();
const report: EvalReport & {
  cv?: unknown;
  seconds?: number;
  assistance?: unknown;
  documentSelection?: unknown;
  editionOrder?: { n: number; olderFirst: number };
} = summarise(await run(over, selected));
report.documentSelection = {
  ...documentSelection(selections),
  by: agents ? `agents (top 3 documents, merge ${baseAgentConfig.merge}, hit pool ${baseAgentConfig.hitPool})` : 'flat ranking (first 3 distinct documents)',
};
report.editionOrder = { n: editionChecks.length, olderFirst: editionChecks.filter((c) => c.olderFirst).length / Math.max(editionChecks.length, 1) };
if (assistReport) report.assistance = assistReport;

function printReport(r: EvalReport) {
  const row = (name: string, m: Metrics) =>
    `${name.padEnd(24)} ${String(m.n).padStart(4)} ${[m['hit@1'], m['hit@3'], m['hit@5'], m['hit@10']].map((x) => x.toFixed(3).padStart(7)).join('')} ${m.mrr.toFixed(3).padStart(7)}`;
  console.log(`${'set'.padEnd(24)} ${'n'.padStart(4)}   Hit@1  Hit@3  Hit@5 Hit@10     MRR`);
  console.log(row('overall', r.overall));
  for (const [k, m] of Object.entries(r.byVariant)) console.log(row(`variant ${k}`, m));
  for (const [k, m] of Object.entries(r.byCorpus)) console.log(row(`corpus ${k}`, m));
  console.log(`unanswerable: n=${r.unanswerable.n}, no-evidence rate ${r.unanswerable.noEvidenceRate.toFixed(3)}`);
  console.log(`answerable refused ("no evidence"): ${(r.answerableRefused.rate * 100).toFixed(1)} % of ${r.answerableRefused.n}`);
  const ds = (r as { documentSelection?: { n: number; top1: number; top3: number; kept: number; by: string } }).documentSelection;
  const eo = (r as { editionOrder?: { n: number; olderFirst: number } }).editionOrder;
  if (eo)
    console.log(
      `current edition first: of ${eo.n} questions whose gold includes a SORA ${currentEra} passage, ${(eo.olderFirst * 100).toFixed(1)} % had an older edition's passage first`,
    );
  if (ds)
    console.log(
      `document selection (${ds.by}): n=${ds.n}, top1 ${ds.top1.toFixed(3)}, top3 ${ds.top3.toFixed(3)}, among the documents kept at the gate ${ds.kept.toFixed(3)}`,
    );
}

if (values.cv) {
  const k = Number(values.cv);
  const answerable = selected.filter((q) => q.answerable);
  const cvq = answerable.map((q) => ({ id: q.id, group: groupOf(q), variant: q.variant }));
  let folds: Map<string, number>;
  try {
    folds = foldsOf(
      cvq.map((q) => q.group),
      k,
    );
  } catch (e) {
    fail((e as Error).message);
  }
  const which = values.knobs as string;
  if (!['all', 'retrieval', 'agents'].includes(which)) fail(`--knobs must be all, retrieval or agents, got "${which}".`);
  if (which === 'agents' && !agents) fail('--knobs agents needs --agents.');
  const knobs: Knob[] = [...(which === 'agents' ? [] : KNOBS), ...(agents && which !== 'retrieval' ? AGENT_KNOBS : [])];
  const results: { knob: string; labels: string[]; estimate: ChoiceEstimate }[] = [];
  for (const knob of knobs) {
    const ranks: number[][] = [];
    for (const v of knob.values) ranks.push((await run(mergeOver(over, v.over), answerable, v.agent)).map((o) => o.rank));
    results.push({ knob: knob.name, labels: knob.values.map((v) => v.label), estimate: crossValidateChoice(cvq, ranks, folds, k) });
  }
  // every choice tuned at once: each fold runs the values its training folds picked
  const tuned: number[] = new Array(answerable.length).fill(0);
  for (let f = 0; f < k; f++) {
    let cfg: RetrievalConfigOverrides = over;
    let agentCfg: Partial<AgentConfig> = {};
    results.forEach((res, j) => {
      const v = knobs[j]!.values[res.estimate.picked[f]!]!;
      cfg = mergeOver(cfg, v.over);
      agentCfg = { ...agentCfg, ...v.agent };
    });
    const idx = answerable.map((q, i) => (folds.get(groupOf(q)) === f ? i : -1)).filter((i) => i >= 0);
    const outs = await run(
      cfg,
      idx.map((i) => answerable[i]!),
      agentCfg,
    );
    outs.forEach((o, j) => (tuned[idx[j]!] = o.rank));
  }
  const all = crossValidateChoice(cvq, [tuned], folds, k);
  report.cv = {
    k,
    choices: results.map((r) => ({
      choice: r.knob,
      values: r.labels,
      picked: r.estimate.picked.map((p) => r.labels[p]),
      dev: r.estimate.dev,
      heldOut: r.estimate.heldOut,
      heldOutReworked: r.estimate.heldOutByVariant.reworked,
    })),
    allTuned: { heldOut: all.heldOut, heldOutByVariant: all.heldOutByVariant },
  };
  if (!values.json) {
    printReport(report);
    console.log(`\nGroup-wise ${k}-fold cross-validation (value picked on the other folds by MRR; dev = the default value on all questions):`);
    console.log(
      `${'choice'.padEnd(24)} ${'dev MRR'.padStart(8)} ${'CV MRR'.padStart(8)} ${'dev H@5'.padStart(8)} ${'CV H@5'.padStart(8)} ${'CV rew@5'.padStart(9)}  picked per fold`,
    );
    for (const r of results) {
      const e = r.estimate;
      console.log(
        `${r.knob.padEnd(24)} ${e.dev.mrr.toFixed(3).padStart(8)} ${e.heldOut.mrr.toFixed(3).padStart(8)} ${e.dev['hit@5'].toFixed(3).padStart(8)} ${e.heldOut['hit@5'].toFixed(3).padStart(8)} ${(e.heldOutByVariant.reworked?.['hit@5'] ?? 0).toFixed(3).padStart(9)}  ${e.picked.map((p) => r.labels[p]).join(' | ')}`,
      );
    }
    console.log(
      `${'all choices tuned'.padEnd(24)} ${''.padStart(8)} ${all.heldOut.mrr.toFixed(3).padStart(8)} ${''.padStart(8)} ${all.heldOut['hit@5'].toFixed(3).padStart(8)} ${(all.heldOutByVariant.reworked?.['hit@5'] ?? 0).toFixed(3).padStart(9)}`,
    );
  }
} else if (!values.json) {
  printReport(report);
}
if (assistReport && !values.json) console.log(`model assistance: ${JSON.stringify(assistReport)}`);
report.seconds = Number(((performance.now() - t0) / 1000).toFixed(1));
if (values.json) process.stdout.write(`${JSON.stringify(report)}\n`);

/** Overrides on top of overrides, merged at any depth (the configuration's own merge). */
function mergeOver(a: RetrievalConfigOverrides, b: RetrievalConfigOverrides): RetrievalConfigOverrides {
  return deepMerge(a, b);
}
