/**
 * `npm run bank -- <verb>`: the question bank (docs/question-bank.md).
 *
 *   show --part K --of N [--from I --to J]   print the passages of part K (1-based) for a writer
 *   check FILE...                             check draft lines: chunk ids, quotes found, fields
 *   build [--drafts DIR]                      drafts (default .tmp/bank) → corpus-build/data/question-bank.jsonl + meta
 *   status                                    the committed bank against today's chunks (stale / moved / lost spans)
 *   export [--split train|heldout|all] [--out F]  eval-format questions for `npm run eval` (outside git: they quote the sources)
 *
 * Reads the sources through CORPUS_DIR (chunking only, no embedding: about a second).
 */
import { existsSync, readdirSync, readFileSync, writeFileSync } from 'node:fs';
import { basename, join, resolve } from 'node:path';
import { parseArgs } from 'node:util';
import { chunkSources } from '../build/pipeline.js';
import { sha256 } from '../synth/store.js';
import {
  BANK_FILE,
  BANK_META_FILE,
  CV_FOLDS,
  HELDOUT_SHARE,
  type BankQuestion,
  type BankSkip,
  type DraftLine,
  draftProblems,
  groupOf,
  isSkip,
  locateQuote,
  fnv1a,
  sha16,
  spanText,
  splitOf,
} from '../bank/bank.js';
import { checkBank, readBank } from '../bank/store.js';
import type { Chunk } from '../../src/core/model/chunk.js';

const DATA_DIR = resolve(process.env.SKYCITE_DATA_DIR ?? 'corpus-build/data');
const { positionals, values } = parseArgs({
  allowPositionals: true,
  options: {
    part: { type: 'string' },
    of: { type: 'string' },
    from: { type: 'string' },
    to: { type: 'string' },
    drafts: { type: 'string', default: '.tmp/bank' },
    split: { type: 'string' },
    out: { type: 'string' },
  },
});
const [verb, ...files] = positionals;

const { chunks } = await chunkSources({});

/** Contiguous parts of about equal reading and writing work (text length plus a fixed cost per passage). */
function parts(n: number): [number, number][] {
  const w = chunks.map((c) => c.text.length + 1500);
  const total = w.reduce((a, b) => a + b, 0);
  const out: [number, number][] = [];
  let start = 0;
  let acc = 0;
  for (let i = 0; i < chunks.length; i++) {
    acc += w[i]!;
    if (acc >= (total * (out.length + 1)) / n && out.length < n - 1) {
      out.push([start, i]);
      start = i + 1;
    }
  }
  out.push([start, chunks.length - 1]);
  return out;
}

function show(list: Chunk[]): void {
  for (const c of list) {
    const pages = c.pageStart === null ? '' : c.pageStart === c.pageEnd ? ` · page ${c.pageStart}` : ` · pages ${c.pageStart}–${c.pageEnd}`;
    console.log(`\n===== ${c.id}`);
    console.log(`section: ${c.sectionPath.join(' › ')}${pages} · ${c.edition}${c.part ? ` · part ${c.part.index} of ${c.part.of}` : ''}`);
    console.log('-----');
    console.log(c.text);
  }
}

function readDrafts(paths: string[]): { file: string; line: number; d: DraftLine }[] {
  const out: { file: string; line: number; d: DraftLine }[] = [];
  for (const p of paths) {
    readFileSync(p, 'utf8')
      .split('\n')
      .forEach((raw, i) => {
        if (!raw.trim()) return;
        try {
          out.push({ file: basename(p), line: i + 1, d: JSON.parse(raw) as DraftLine });
        } catch {
          out.push({ file: basename(p), line: i + 1, d: { chunk: '', skip: '' } });
          console.error(`${p}:${i + 1}: not JSON`);
        }
      });
  }
  return out;
}

const textOf = new Map(chunks.map((c) => [c.id, c.text]));
const byId = new Map(chunks.map((c) => [c.id, c]));

if (verb === 'show') {
  const n = Number(values.of ?? 1);
  const k = Number(values.part ?? 1);
  const [a, b] = values.from !== undefined ? [Number(values.from), Number(values.to ?? values.from)] : parts(n)[k - 1]!;
  console.log(`passages ${a}..${b} of ${chunks.length} (part ${k} of ${n})`);
  show(chunks.slice(a, b + 1));
} else if (verb === 'parts') {
  const n = Number(values.of ?? 1);
  parts(n).forEach(([a, b], i) => console.log(`part ${i + 1}: passages ${a}..${b} (${b - a + 1}), ${chunks[a]!.id} … ${chunks[b]!.id}`));
} else if (verb === 'check') {
  const lines = readDrafts(files);
  let bad = 0;
  const perChunk = new Map<string, number>();
  const seen = new Set<string>();
  for (const { file, line, d } of lines) {
    const problems = draftProblems(d, textOf.get(d.chunk));
    if (!isSkip(d)) {
      const key = `${d.chunk}\u0000${(d.q ?? '').toLowerCase().trim()}`;
      if (seen.has(key)) problems.push('the same question twice for this passage');
      seen.add(key);
      perChunk.set(d.chunk, (perChunk.get(d.chunk) ?? 0) + 1);
    } else perChunk.set(d.chunk, perChunk.get(d.chunk) ?? 0);
    if (problems.length) {
      bad++;
      console.log(`${file}:${line} ${d.chunk}: ${problems.join('; ')}`);
    }
  }
  const qs = lines.filter((l) => !isSkip(l.d)).length;
  console.log(`${lines.length} lines, ${qs} questions over ${perChunk.size} passages; ${bad} with problems`);
  if (values.part && values.of) {
    const [a, b] = parts(Number(values.of))[Number(values.part) - 1]!;
    const missing = chunks.slice(a, b + 1).filter((c) => !perChunk.has(c.id));
    console.log(`part ${values.part}: ${missing.length} passages of ${b - a + 1} not yet covered${missing.length ? `: first ${missing[0]!.id}` : ''}`);
  }
  process.exitCode = bad ? 1 : 0;
} else if (verb === 'build') {
  const dir = resolve(values.drafts!);
  const paths = existsSync(dir)
    ? readdirSync(dir)
        .filter((f) => f.endsWith('.jsonl'))
        .sort()
        .map((f) => join(dir, f))
    : [];
  if (paths.length === 0) throw new Error(`No draft files (*.jsonl) in ${dir}.`);
  const lines = readDrafts(paths);
  const questions: BankQuestion[] = [];
  const skips: BankSkip[] = [];
  const rejected: string[] = [];
  const seen = new Set<string>();
  for (const { file, line, d } of lines) {
    const text = textOf.get(d.chunk);
    const problems = draftProblems(d, text);
    if (problems.length || text === undefined) {
      rejected.push(`${file}:${line} ${problems.join('; ')}`);
      continue;
    }
    const chunk = byId.get(d.chunk)!;
    const writer = file.replace(/\.jsonl$/, '');
    if (isSkip(d)) {
      skips.push({ chunk: d.chunk, textSha: sha16(text), skip: d.skip, writer });
      continue;
    }
    const key = `${d.chunk}\u0000${d.q.toLowerCase().trim()}`;
    if (seen.has(key)) {
      rejected.push(`${file}:${line} duplicate question`);
      continue;
    }
    seen.add(key);
    const group = groupOf(chunk);
    questions.push({
      id: '',
      chunk: d.chunk,
      textSha: sha16(text),
      q: d.q.trim(),
      persona: d.persona,
      style: d.style,
      answer: d.answer.map((a) => locateQuote(text, a)!),
      group,
      ...splitOf(group),
      writer,
    });
  }
  const order = new Map(chunks.map((c, i) => [c.id, i]));
  questions.sort((a, b) => order.get(a.chunk)! - order.get(b.chunk)! || a.q.localeCompare(b.q));
  questions.forEach((q, i) => (q.id = `qb-${String(i + 1).padStart(5, '0')}`));
  skips.sort((a, b) => order.get(a.chunk)! - order.get(b.chunk)!);
  const body = questions.map((q) => JSON.stringify(q)).join('\n') + '\n';
  const skipBody = skips.map((s) => JSON.stringify(s)).join('\n') + (skips.length ? '\n' : '');
  writeFileSync(join(DATA_DIR, BANK_FILE), body);
  writeFileSync(join(DATA_DIR, 'question-bank-skips.jsonl'), skipBody);
  const covered = new Set([...questions.map((q) => q.chunk), ...skips.map((s) => s.chunk)]);
  const count = (f: (q: BankQuestion) => boolean) => questions.filter(f).length;
  const tally = <K extends string>(f: (q: BankQuestion) => K) => questions.reduce<Record<string, number>>((m, q) => ((m[f(q)] = (m[f(q)] ?? 0) + 1), m), {});
  const meta = {
    formatVersion: 1,
    generator: 'corpus-build/cli/bank.ts build (drafts written by reading each passage; docs/question-bank.md)',
    sources: Object.fromEntries([...new Set(chunks.map((c) => c.docId))].map((id) => [id, { chunks: chunks.filter((c) => c.docId === id).length }])),
    split: { by: 'section group (groupOf), FNV-1a hash', heldoutShare: HELDOUT_SHARE, cvFolds: CV_FOLDS },
    files: {
      [BANK_FILE]: { sha256: sha256(body), records: questions.length },
      'question-bank-skips.jsonl': { sha256: sha256(skipBody), records: skips.length },
    },
    stats: {
      passages: chunks.length,
      passagesCovered: covered.size,
      passagesWithQuestions: new Set(questions.map((q) => q.chunk)).size,
      questions: questions.length,
      train: count((q) => q.split === 'train'),
      heldout: count((q) => q.split === 'heldout'),
      groups: new Set(questions.map((q) => q.group)).size,
      byPersona: tally((q) => q.persona),
      byStyle: tally((q) => q.style),
      byWriter: tally((q) => q.writer),
      rejectedLines: rejected.length,
    },
  };
  writeFileSync(join(DATA_DIR, BANK_META_FILE), JSON.stringify(meta, null, 2) + '\n');
  for (const r of rejected) console.log(`rejected ${r}`);
  console.log(JSON.stringify(meta.stats, null, 2));
} else if (verb === 'export') {
  // eval-format questions (../shared/eval's format) for `npm run eval`: written outside git, as they quote the sources
  const split = values.split ?? 'train';
  const out = values.out ?? `.tmp/bank-${split}.jsonl`;
  // train-a / train-b: the halves of the training part by question id, as `npm run index -- --questions bank-train-a|b` indexes them
  const half = (id: string) => (fnv1a(id) % 2 === 0 ? 'a' : 'b');
  const bank = checkBank(readBank(DATA_DIR), chunks).usable.filter((q) =>
    split === 'all'
      ? true
      : split === 'train-a' || split === 'train-b'
        ? q.split === 'train' && half(q.id) === split.slice(-1)
        : /^fold\d$/.test(split)
          ? q.split === 'train' && q.fold === Number(split.slice(4))
          : q.split === split,
  );
  const lines = bank.map((q) => {
    const c = byId.get(q.chunk)!;
    const curated = c.docId === 'skysafe-sora-curated';
    const idx = (c.extra as { chunkIndex?: number } | undefined)?.chunkIndex;
    return JSON.stringify({
      id: q.id,
      group: q.group,
      fold: q.fold,
      variant: q.style,
      question: q.q,
      corpus: c.docId,
      answerable: true,
      ...(curated && idx !== undefined ? { gold_chunk_index: [idx] } : { evidence: q.answer.map((a) => ({ quote: spanText(c.text, a)! })) }),
    });
  });
  writeFileSync(out, lines.join('\n') + '\n');
  console.log(`${lines.length} ${split} questions → ${out} (quotes the sources: keep it out of git)`);
} else if (verb === 'status') {
  const bank = readBank(DATA_DIR);
  const report = checkBank(bank, chunks);
  console.log(`${bank.length} questions: ${report.current} current, ${report.moved.length} moved, ${report.lost.length} lost`);
  for (const l of report.lost) console.log(`lost ${l.id} (${l.chunk}): ${l.why}`);
  process.exitCode = report.lost.length ? 1 : 0;
} else {
  console.error('usage: npm run bank -- show --part K --of N | parts --of N | check FILE... | build [--drafts DIR] | status');
  process.exitCode = 2;
}
