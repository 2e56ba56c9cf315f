/**
 * K-fold cross-validated estimate of the router's accuracy on routing questions it did not choose
 * its policy on (see src/core/assess/router-cv.ts for what it does and does not estimate).
 *
 *   tsx corpus-build/cli/router-cv.ts --cases ../shared/eval/router-dev.jsonl [--k 5] [--seeds 10] [--json]
 *
 * Prints only aggregate figures (never the questions). Bad input → message on stderr, exit code 2.
 */
import { EvalInputError, parseJsonl, toRouterCase } from '../../src/core/assess/eval.js';
import { crossValidateRouter } from '../../src/core/assess/router-cv.js';
import { readCasesFile } from '../node/read-cases.js';

const USAGE = 'Usage: router-cv --cases <file.jsonl> [--k K] [--seeds S] [--json]';

function intArg(argv: readonly string[], name: string, fallback: number): number {
  const i = argv.indexOf(name);
  if (i < 0) return fallback;
  const v = Number(argv[i + 1]);
  if (!Number.isInteger(v) || v < 1) throw new EvalInputError('arguments', null, `${name} needs a positive integer. ${USAGE}`);
  return v;
}

function main(argv: readonly string[]): number {
  const ci = argv.indexOf('--cases');
  const path = ci >= 0 ? argv[ci + 1] : undefined;
  if (!path || path.startsWith('--')) throw new EvalInputError('arguments', null, `--cases needs a file path. ${USAGE}`);
  const { file, text } = readCasesFile(path);
  const cases = parseJsonl(text, file).map((r) => toRouterCase(r, file));
  const k = intArg(argv, '--k', 5);
  const seeds = intArg(argv, '--seeds', 10);
  if (k > cases.length) throw new EvalInputError('arguments', null, `--k ${k} is more than the ${cases.length} cases. ${USAGE}`);
  const r = crossValidateRouter(cases, k, seeds);
  if (argv.includes('--json')) {
    process.stdout.write(
      `${JSON.stringify({ n: r.n, k: r.k, seeds: r.seeds, devAccuracy: r.devAccuracy, heldOutAccuracy: r.heldOutAccuracy, heldOutBySeed: r.heldOutBySeed, pickedOnAll: r.pickedOnAll })}\n`,
    );
    return 0;
  }
  console.log(`${r.n} routing cases, ${r.k}-fold cross-validation × ${r.seeds} fold assignments, ${r.policies.length} candidate policies`);
  console.log(`default policy on all cases (dev, not held out): ${(r.devAccuracy * 100).toFixed(1)} %`);
  console.log(`held-out accuracy (policy chosen without the fold): mean ${(r.heldOutAccuracy * 100).toFixed(1)} % (per seed: ${r.heldOutBySeed.map((a) => (a * 100).toFixed(0)).join(', ')})`);
  console.log(`policy chosen on all cases: ${JSON.stringify(r.pickedOnAll)}`);
  const top = r.pickCounts.map((c, i) => ({ c, i })).filter((x) => x.c > 0).sort((a, b) => b.c - a.c).slice(0, 5);
  for (const t of top) console.log(`  picked ${t.c}× : ${JSON.stringify(r.policies[t.i])}`);
  return 0;
}

try {
  process.exitCode = main(process.argv.slice(2));
} catch (e) {
  if (e instanceof EvalInputError) {
    console.error(`router-cv: ${e.message}`);
    process.exitCode = 2;
  } else throw e;
}
