/**
 * Operations evaluation: iGRC, final GRC and SAIL for every case of a JSONL file.
 *
 *   tsx corpus-build/cli/eval-ops.ts --cases ../shared/eval/operations-dev.jsonl [--json]
 *
 * --json prints one object {"n", "exact", "failures":[{"id","expected","got"}]}; otherwise a table.
 * Bad input (missing file, malformed line, bad arguments) → message on stderr, exit code 2.
 */
import { EvalInputError, parseEvalArgs, parseJsonl, scoreOperations, toOperationCase } from '../../src/core/evaluation/operations-and-routes.js';
import { readCasesFile } from '../node/read-cases.js';
import { assessOperation } from '../../src/core/sora/operation.js';

const USAGE = 'Usage: eval-ops --cases <file.jsonl> [--json]';

function main(argv: readonly string[]): number {
  const args = parseEvalArgs(argv, USAGE);
  const { file, text } = readCasesFile(args.cases);
  const cases = parseJsonl(text, file).map((r) => toOperationCase(r, file));
  const report = scoreOperations(cases);
  if (args.json) {
    process.stdout.write(
      `${JSON.stringify({ n: report.n, exact: report.exact, failures: report.failures.map(({ id, expected, got }) => ({ id, expected, got: { igrc: got.igrc, final_grc: got.final_grc, sail: got.sail } })) })}\n`,
    );
    return 0;
  }
  const failed = new Set(report.failures.map((f) => f.id));
  const fmt = (v: unknown) => (v === undefined ? '—' : v === null ? 'null' : String(v));
  const rows = cases.map((c) => {
    const s = assessOperation(c.inputs).summary;
    return [
      c.id,
      `${fmt(c.expected.igrc)}/${fmt(s.igrc)}`,
      `${fmt(c.expected.final_grc)}/${fmt(s.final_grc)}`,
      `${fmt(c.expected.sail)}/${fmt(s.sail)}`,
      failed.has(c.id) ? 'FAIL' : 'ok',
    ];
  });
  const header = ['id', 'iGRC exp/got', 'final GRC exp/got', 'SAIL exp/got', ''];
  const widths = header.map((h, i) => Math.max(h.length, ...rows.map((r) => (r[i] ?? '').length)));
  const line = (cells: readonly string[]) =>
    cells
      .map((c, i) => c.padEnd(widths[i] ?? 0))
      .join('  ')
      .trimEnd();
  console.log(line(header));
  for (const r of rows) console.log(line(r));
  console.log(`\n${report.n} cases, exact ${(report.exact * 100).toFixed(1)} % (${report.n - report.failures.length}/${report.n})`);
  for (const f of report.failures) console.log(`  ${f.id}: ${(f.got.notes ?? []).join(' | ')}`);
  return 0;
}

try {
  process.exitCode = main(process.argv.slice(2));
} catch (e) {
  if (e instanceof EvalInputError) {
    console.error(`eval-ops: ${e.message}`);
    process.exitCode = 2;
  } else throw e;
}
