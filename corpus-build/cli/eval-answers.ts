/**
 * `npm run eval:answers -- --questions <file.jsonl> [--model <gguf>] [--json] [options]`
 *
 * Answer quality on real model output: each question goes through the app's
 * pipeline (retrieval with the context budget of a 4,096-token window, the SKYSAFE
 * prompts, `[chunk-id]` citations filtered to the context, the no-evidence rule)
 * with a real model behind the answer stage's ChatEngine — node-llama-cpp on the
 * CPU (one thread by default) with the GGUF of the model the app runs in WebLLM (default: the 0.5B GGUF that
 * `npm run models:prepare` downloads) — then the grounding check with the current thresholds. Prints citation precision,
 * refusal correctness, flagged sentence rate, answer consistency, the agent-based RAG paper's
 * RP / AA / AP (gold labels for relevance) and tokens/s
 * (src/core/evaluation/answer-metrics.ts defines them).
 *
 * Replies are kept in .cache/answers/ (one JSON line per question, keyed by the model
 * file's SHA-256 and a hash of the prompts and settings), so an interrupted run
 * resumes and `--rescore` recomputes the grounding figures without generating again.
 */
import { LEAD_SYSTEM_PROMPT, leadUserMessage } from '../../src/core/answer/prompts.js';
import { createHash } from 'node:crypto';
import { appendFileSync, createReadStream, existsSync, mkdirSync, readFileSync, writeFileSync } from 'node:fs';
import { basename, resolve } from 'node:path';
import { parseArgs } from 'node:util';
import { answerConfig, contextCharsFor } from '../../src/core/answer/config.js';
import { CONDENSE_SCHEMA, CONDENSE_SYSTEM_PROMPT, condensePrompt } from '../../src/core/agents/condense.js';
import { contextMessage, developerPrompt, structuredContextMessage, structuredSystemPrompt, systemPrompt } from '../../src/core/answer/prompts.js';
import { answerSchema } from '../../src/core/answer/structured.js';
import type { AnswerForm } from '../../src/core/answer/config.js';
import { QUERY_ASSIST_SCHEMA, QUERY_ASSIST_SYSTEM_PROMPT } from '../../src/core/answer/query-assist.js';
import { summariseAnswers, type AnswerOutcome } from '../../src/core/evaluation/answer-metrics.js';
import { agentConfigForEmbedder, createDocumentAgents } from '../../src/core/agents/agents.js';
import type { RetrievalQuestion } from '../../src/core/evaluation/retrieval-metrics.js';
import { answerOne, CLAIM_LABELS, outcomeOf, type AnswerRecord } from '../node/answer-eval.js';
import { judgeAgreement, type ClaimLabel } from '../../src/core/evaluation/judge-agreement.js';
import { nodeEngine, nodeRetrieval } from '../node/engine.js';
import { readRetrievalQuestions } from '../node/read-cases.js';

export const DEFAULT_GGUF = '.cache/models/_sources/qwen2.5-coder-0.5b-instruct-q4_k_m.gguf';

const USAGE = `Usage: npm run eval:answers -- --questions <file.jsonl> [--model <file.gguf>] [--json] [options]

  --model <gguf>     the model (default ${DEFAULT_GGUF}, written by npm run models:prepare)
  --threads N        CPU threads for node-llama-cpp (default 1; more threads than free cores is slower)
  --window N         the model's context window in tokens (default 4096, the WebLLM libraries' window)
  --assist           model-assisted retrieval first (one more model call per question, as the app does)
  --agents           the context is the document agents' refined contexts (top 3 documents; the
                     agent-based RAG paper) instead of the flat retrieval's passages
  --condense         with --agents: each kept document's refined context is condensed by the same
                     model first (src/core/agents/condense.ts; one more model call per document)
  --embedder <id>    retrieve with another model's vector set (npm run index:vectors), as the app
                     does after the user downloads it (e.g. google/embeddinggemma-300m)
  --corpus <id>      only questions of this corpus (and "any"), retrieval restricted to it
  --form F           quoted (default, as the app: the ranker's quotations and the model's lead over them),
                     structured (JSON claims under a schema, each citing passage numbers) or free
  --remove-gold      answer with every gold passage taken out of the retrieval (the honest-gap measure)
                     (the SKYSAFE sectioned prose with [n] markers)
  --min-claims N     structured: claims the schema requires (0: an empty list is the model's refusal; default
                     from src/core/answer/config.ts)
  --limit N          the first N selected questions
  --ids a,b          only these question ids
  --out <file>       where replies are kept (default .cache/answers/<model>-<settings>.jsonl)
  --rescore          only score the replies already kept (no model is loaded)
  --records <file>   also write every scored record (answer, citations, grounding) as JSON lines
  --json             one JSON object on stdout`;

let values: Record<string, string | boolean | undefined>;
try {
  values = parseArgs({
    options: {
      questions: { type: 'string' },
      model: { type: 'string' },
      threads: { type: 'string', default: '1' },
      window: { type: 'string', default: '4096' },
      assist: { type: 'boolean', default: false },
      agents: { type: 'boolean', default: false },
      condense: { type: 'boolean', default: false },
      corpus: { type: 'string' },
      embedder: { type: 'string' },
      limit: { type: 'string' },
      ids: { type: 'string' },
      out: { type: 'string' },
      rescore: { type: 'boolean', default: false },
      records: { type: 'string' },
      'max-tokens': { type: 'string' },
      'min-claims': { type: 'string' },
      form: { type: 'string', default: 'quoted' },
      'remove-gold': { type: 'boolean', default: false },
      json: { type: 'boolean', default: false },
      verbose: { type: 'boolean', default: false },
      help: { type: 'boolean', short: 'h', default: false },
    },
  }).values;
} catch (e) {
  console.error(`${(e as Error).message}\n\n${USAGE}`);
  process.exit(2);
}
function fail(msg: string): never {
  console.error(`eval:answers: ${msg}`);
  process.exit(2);
}
if (values.help) {
  console.log(USAGE);
  process.exit(0);
}
if (!values.questions) fail(`--questions is required.\n\n${USAGE}`);
if (values.condense && !values.agents) fail("--condense condenses the document agents' refined contexts: add --agents.");
const cwd = process.env.INIT_CWD ?? process.cwd();

let questions: RetrievalQuestion[];
try {
  questions = readRetrievalQuestions(values.questions as string);
} catch (e) {
  fail((e as Error).message);
}
const corpus = values.corpus as string | undefined;
if (corpus) questions = questions.filter((q) => q.corpus === corpus || q.corpus === 'any');
if (values.ids) {
  const ids = new Set((values.ids as string).split(','));
  questions = questions.filter((q) => ids.has(q.id));
}
if (values.limit) questions = questions.slice(0, Number(values.limit));

if (!['quoted', 'structured', 'free'].includes(String(values.form))) fail(`--form must be quoted, structured or free, not "${String(values.form)}".`);
const form = values.form as AnswerForm;
const config = answerConfig({
  answerForm: form,
  ...(values['max-tokens'] ? { generation: { max_tokens: Number(values['max-tokens']) } } : {}),
  ...(values['min-claims'] !== undefined ? { structured: { minClaims: Number(values['min-claims']) } } : {}),
});
const window = Number(values.window);
const contextChars = contextCharsFor(window, config.generation);

/** SHA-256 of a file, streamed. */
async function fileSha256(path: string): Promise<string> {
  const h = createHash('sha256');
  for await (const part of createReadStream(path)) h.update(part as Buffer);
  return h.digest('hex');
}

// the model: a GGUF for node-llama-cpp
const ggufPath = resolve(cwd, (values.model as string | undefined) ?? DEFAULT_GGUF);
if (!existsSync(ggufPath)) {
  fail(
    `model file not found: ${ggufPath}. ${values.model ? 'Check the path.' : 'Run npm run models:prepare -- --quant q4f32_1 (it downloads the 0.5B GGUF into .cache/models/_sources/), or pass --model <file.gguf>.'}`,
  );
}
const modelLabel = basename(ggufPath);
const modelKey = (await fileSha256(ggufPath)).slice(0, 16);

// what the replies depend on besides the model: prompts, generation settings, context budget, assistance
const settingsKey = createHash('sha256')
  .update(
    JSON.stringify({
      ...(form === 'quoted'
        ? {
            form,
            lead: [LEAD_SYSTEM_PROMPT, leadUserMessage('', []), config.lead],
            ranker: createHash('sha256').update(readFileSync('src/core/answer/unit-ranker.json')).digest('hex'),
          }
        : {}),
      ...(values['remove-gold'] ? { removeGold: true } : {}),
      ...(form === 'structured'
        ? {
            form,
            structured: [structuredSystemPrompt(0, config.structured.minClaims === 0), structuredContextMessage('', ''), answerSchema(5, config.structured)],
          }
        : {}),
      SYSTEM_PROMPT: systemPrompt(config.citationMarkers),
      DEVELOPER_PROMPT: developerPrompt(config.citationMarkers),
      wrapper: contextMessage('', config.citationMarkers),
      markers: config.citationMarkers,
      ack: config.acknowledgement,
      gen: config.generation,
      contextChars,
      assist: values.assist ? [QUERY_ASSIST_SYSTEM_PROMPT, QUERY_ASSIST_SCHEMA] : false,
      corpus: corpus ?? null,
      ...(values.embedder ? { embedder: values.embedder } : {}),
      ...(values.agents ? { agents: agentConfigForEmbedder((values.embedder as string | undefined) ?? null) } : {}),
      ...(values.condense
        ? {
            condense: [
              CONDENSE_SYSTEM_PROMPT,
              CONDENSE_SCHEMA,
              condensePrompt('', { id: '', title: '', edition: '', pages: '', passages: [], extractive: '' }).user,
            ],
          }
        : {}),
    }),
  )
  .digest('hex')
  .slice(0, 8);
const outFile = resolve(cwd, (values.out as string | undefined) ?? `.cache/answers/${modelKey}-${settingsKey}.jsonl`);
mkdirSync(resolve(outFile, '..'), { recursive: true });
const kept = new Map<string, AnswerRecord>();
if (existsSync(outFile)) {
  for (const line of readFileSync(outFile, 'utf8').split('\n')) {
    if (!line.trim()) continue;
    try {
      const r = JSON.parse(line) as AnswerRecord;
      kept.set(r.id, r);
    } catch {
      // a line cut by an interrupted run: that question is answered again
    }
  }
}

let loaded: Awaited<ReturnType<typeof nodeEngine>>;
try {
  loaded = await nodeEngine(values.embedder ? { embedder: values.embedder as string } : {});
} catch (e) {
  fail((e as Error).message);
}
const { engine, index, baseEmbedder } = loaded;
// the document agents run on every question, as in the app; with --agents their contexts are the answer's
const retrieval = nodeRetrieval(loaded, createDocumentAgents(index, engine, agentConfigForEmbedder((values.embedder as string | undefined) ?? null)));
const todo = questions.filter((q) => !kept.has(q.id));
if (todo.length && values.rescore) fail(`--rescore: ${todo.length} of ${questions.length} questions have no kept reply in ${outFile}.`);

if (todo.length) {
  const { createLlamaEngine } = await import('../node/llama-engine.js');
  const chat = await createLlamaEngine(ggufPath, { threads: Number(values.threads), contextSize: window });
  console.error(
    `eval:answers: ${todo.length} questions to answer with ${modelLabel} (${kept.size} kept in ${outFile}); context budget ${contextChars} characters`,
  );
  let n = 0;
  try {
    for (const q of todo) {
      const r = await answerOne(q, {
        retrieval,
        chat,
        modelId: modelLabel,
        contextWindow: window,
        assist: Boolean(values.assist),
        ...(corpus ? { corpus } : {}),
        config,
        answerContext: values.condense ? 'condensed' : values.agents ? 'documents' : 'passages',
        removeGold: Boolean(values['remove-gold']),
      });
      kept.set(q.id, r);
      // the model's file name travels with each reply (label:claims names the model by it)
      appendFileSync(outFile, `${JSON.stringify({ ...r, model: modelLabel })}\n`);
      n++;
      const u = r.usage;
      console.error(
        `  ${n}/${todo.length} ${q.id}: ${r.modelCalled ? `${r.status}, ${r.citations.length} citation(s), ${u?.completionTokens ?? 0} tokens` : 'no evidence (no model call)'} in ${r.seconds.toFixed(0)} s`,
      );
    }
  } finally {
    await chat.dispose();
  }
}

// score with the current grounding thresholds
const outcomes: AnswerOutcome[] = [];
const records: unknown[] = [];
for (const q of questions) {
  const r = kept.get(q.id)!;
  const o = await outcomeOf(r, q, index, baseEmbedder, config);
  outcomes.push(o);
  if (values.records) records.push({ ...r, citationHits: o.citationHits, goldInContext: o.goldInContext, grounding: o.report, correct: o.correct ?? null });
}
const summary = summariseAnswers(outcomes, modelLabel);
if (values.records) writeFileSync(resolve(cwd, values.records as string), records.map((r) => JSON.stringify(r)).join('\n') + '\n');

// the judge's agreement with the hand labels, reported next to the figures it produces
const labelsPath = resolve(cwd, CLAIM_LABELS);
const judge = existsSync(labelsPath)
  ? judgeAgreement(
      readFileSync(labelsPath, 'utf8')
        .split('\n')
        .filter((l) => l.trim())
        .map((l) => JSON.parse(l) as ClaimLabel),
      config.grounding,
    )
  : null;

const out = {
  n: summary.n,
  citationCoverage: summary.citationCoverage,
  citationRecall: summary.citationRecall,
  citationPrecision: summary.citationPrecision,
  answerCorrect: summary.answerCorrect,
  judge: judge ? { labels: judge.pairs, precision: judge.strict.precision, recall: judge.strict.recall, lenient: judge.lenient } : null,
  refusalCorrect: summary.refusalCorrect,
  flaggedSentenceRate: summary.flaggedSentenceRate,
  answerConsistency: summary.answerConsistency,
  tokensPerSecond: summary.tokensPerSecond,
  model: summary.model,
  ragMetrics: summary.ragMetrics,
  detail: {
    ...summary.detail,
    contextChars,
    window,
    assist: Boolean(values.assist),
    context: values.agents ? `document agents (refined contexts of the top 3 documents${values.condense ? ', condensed by the model' : ''})` : 'flat retrieval',
    embedder: index.manifest.model.id,
    // what retrieval ran with: the cross-encoder reranks only when the configuration enables it (off by default, as in the app)
    reranker: !engine.config.rerank.enabled ? 'off (rerank.enabled is false)' : loaded.reranker ? 'on' : 'off (model files missing)',
    grounding: { similarity: config.grounding.similarity, overlap: config.grounding.overlap },
    replies: outFile,
  },
};
if (values.json) process.stdout.write(`${JSON.stringify(out)}\n`);
else {
  const f = (x: number | null) => (x === null ? 'n/a' : x.toFixed(3));
  console.log(
    `model ${out.model}, ${out.n} questions (${summary.detail.answerable} answerable, ${summary.detail.unanswerable} unanswerable), ${summary.detail.modelCalls} model calls`,
  );
  const d = summary.detail;
  console.log(`citation coverage    ${f(out.citationCoverage)}  (${d.claimsCited}/${d.judgedClaims} claims cite a context passage)`);
  console.log(
    `citation recall      ${f(out.citationRecall)}  (${d.claimsSupportedByCitations}/${d.judgedClaims} claims supported by their cited passages together)`,
  );
  console.log(
    `citation precision   ${f(out.citationPrecision)}  (${d.preciseCitations}/${d.citations} citations support their claim alone or are needed for it)`,
  );
  console.log(
    judge
      ? `judge vs hand labels precision ${f(judge.strict.precision)}, recall ${f(judge.strict.recall)} of "supported" (${judge.pairs} labelled pairs, ${CLAIM_LABELS}; "partly" = not)`
      : `judge vs hand labels not measured: ${CLAIM_LABELS} is missing (npm run label:claims)`,
  );
  console.log(
    `answer correctness   ${f(out.answerCorrect)}  (${d.answersCorrect}/${d.answerableJudged} answerable questions with a claim the gold passage supports)`,
  );
  console.log(
    `gold citation share  ${f(d.goldCitationShare)}  (${d.citedIdsHit}/${d.citedIds} cited ids are the gold passage, as shown; model-written ${f(d.modelGoldCitationShare)}, added by the check ${d.attributedIdsHit}/${d.attributedIds})`,
  );
  console.log(`refusal correctness  ${f(out.refusalCorrect)}  (unanswerable questions refused; ${summary.detail.falseRefusals} answerable questions refused)`);
  console.log(`flagged sentences    ${f(out.flaggedSentenceRate)}  (${summary.detail.flaggedSentences}/${summary.detail.sentences})`);
  console.log(
    `answer consistency   ${f(out.answerConsistency)}  (${summary.detail.claimsFoundInContext}/${summary.detail.claims} claims found in the context)`,
  );
  const rag = summary.ragMetrics;
  console.log(
    `RP / AA / AP         ${f(rag.retrievalPrecision)} / ${f(rag.augmentationAccuracy)} / ${f(rag.augmentationPrecision)}  (over ${rag.contextPassages} context passages: relevant by the gold label / used by the answer / relevant ones used)`,
  );
  console.log(`tokens/s             prefill ${out.tokensPerSecond.prefill ?? 'n/a'}, decode ${out.tokensPerSecond.decode ?? 'n/a'}`);
  console.log(
    `citation rate        ${f(summary.detail.citationRate)}  (answers to answerable questions that cite a context passage; ${summary.detail.answersWithoutCitation} cite none)`,
  );
  console.log(`replies kept in ${outFile}`);
}
