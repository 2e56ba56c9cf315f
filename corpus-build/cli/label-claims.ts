/**
 * `npm run label:claims -- <sheet|merge|agreement> …`: hand labels of (claim, passage) pairs from
 * real answers, and the agreement of the support judge (the grounding check's decision) with them.
 *
 *   sheet      --replies a.jsonl,b.jsonl --out <sheet.jsonl>
 *              every claim of the kept replies (eval:answers --out files) paired with each passage it
 *              cites, and with the judge's best other context passage when its cited ones fail (an
 *              uncited claim: with the judge's best passage); the
 *              sheet holds the texts for reading (keep it out of the repository: passages are corpus text)
 *   merge      --sheet <sheet.jsonl> --labels <labels.jsonl> [--out corpus-build/calibration/claim-labels.jsonl]
 *              labels ({"pair", "label": "supported" | "partly" | "not"}) joined with the judge's measures;
 *              the committed file records claims by SHA-256 prefix only
 *   agreement  [--labels corpus-build/calibration/claim-labels.jsonl] [--json] [--write]
 *              (--write: src/core/answer/judge-agreement.json, the generated claims' strict figures the app reads)
 *              precision and recall of the judge's "supported" against the labels at the configured
 *              thresholds (strict: "partly" counts as not supported; lenient: as supported), and what
 *              calibrate() would pick on them
 *
 * docs/labelling-guide.md says how pairs are labelled.
 */
import { createHash } from 'node:crypto';
import { existsSync, readFileSync, writeFileSync } from 'node:fs';
import { basename, resolve } from 'node:path';
import { parseArgs } from 'node:util';
import { DEFAULT_ANSWER_CONFIG } from '../../src/core/answer/config.js';
import { stripCitations } from '../../src/core/answer/citations.js';
import { checkGrounding, measureSupport, type AnswerClaim } from '../../src/core/answer/grounding.js';
import { calibrate } from '../calibration/thresholds.js';
import { judgeAgreement, judgeSays, type ClaimLabel } from '../../src/core/evaluation/judge-agreement.js';
import type { Chunk } from '../../src/core/model/chunk.js';
import { groundingTexts, leadClaims } from '../../src/core/answer/quotes.js';
import { gridForChunk } from '../../src/core/sora/tables/grid.js';
import { CLAIM_LABELS, type AnswerRecord } from '../node/answer-eval.js';

const DEFAULT_LABELS = CLAIM_LABELS;

const { values, positionals } = parseArgs({
  allowPositionals: true,
  options: {
    replies: { type: 'string' },
    model: { type: 'string' },
    sheet: { type: 'string' },
    labels: { type: 'string' },
    out: { type: 'string' },
    json: { type: 'boolean', default: false },
    write: { type: 'boolean', default: false },
    help: { type: 'boolean', short: 'h', default: false },
  },
});
const cwd = process.env.INIT_CWD ?? process.cwd();
const fail = (msg: string): never => {
  console.error(`label:claims: ${msg}`);
  process.exit(2);
};
const readJsonl = <T>(path: string): T[] => {
  if (!existsSync(path)) fail(`${path}: no such file.`);
  return readFileSync(path, 'utf8')
    .split('\n')
    .filter((l) => l.trim())
    .map((l, i) => {
      try {
        return JSON.parse(l) as T;
      } catch {
        return fail(`${path}, line ${i + 1}: not valid JSON.`);
      }
    });
};
/** The answering model's short name, from the reply's GGUF file name (or --model for replies kept before it was recorded). */
const modelName = (gguf: string | undefined, file: string): string => {
  if (!gguf) return fail(`${file}: its replies do not say which model wrote them (kept before 2026-11-28); name it with --model <gguf file name>.`);
  return basename(gguf)
    .replace(/\.gguf$/, '')
    .replace(/-instruct-q\w+$/i, '');
};
const sha = (s: string): string => createHash('sha256').update(s).digest('hex').slice(0, 16);

interface SheetRow {
  pair: string;
  model: string;
  question: string;
  claim: string;
  passage: string;
  /** cited by the model, the judge's best uncited passage, or a quotation against its passage (quoted answers) */
  role: 'cited' | 'alternative' | 'quoted';
  form: 'quoted' | 'structured' | 'free';
  passageTitle: string;
  passageText: string;
  similarity: number;
  overlap: number;
  missingNumbers: string[];
  judge: boolean;
}

const command = positionals[0];
if (values.help || !command) {
  console.log(
    'Usage: npm run label:claims -- sheet --replies a.jsonl,b.jsonl --out sheet.jsonl [--model <gguf> for replies that do not name it]\n       npm run label:claims -- merge --sheet sheet.jsonl --labels labels.jsonl [--out file]\n       npm run label:claims -- agreement [--labels file] [--json]',
  );
  process.exit(command ? 0 : 2);
}

if (command === 'sheet') {
  if (!values.replies || !values.out) fail('sheet needs --replies and --out.');
  const { nodeEngine } = await import('../node/engine.js');
  const loaded = await nodeEngine({});
  const chunkOf = (id: string): Chunk | undefined => loaded.index.chunks[loaded.index.rowOf.get(id) ?? -1];
  const cfg = DEFAULT_ANSWER_CONFIG.grounding;
  const rows: SheetRow[] = [];
  // the passage and the judge's measures of one pair, as the sheet shows them
  const measured = (chunk: Pick<Chunk, 'title' | 'text'>, m: Awaited<ReturnType<typeof measureSupport>>) => ({
    passageTitle: chunk.title,
    passageText: chunk.text,
    similarity: Math.round(m.similarity * 1e4) / 1e4,
    overlap: Math.round(m.overlap * 1e4) / 1e4,
    missingNumbers: m.missingNumbers,
    judge: judgeSays({ ...m, missingNumbers: m.missingNumbers.length }, cfg),
  });
  for (const file of (values.replies as string).split(',')) {
    for (const r of readJsonl<AnswerRecord & { model?: string }>(resolve(cwd, file))) {
      if (!r.modelCalled) continue;
      const model = modelName(r.model ?? (values.model as string | undefined), file);
      // a quoted answer's generated text is its lead: each sentence against the quoted units (the quotes themselves are verbatim)
      const q = r.quoted;
      const context: { id: string; title: string; text: string }[] = q
        ? groundingTexts(q.unitIds, chunkOf, gridForChunk)
        : r.contextIds.map(chunkOf).filter((c): c is Chunk => !!c);
      const subject: AnswerClaim[] | string = q ? leadClaims(q.lead, q.unitIds) : r.structured ? r.structured.modelClaims : r.answer;
      // the quotations themselves, each against its whole passage: a strict reader checks that a quote is a statement the passage makes
      for (const x of q?.quotes ?? []) {
        const chunk = chunkOf(x.chunkId);
        if (!chunk) continue;
        const claim = x.header ? `${x.header}: ${x.text}` : x.text;
        const m = await measureSupport(claim, chunk, loaded.baseEmbedder, cfg);
        rows.push({
          pair: sha(`quote|${r.id}|${claim}|${x.chunkId}`),
          model,
          question: r.id,
          claim,
          passage: x.chunkId,
          role: 'quoted',
          form: 'quoted',
          ...measured(chunk, m),
        });
      }
      if (q && !q.lead) continue;
      const report = await checkGrounding({ answer: subject, chunks: context, embedder: loaded.baseEmbedder, config: cfg });
      const textOf = (id: string) => context.find((c) => c.id === id);
      for (const s of report.sentences) {
        if (s.kind !== 'claim') continue;
        const claim = stripCitations(s.text);
        const targets: { id: string; role: SheetRow['role'] }[] = s.citations.filter((id) => textOf(id)).map((id) => ({ id, role: 'cited' as const }));
        // an uncited claim (free-form answers) is paired with the passage the judge found best for it
        const alt = s.citations.length ? (s.supported ? null : s.alternativeChunk) : s.bestChunk;
        if (alt && !targets.some((t) => t.id === alt)) targets.push({ id: alt, role: 'alternative' });
        for (const t of targets) {
          const chunk = textOf(t.id)!;
          const m = await measureSupport(claim, chunk, loaded.baseEmbedder, cfg);
          rows.push({
            pair: sha(`${model}|${r.id}|${claim}|${t.id}`),
            model,
            question: r.id,
            claim,
            passage: t.id,
            role: t.role,
            form: q ? 'quoted' : r.structured ? 'structured' : 'free',
            ...measured(chunk, m),
          });
        }
      }
    }
  }
  const unique = [...new Map(rows.map((r) => [r.pair, r])).values()];
  writeFileSync(resolve(cwd, values.out as string), unique.map((r) => JSON.stringify(r)).join('\n') + '\n');
  console.log(
    `${unique.length} pairs (${unique.filter((r) => r.role === 'cited').length} cited, ${unique.filter((r) => r.judge).length} judged supported) → ${values.out}`,
  );
} else if (command === 'merge') {
  if (!values.sheet || !values.labels) fail('merge needs --sheet and --labels.');
  const sheet = new Map(readJsonl<SheetRow>(resolve(cwd, values.sheet as string)).map((r) => [r.pair, r]));
  const out: ClaimLabel[] = [];
  for (const l of readJsonl<{ pair: string; label: string; note?: string }>(resolve(cwd, values.labels as string))) {
    const r = sheet.get(l.pair);
    if (!r) fail(`label for pair ${l.pair}: not in the sheet.`);
    if (l.label !== 'supported' && l.label !== 'partly' && l.label !== 'not') fail(`pair ${l.pair}: label must be supported, partly or not, not "${l.label}".`);
    out.push({
      pair: r!.pair,
      model: r!.model,
      question: r!.question,
      claimSha: sha(r!.claim),
      words: r!.claim.split(/\s+/).length,
      passage: r!.passage,
      role: r!.role,
      form: r!.form,
      label: l.label as ClaimLabel['label'],
      similarity: r!.similarity,
      overlap: r!.overlap,
      missingNumbers: r!.missingNumbers.length,
      ...(l.note ? { note: l.note } : {}),
      // every label merged from 2026-11-28 on is read by the strict rules (docs/labelling-guide.md)
      reading: 'strict',
    });
  }
  const target = resolve(cwd, values.out ?? DEFAULT_LABELS);
  writeFileSync(target, out.map((r) => JSON.stringify(r)).join('\n') + '\n');
  console.log(`${out.length} labelled pairs → ${target}`);
} else if (command === 'agreement') {
  const labels = readJsonl<ClaimLabel>(resolve(cwd, values.labels ?? DEFAULT_LABELS));
  const t = DEFAULT_ANSWER_CONFIG.grounding;
  // the judge on what a model wrote (leads, structured and free claims), on quotations, and on the labels before quoted answers
  const subsets: [string, ClaimLabel[]][] = [
    ['all', labels],
    ['generated (leads, structured and free claims)', labels.filter((l) => l.role !== 'quoted')],
    ['quoted answers: leads', labels.filter((l) => l.form === 'quoted' && l.role !== 'quoted')],
    ['quoted answers: quotations', labels.filter((l) => l.role === 'quoted')],
    ['structured claims', labels.filter((l) => l.form === 'structured')],
    ['free-form sentences', labels.filter((l) => l.form === 'free')],
  ];
  const strict = labels.filter((l) => l.reading === 'strict');
  subsets.push(
    ['strict reading: generated', strict.filter((l) => l.role !== 'quoted')],
    ['strict reading: quotations', strict.filter((l) => l.role === 'quoted')],
  );
  const report = Object.fromEntries(subsets.filter(([, ls]) => ls.length).map(([name, ls]) => [name, judgeAgreement(ls, t)]));
  // the app's figure: generated claims read strictly, when there are any (the earlier labels were read less strictly)
  const generated = report['strict reading: generated'] ?? report['generated (leads, structured and free claims)'] ?? report.all!;
  const leads = strict.filter((l) => l.form === 'quoted' && l.role !== 'quoted');
  const picked = calibrate(
    labels.map((l) => ({ similarity: l.similarity, overlap: l.overlap, numbersOk: l.missingNumbers === 0, supported: l.label === 'supported' })),
  );
  if (values.write) {
    // the figures the app reads to decide whether it may say "Grounded" (src/core/answer/verdict.ts)
    const file = resolve(cwd, 'src/core/answer/judge-agreement.json');
    const labelsSha = createHash('sha256')
      .update(readFileSync(resolve(cwd, values.labels ?? DEFAULT_LABELS)))
      .digest('hex');
    writeFileSync(
      file,
      JSON.stringify(
        {
          strictPrecision: generated.strict.precision ?? 0,
          strictRecall: generated.strict.recall ?? 0,
          pairs: generated.pairs,
          // what a strict reader made of the leads (the model's summaries above quotations): the app says it
          leads: { pairs: leads.length, supported: leads.filter((l) => l.label === 'supported').length },
          provenance: {
            command: 'npm run label:claims -- agreement --write',
            labels: values.labels ?? DEFAULT_LABELS,
            sha256: labelsSha,
            subset: report['strict reading: generated']
              ? 'generated claims read strictly (quotations and earlier labels left out)'
              : 'generated claims (quotations left out)',
            date: new Date().toISOString().slice(0, 10),
          },
        },
        null,
        2,
      ) + '\n',
    );
    console.error(`wrote ${file}`);
  }
  if (values.json) console.log(JSON.stringify({ ...report, calibrateWouldPick: { similarity: picked.similarity, overlap: picked.overlap } }));
  else {
    const f = (x: number | null): string => (x === null ? 'n/a' : x.toFixed(3));
    console.log(`thresholds ${t.similarity} / ${t.overlap}`);
    for (const [name, a] of Object.entries(report))
      console.log(
        `${name}: ${a.pairs} pairs (${a.byLabel.supported} supported, ${a.byLabel.partly} partly, ${a.byLabel.not} not) — strict precision ${f(a.strict.precision)}, recall ${f(a.strict.recall)}; lenient ${f(a.lenient.precision)} / ${f(a.lenient.recall)}`,
      );
    console.log(`calibrate() on the strict labels would pick similarity ${picked.similarity} / overlap ${picked.overlap} (not applied)`);
  }
} else fail(`unknown command "${command}" (sheet, merge or agreement).`);
