/**
 * `npm run coverage:synth -- --model <file.gguf> [--threads 1] [--rounds 3] [--limit n]`
 * `npm run coverage:synth -- --finalize`
 *
 * Writes out-of-scope synthetic questions — on-topic drone questions whose rule lives in
 * an instrument the corpus references but does not contain — with a local instruction
 * LLM (GGUF through node-llama-cpp, CPU only), one call per (absent instrument, round),
 * into corpus-build/data/coverage-questions.jsonl. Rounds go over every instrument before
 * the next round starts, so a partial file still covers them all. Resumable: a record is
 * appended per call; (instrument, round, prompt version) already present are skipped.
 * `--finalize` (also run at the end) rewrites the file in a fixed order and writes
 * corpus-build/data/coverage-questions.meta.json: model and its SHA-256, the script and
 * prompt files with their SHA-256, settings, timings, and the data file's SHA-256 and counts.
 */
import { appendFileSync, createReadStream, existsSync, readFileSync, writeFileSync } from 'node:fs';
import { createHash } from 'node:crypto';
import { basename, resolve } from 'node:path';
import { parseArgs } from 'node:util';
import type { ChatHistoryItem } from 'node-llama-cpp';
import coverageJson from '../../src/core/coverage/coverage.json';
import { absentInstruments, parseCoverage } from '../../src/core/coverage/load.js';
import {
  COVERAGE_EXAMPLE,
  COVERAGE_PROMPT_VERSION,
  COVERAGE_STYLES,
  COVERAGE_SYSTEM_PROMPT,
  cleanCoverageQuestions,
  coverageQuestionPrompt,
  coverageQuestionsSchema,
} from '../coverage/synth-prompt.js';

export interface CoverageQuestionRecord {
  instrument: string;
  round: number;
  prompt: string;
  questions: { style: string; q: string }[];
}

const { values } = parseArgs({
  options: {
    model: { type: 'string' },
    threads: { type: 'string', default: '1' },
    rounds: { type: 'string', default: '3' },
    limit: { type: 'string' },
    finalize: { type: 'boolean', default: false },
    out: { type: 'string', default: 'corpus-build/data/coverage-questions.jsonl' },
  },
});
const outPath = resolve(values.out!);
const metaPath = outPath.replace(/\.jsonl$/, '.meta.json');
const coverage = parseCoverage(coverageJson);
const instruments = absentInstruments(coverage);
const settings = {
  temperature: 0.8,
  topK: 40,
  topP: 0.95,
  maxTokens: 420,
  contextSize: 2048,
  threads: Number(values.threads),
  rounds: Number(values.rounds),
  seed: 'FNV-1a 32-bit of "<instrument id>#<round>"',
  grammar: 'JSON schema of corpus-build/coverage/synth-prompt.ts',
};
const seedOf = (s: string): number => {
  let h = 0x811c9dc5;
  for (let i = 0; i < s.length; i++) h = Math.imul(h ^ s.charCodeAt(i), 0x01000193) >>> 0;
  return h;
};
const fileSha = async (path: string): Promise<string> => {
  const h = createHash('sha256');
  for await (const b of createReadStream(path)) h.update(b as Buffer);
  return h.digest('hex');
};
const readRecords = (): CoverageQuestionRecord[] =>
  existsSync(outPath)
    ? readFileSync(outPath, 'utf8')
        .split('\n')
        .filter((l) => l.trim())
        .map((l) => JSON.parse(l) as CoverageQuestionRecord)
    : [];

async function finalize(model: { name: string; file: string; sha256: string } | null, stats: Record<string, unknown>): Promise<void> {
  const order = new Map(instruments.map((i, n) => [i.id, n]));
  const latest = new Map(
    readRecords()
      .filter((r) => r.prompt === COVERAGE_PROMPT_VERSION && order.has(r.instrument))
      .map((r) => [`${r.instrument}#${r.round}`, r]),
  );
  const records = [...latest.values()].sort((a, b) => a.round - b.round || order.get(a.instrument)! - order.get(b.instrument)!);
  writeFileSync(outPath, records.map((r) => JSON.stringify(r)).join('\n') + (records.length ? '\n' : ''));
  const previous = existsSync(metaPath) ? (JSON.parse(readFileSync(metaPath, 'utf8')) as Record<string, unknown>) : {};
  const scripts = ['corpus-build/cli/coverage-synth.ts', 'corpus-build/coverage/synth-prompt.ts'];
  const meta = {
    formatVersion: 1,
    file: basename(outPath),
    sha256: await fileSha(outPath),
    records: records.length,
    questions: records.reduce((n, r) => n + r.questions.length, 0),
    instrumentsCovered: new Set(records.map((r) => r.instrument)).size,
    instrumentsAbsent: instruments.length,
    roundsComplete: [...new Set(records.map((r) => r.round))].filter((k) => records.filter((r) => r.round === k).length === instruments.length),
    prompt: COVERAGE_PROMPT_VERSION,
    generator: Object.fromEntries(await Promise.all(scripts.map(async (s) => [s, await fileSha(resolve(s))] as const))),
    coverage: { file: 'src/core/coverage/coverage.json', indexManifestSha256: coverage.index.manifestSha256 },
    model: model ?? previous.model ?? null,
    settings,
    stats: { ...((previous.stats as object) ?? {}), ...stats },
    command: 'npm run coverage:synth -- --model <qwen2.5-coder-1.5b-instruct-q4_k_m.gguf> --threads 1 --rounds 3',
  };
  writeFileSync(metaPath, `${JSON.stringify(meta, null, 2)}\n`);
  console.error(
    `${basename(outPath)}: ${meta.records} records, ${meta.questions} questions, ${meta.instrumentsCovered}/${instruments.length} instruments; sha256 ${meta.sha256}`,
  );
}

if (values.finalize) {
  // with --model: record the model a still-running (or interrupted) generation uses
  const m =
    values.model && existsSync(resolve(values.model))
      ? { name: basename(values.model).replace(/\.gguf$/i, ''), file: basename(values.model), sha256: await fileSha(resolve(values.model)) }
      : null;
  await finalize(m, m ? { finalizedWhileRunningAt: new Date().toISOString() } : {});
  process.exit(0);
}
if (!values.model || !existsSync(resolve(values.model))) {
  console.error('coverage:synth: --model <file.gguf> is required (Qwen2.5-Coder-1.5B-Instruct Q4_K_M; see ../shared/models/README.md).');
  process.exit(2);
}
const modelPath = resolve(values.model);
const { getLlama, LlamaChatSession } = await import('node-llama-cpp');
console.error(`Hashing ${basename(modelPath)}…`);
const modelInfo = { name: basename(modelPath).replace(/\.gguf$/i, ''), file: basename(modelPath), sha256: await fileSha(modelPath) };
const llama = await getLlama({ gpu: false, build: 'never', logLevel: 'error' as never });
const model = await llama.loadModel({ modelPath });
const context = await model.createContext({ contextSize: settings.contextSize, threads: settings.threads });
const session = new LlamaChatSession({ contextSequence: context.getSequence(), systemPrompt: COVERAGE_SYSTEM_PROMPT });
const history: ChatHistoryItem[] = [
  { type: 'system', text: COVERAGE_SYSTEM_PROMPT },
  { type: 'user', text: coverageQuestionPrompt(COVERAGE_EXAMPLE.instrument) },
  { type: 'model', response: [JSON.stringify(COVERAGE_EXAMPLE.output)] },
];
const grammar = await llama.createGrammarForJsonSchema(coverageQuestionsSchema() as never);

const done = new Set(
  readRecords()
    .filter((r) => r.prompt === COVERAGE_PROMPT_VERSION)
    .map((r) => `${r.instrument}#${r.round}`),
);
let todo: { ins: (typeof instruments)[number]; round: number }[] = [];
for (let round = 1; round <= settings.rounds; round++) for (const ins of instruments) if (!done.has(`${ins.id}#${round}`)) todo.push({ ins, round });
if (values.limit) todo = todo.slice(0, Number(values.limit));
console.error(
  `${instruments.length} absent instruments × ${settings.rounds} rounds; ${done.size} calls done, ${todo.length} to do now (threads ${settings.threads}).`,
);
const t0 = Date.now();
let outTokens = 0;
let genMs = 0;
let unusable = 0;
let n = 0;
for (const { ins, round } of todo) {
  const key = `${ins.id}#${round}`;
  let parsed: Record<string, string[]> | null = null;
  for (const attempt of [0, 1]) {
    session.setChatHistory(history);
    const t = Date.now();
    const text = await session.prompt(coverageQuestionPrompt(ins), {
      grammar,
      temperature: settings.temperature,
      topK: settings.topK,
      topP: settings.topP,
      seed: seedOf(attempt ? `${key}#retry` : key),
      maxTokens: settings.maxTokens,
    });
    genMs += Date.now() - t;
    outTokens += model.tokenize(text).length;
    try {
      parsed = JSON.parse(text) as Record<string, string[]>;
      break;
    } catch {
      parsed = null;
    }
  }
  n++;
  if (!parsed) {
    unusable++;
    console.error(`  ${key}: no usable reply after a retry; left for the next run`);
    continue;
  }
  const questions = COVERAGE_STYLES.flatMap((s) => cleanCoverageQuestions(parsed![s.key] ?? []).map((q) => ({ style: s.key, q })));
  const rec: CoverageQuestionRecord = { instrument: ins.id, round, prompt: COVERAGE_PROMPT_VERSION, questions };
  appendFileSync(outPath, `${JSON.stringify(rec)}\n`);
  const s = (Date.now() - t0) / 1000;
  const eta = ((todo.length - n) * s) / n / 60;
  console.error(
    `  ${n}/${todo.length} (${((100 * n) / todo.length).toFixed(0)} %) ${s.toFixed(0)} s, ETA ${eta.toFixed(1)} min, ${(outTokens / (genMs / 1000)).toFixed(1)} tokens/s  ${key}: ${questions.length} questions`,
  );
}
await finalize(modelInfo, {
  lastRun: {
    seconds: Math.round(genMs / 1000),
    calls: n,
    unusableReplies: unusable,
    outputTokens: outTokens,
    outputTokensPerSecond: Number((outTokens / Math.max(genMs / 1000, 1e-3)).toFixed(2)),
  },
});
await context.dispose();
await model.dispose();
