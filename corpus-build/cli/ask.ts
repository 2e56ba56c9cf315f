/**
 * `npm run ask -- "question" [--trace] [--corpus id] [--json]`: the app's Ask turn without a
 * model (src/core/ask/turn.ts: route, calculator, retrieval, evidence-only answer) over the
 * static index; prints the top evidence (id, title, document, pages, score); --trace prints
 * every retrieval stage's candidates and timing.
 */
import { parseArgs } from 'node:util';

const USAGE = `Usage: npm run ask -- "your question" [options]

Prints the top evidence passages for a question from the static index (build it first with npm run index).

  --corpus <id>   only passages of this source (easa-amc-gm-2019-947, skysafe-sora-curated)
  --trace         every retrieval stage with its candidates and timing
  --json          the full retrieval result as JSON
  -h, --help      this text`;

let parsed: ReturnType<typeof parse>;
function parse() {
  return parseArgs({
    allowPositionals: true,
    options: {
      trace: { type: 'boolean', default: false },
      corpus: { type: 'string' },
      json: { type: 'boolean', default: false },
      help: { type: 'boolean', short: 'h', default: false },
    },
  });
}
try {
  parsed = parse();
} catch (e) {
  console.error(`${(e as Error).message}\n\n${USAGE}`);
  process.exit(2);
}
const { values, positionals } = parsed;
if (values.help) {
  console.log(USAGE);
  process.exit(0);
}
const question = positionals.join(' ').trim();
if (!question) {
  console.error(USAGE);
  process.exit(2);
}
try {
  // loaded after the arguments are read, so --help and usage errors answer at once
  const [{ formatPages }, { nodeEngine, nodeRetrieval }, { runTurn }, { createDocumentAgents }] = await Promise.all([
    import('../../src/core/retrieval/context.js'),
    import('../node/engine.js'),
    import('../../src/core/ask/turn.js'),
    import('../../src/core/agents/agents.js'),
  ]);
  const loaded = await nodeEngine();
  const { engine, index } = loaded;
  const turn = await runTurn(
    { question, settings: values.corpus ? { filters: { docIds: [values.corpus] } } : {}, index: { manifestSha: '' } },
    { retrieval: nodeRetrieval(loaded, createDocumentAgents(index, engine)), model: null },
  );
  const r = turn.ask!.retrieval;
  if (values.json) {
    process.stdout.write(`${JSON.stringify({ route: turn.route, calculator: turn.calc, scope: turn.scope, retrieval: r, evidenceOnly: turn.evidence })}\n`);
  } else {
    if (turn.scope) console.log(`Not in these documents: ${turn.scope.message}\n`);
    if (turn.noEvidence) console.log(`${turn.noEvidence.why}${turn.noEvidence.detail ? ` (${turn.noEvidence.detail})` : ''}`);
    // the answer the app shows without a model (the quotations), then what was retrieved
    if (turn.evidence?.quoted) console.log(`${turn.evidence.text}\n\nRetrieved:`);
    r.evidence.forEach((e, i) => {
      const c = index.chunks[e.row]!;
      console.log(`${String(i + 1).padStart(2)}. ${e.score.toFixed(3)}  ${c.title}\n    ${c.id}\n    ${c.docId}, ${formatPages(c)}`);
    });
    if (values.trace) {
      console.log('\nTrace:');
      for (const s of r.trace) {
        console.log(`  ${s.stage.padEnd(16)} ${s.ms.toFixed(1).padStart(7)} ms  ${s.note ?? ''}`);
        for (const c of s.candidates.slice(0, 10)) console.log(`      ${c.score.toFixed(4)}  ${c.id}`);
      }
    }
  }
} catch (e) {
  console.error((e as Error).message);
  process.exit(1);
}
