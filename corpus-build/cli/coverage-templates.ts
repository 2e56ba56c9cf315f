/**
 * `npm run coverage:templates`: writes the deterministic template questions
 * (corpus-build/coverage/templates.ts) for every instrument the corpus references but
 * does not contain, to corpus-build/data/coverage-template-questions.jsonl, with a meta
 * file recording the generator files' and the data file's SHA-256. Same input, same bytes.
 */
import { readFileSync, writeFileSync } from 'node:fs';
import { createHash } from 'node:crypto';
import coverageJson from '../../src/core/coverage/coverage.json';
import { parseCoverage } from '../../src/core/coverage/load.js';
import { TEMPLATE_VERSION, templateQuestions } from '../coverage/templates.js';

const out = 'corpus-build/data/coverage-template-questions.jsonl';
const sha = (b: string | Buffer): string => createHash('sha256').update(b).digest('hex');
const coverage = parseCoverage(coverageJson);
const qs = templateQuestions(coverage.instruments);
const body = qs.map((q) => JSON.stringify({ ...q, prompt: TEMPLATE_VERSION })).join('\n') + '\n';
writeFileSync(out, body);
const scripts = ['corpus-build/cli/coverage-templates.ts', 'corpus-build/coverage/templates.ts'];
const meta = {
  formatVersion: 1,
  file: 'coverage-template-questions.jsonl',
  sha256: sha(body),
  questions: qs.length,
  instruments: new Set(qs.map((q) => q.instrument)).size,
  prompt: TEMPLATE_VERSION,
  generator: Object.fromEntries(scripts.map((s) => [s, sha(readFileSync(s))])),
  coverage: { file: 'src/core/coverage/coverage.json', indexManifestSha256: coverage.index.manifestSha256 },
  command: 'npm run coverage:templates',
};
writeFileSync(out.replace(/\.jsonl$/, '.meta.json'), `${JSON.stringify(meta, null, 2)}\n`);
console.log(`${out}: ${qs.length} questions over ${meta.instruments} instruments; sha256 ${meta.sha256}`);
