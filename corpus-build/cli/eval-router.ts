/**
 * Router evaluation: path accuracy of the keyword/pattern pre-filter on a JSONL file.
 *
 *   tsx corpus-build/cli/eval-router.ts --cases ../shared/eval/router-dev.jsonl [--json]
 *
 * --json prints one object {"n", "accuracy", "confusion"} (confusion[expected][predicted]);
 * otherwise a confusion table and the misrouted queries.
 * Bad input (missing file, malformed line, bad arguments) → message on stderr, exit code 2.
 */
import { EvalInputError, parseEvalArgs, parseJsonl, scoreRouter, toRouterCase } from '../../src/core/evaluation/operations-and-routes.js';
import { readCasesFile } from '../node/read-cases.js';
import { ROUTE_PATHS } from '../../src/core/route/router.js';

const USAGE = 'Usage: eval-router --cases <file.jsonl> [--json]';

function main(argv: readonly string[]): number {
  const args = parseEvalArgs(argv, USAGE);
  const { file, text } = readCasesFile(args.cases);
  const cases = parseJsonl(text, file).map((r) => toRouterCase(r, file));
  const report = scoreRouter(cases);
  if (args.json) {
    process.stdout.write(`${JSON.stringify({ n: report.n, accuracy: report.accuracy, confusion: report.confusion })}\n`);
    return 0;
  }
  const w = 10;
  console.log(`${'expected \\ got'.padEnd(16)}${ROUTE_PATHS.map((p) => p.padStart(w)).join('')}`);
  for (const e of ROUTE_PATHS) console.log(`${e.padEnd(16)}${ROUTE_PATHS.map((p) => String(report.confusion[e][p]).padStart(w)).join('')}`);
  console.log(`\n${report.n} queries, path accuracy ${(report.accuracy * 100).toFixed(1)} %`);
  for (const err of report.errors) console.log(`  ${err.id} expected ${err.expected}, got ${err.got}: ${err.query}\n    (${err.reasoning})`);
  return 0;
}

try {
  process.exitCode = main(process.argv.slice(2));
} catch (e) {
  if (e instanceof EvalInputError) {
    console.error(`eval-router: ${e.message}`);
    process.exitCode = 2;
  } else throw e;
}
