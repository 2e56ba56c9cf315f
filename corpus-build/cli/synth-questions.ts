/**
 * `npm run synth:questions -- --model <file.gguf> [--limit N] [--offtopic] [--threads 2]`
 *
 * Writes questions for every chunk of the registered sources with a local
 * instruction LLM (GGUF through node-llama-cpp, CPU only), into the committed data
 * files under corpus-build/data/ (see corpus-build/synth/store.ts). Resumable:
 * passages whose text hash and prompt version already have questions are skipped;
 * each record is appended as soon as it is written, so an interrupted run loses at
 * most one passage. `--offtopic` writes the off-topic negatives instead. At the end
 * the files are rewritten in corpus order and the meta file records the model's
 * SHA-256, the prompt versions, sampling settings, timings and each file's SHA-256.
 *
 * Never run in CI: it takes hours on two cores (see docs/synthetic-questions.md).
 */
import { createReadStream, existsSync, readFileSync, writeFileSync, appendFileSync } from 'node:fs';
import { createHash } from 'node:crypto';
import { basename, resolve } from 'node:path';
import { parseArgs } from 'node:util';
import { chunkSources } from '../build/pipeline.js';
import {
  OFFTOPIC_TOPICS_PROMPT,
  OFFTOPIC_VERSION,
  PROMPT_VERSION,
  QUESTION_STYLES,
  SYSTEM_PROMPT,
  EXAMPLE_OUTPUT,
  EXAMPLE_PASSAGE,
  cleanQuestions,
  offtopicQuestionsPrompt,
  offtopicSchema,
  passagePrompt,
  questionsSchema,
  topicsSchema,
} from '../synth/prompt.js';
import {
  DATA_DIR,
  META_FILE,
  OFFTOPIC_FILE,
  type OfftopicQuestions,
  type PassageQuestions,
  SYNTH_FILE,
  type SynthMeta,
  parseJsonl,
  readMeta,
  sha256,
  textSha,
} from '../synth/store.js';

const HELP = `Usage: npm run synth:questions -- --model <file.gguf> [options]

Writes synthetic questions per passage into corpus-build/data/ (committed; never run in CI).

  --model <file>    GGUF instruction model (the project uses Qwen2.5-Coder-1.5B-Instruct Q4_K_M)
  --limit <n>       stop after n new passages (for trials)
  --only <prefix>   only chunks whose id starts with this prefix
  --offtopic        write the off-topic negatives (offtopic-questions.jsonl) instead
  --threads <n>     CPU threads (default 2; more threads than cores is much slower)
  --temperature <t> sampling temperature (default 0.7)
  --finalize        only rewrite the files in corpus order and refresh the meta file
  -h, --help        this text`;

const { values } = parseArgs({
  options: {
    model: { type: 'string' },
    limit: { type: 'string' },
    only: { type: 'string' },
    offtopic: { type: 'boolean', default: false },
    threads: { type: 'string', default: '2' },
    temperature: { type: 'string', default: '0.7' },
    finalize: { type: 'boolean', default: false },
    help: { type: 'boolean', short: 'h', default: false },
  },
});
if (values.help) {
  console.log(HELP);
  process.exit(0);
}
const fail = (msg: string): never => {
  console.error(msg);
  process.exit(2);
};

const synthPath = resolve(DATA_DIR, SYNTH_FILE);
const offPath = resolve(DATA_DIR, OFFTOPIC_FILE);
const metaPath = resolve(DATA_DIR, META_FILE);
const settings = {
  temperature: Number(values.temperature),
  topK: 40,
  topP: 0.95,
  maxTokens: 450,
  contextSize: 3072,
  threads: Number(values.threads),
  seed: 'FNV-1a 32-bit of the chunk id (offtopic: of the subject)',
  grammar: 'JSON schema of corpus-build/synth/prompt.ts',
  passageChars: 2000,
};
const seedOf = (s: string): number => {
  let h = 0x811c9dc5;
  for (let i = 0; i < s.length; i++) h = Math.imul(h ^ s.charCodeAt(i), 0x01000193) >>> 0;
  return h;
};

const { chunks } = await chunkSources({});
const readExisting = <T>(path: string): T[] => (existsSync(path) ? parseJsonl<T>(readFileSync(path, 'utf8'), basename(path)) : []);

async function fileSha(path: string): Promise<string> {
  const h = createHash('sha256');
  for await (const b of createReadStream(path)) h.update(b as Buffer);
  return h.digest('hex');
}

/** Rewrite both files in a deterministic order, drop stale records, write the meta file. */
async function finalize(model: SynthMeta['model'] | null, stats: Record<string, unknown>) {
  const current = new Map(chunks.map((c) => [c.id, textSha(c.text)]));
  const records = readExisting<PassageQuestions>(synthPath).filter((r) => r.prompt === PROMPT_VERSION && current.get(r.chunk) === r.textSha);
  const latest = new Map(records.map((r) => [r.chunk, r]));
  const ordered = chunks.map((c) => latest.get(c.id)).filter((r): r is PassageQuestions => !!r);
  writeFileSync(synthPath, ordered.map((r) => JSON.stringify(r)).join('\n') + (ordered.length ? '\n' : ''));
  const off = readExisting<OfftopicQuestions>(offPath).filter((r) => r.prompt === OFFTOPIC_VERSION);
  const offLatest = new Map(off.map((r) => [r.topic, r]));
  const offOrdered = [...offLatest.values()];
  if (existsSync(offPath)) writeFileSync(offPath, offOrdered.map((r) => JSON.stringify(r)).join('\n') + (offOrdered.length ? '\n' : ''));
  const previous = readMeta();
  const files: SynthMeta['files'] = {
    [SYNTH_FILE]: { sha256: await fileSha(synthPath), records: ordered.length, questions: ordered.reduce((n, r) => n + r.questions.length, 0) },
  };
  if (existsSync(offPath))
    files[OFFTOPIC_FILE] = { sha256: await fileSha(offPath), records: offOrdered.length, questions: offOrdered.reduce((n, r) => n + r.questions.length, 0) };
  const meta: SynthMeta = {
    formatVersion: 1,
    model: model ?? previous?.model ?? { name: 'unknown', file: 'unknown', sha256: 'unknown' },
    generator: `corpus-build/cli/synth-questions.ts (${PROMPT_VERSION}, ${OFFTOPIC_VERSION})`,
    settings: { ...(previous?.settings ?? {}), ...settings },
    files,
    stats: { ...(previous?.stats ?? {}), ...stats, chunksInCorpus: chunks.length, chunksWithQuestions: ordered.length },
  };
  writeFileSync(metaPath, `${JSON.stringify(meta, null, 2)}\n`);
  console.log(`${SYNTH_FILE}: ${ordered.length}/${chunks.length} passages, ${files[SYNTH_FILE]!.questions} questions; sha256 ${files[SYNTH_FILE]!.sha256}`);
  if (files[OFFTOPIC_FILE]) console.log(`${OFFTOPIC_FILE}: ${files[OFFTOPIC_FILE].records} subjects, ${files[OFFTOPIC_FILE].questions} questions`);
}

if (values.finalize) {
  await finalize(null, {});
  process.exit(0);
}
if (!values.model) fail(`--model is required.\n\n${HELP}`);
const modelPath = resolve(values.model!);
if (!existsSync(modelPath)) fail(`Model file not found: ${modelPath}. Prepare it with npm run models:prepare (or pass the GGUF path).`);

const { getLlama, LlamaChatSession } = await import('node-llama-cpp');
import type { ChatHistoryItem } from 'node-llama-cpp';
console.error(`Hashing ${basename(modelPath)}…`);
const modelInfo = { name: basename(modelPath).replace(/\.gguf$/i, ''), file: basename(modelPath), sha256: await fileSha(modelPath) };
const llama = await getLlama({ gpu: false, build: 'never', logLevel: 'error' as never });
const model = await llama.loadModel({ modelPath });
const context = await model.createContext({ contextSize: settings.contextSize, threads: settings.threads });
const sequence = context.getSequence();

function eta(done: number, total: number, t0: number): string {
  const s = (Date.now() - t0) / 1000;
  const left = done ? ((total - done) * s) / done : NaN;
  return `${done}/${total} (${((100 * done) / Math.max(total, 1)).toFixed(0)} %) ${s.toFixed(0)} s, ETA ${Number.isFinite(left) ? (left / 60).toFixed(1) : '?'} min`;
}

type ChatHistory = ChatHistoryItem[];
/** The chat history each prompt starts from (the worked example for passages). */
let withHistory: ChatHistory | null = null;
let outTokens = 0;
let unusable = 0;
let genMs = 0;
async function ask(
  session: InstanceType<typeof LlamaChatSession>,
  prompt: string,
  schema: object,
  seed: number,
  maxTokens = settings.maxTokens,
): Promise<unknown> {
  const grammar = await llama.createGrammarForJsonSchema(schema as never);
  if (withHistory) session.setChatHistory(withHistory);
  else session.resetChatHistory();
  const t = Date.now();
  const text = await session.prompt(prompt, { grammar, temperature: settings.temperature, topK: settings.topK, topP: settings.topP, seed, maxTokens });
  genMs += Date.now() - t;
  outTokens += model.tokenize(text).length;
  try {
    return JSON.parse(text);
  } catch {
    return null; // cut off by the token limit (the model repeated itself): the caller retries or skips
  }
}

if (values.offtopic) {
  const session = new LlamaChatSession({ contextSequence: sequence });
  const done = new Set(
    readExisting<OfftopicQuestions>(offPath)
      .filter((r) => r.prompt === OFFTOPIC_VERSION)
      .map((r) => r.topic),
  );
  // 40 subjects need more room than one passage's questions; one retry with another seed
  const listed = ((await ask(session, OFFTOPIC_TOPICS_PROMPT, topicsSchema(), seedOf('subjects'), 3 * settings.maxTokens)) ??
    (await ask(session, OFFTOPIC_TOPICS_PROMPT, topicsSchema(), seedOf('subjects') + 1, 3 * settings.maxTokens))) as { subjects: string[] } | null;
  if (!listed) fail('The model did not return a usable subject list twice (cut off or not JSON). Try another model or raise maxTokens.');
  const { subjects } = listed!;
  const todo = [...new Set(subjects.map((s) => s.trim()).filter(Boolean))].filter((s) => !done.has(s));
  const t0 = Date.now();
  let n = 0;
  for (const topic of todo) {
    const { questions } = ((await ask(session, offtopicQuestionsPrompt(topic), offtopicSchema(), seedOf(topic))) ?? { questions: [] }) as {
      questions: string[];
    };
    const rec: OfftopicQuestions = { topic, prompt: OFFTOPIC_VERSION, questions: cleanQuestions(questions) };
    appendFileSync(offPath, `${JSON.stringify(rec)}\n`);
    console.error(`  off-topic ${eta(++n, todo.length, t0)}  ${topic}`);
  }
} else {
  const session = new LlamaChatSession({ contextSequence: sequence, systemPrompt: SYSTEM_PROMPT });
  const example: ChatHistoryItem[] = [
    { type: 'system', text: SYSTEM_PROMPT },
    { type: 'user', text: passagePrompt(EXAMPLE_PASSAGE.title, EXAMPLE_PASSAGE.text) },
    { type: 'model', response: [JSON.stringify(EXAMPLE_OUTPUT)] },
  ];
  withHistory = example;
  const have = new Set(
    readExisting<PassageQuestions>(synthPath)
      .filter((r) => r.prompt === PROMPT_VERSION)
      .map((r) => `${r.chunk}\u0000${r.textSha}`),
  );
  const scope = values.only ? chunks.filter((c) => c.id.startsWith(values.only!)) : chunks;
  let todo = scope.filter((c) => !have.has(`${c.id}\u0000${textSha(c.text)}`));
  const already = scope.length - todo.length;
  if (values.limit) todo = todo.slice(0, Number(values.limit));
  console.error(`${scope.length} passages, ${already} already done, ${todo.length} to write now.`);
  const t0 = Date.now();
  let n = 0;
  for (const c of todo) {
    const prompt = passagePrompt(c.title, c.text, c.kind === 'table');
    // one retry with another seed when the reply is unusable; then no record, so the next run tries again
    const out = ((await ask(session, prompt, questionsSchema(), seedOf(c.id))) ??
      (await ask(session, prompt, questionsSchema(), seedOf(`${c.id}#retry`)))) as Record<string, string[]> | null;
    n++;
    if (!out) {
      unusable++;
      console.error(`  ${c.id}: no usable reply after a retry; left for the next run`);
      continue;
    }
    const questions = QUESTION_STYLES.flatMap((s) => cleanQuestions(out[s.key] ?? []).map((q) => ({ style: s.key, q })));
    const rec: PassageQuestions = { chunk: c.id, textSha: textSha(c.text), prompt: PROMPT_VERSION, questions };
    appendFileSync(synthPath, `${JSON.stringify(rec)}\n`);
    if (n % 5 === 0 || n === todo.length) console.error(`  passages ${eta(n, todo.length, t0)}, ${(outTokens / (genMs / 1000)).toFixed(1)} tokens/s`);
  }
}
await finalize(modelInfo, {
  lastRun: {
    seconds: (genMs / 1000).toFixed(0),
    unusableReplies: unusable,
    outputTokens: outTokens,
    outputTokensPerSecond: Number((outTokens / Math.max(genMs / 1000, 1e-3)).toFixed(2)),
    mode: values.offtopic ? 'offtopic' : 'passages',
  },
});
await context.dispose();
await model.dispose();
