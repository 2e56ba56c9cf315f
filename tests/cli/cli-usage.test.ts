/**
 * The command-line entry points answer `--help` and bad options with their usage, not a stack trace
 * (issue 10, item 10). Runs the scripts as npm does (node + tsx), without building anything.
 */
import { spawnSync } from 'node:child_process';
import { describe, expect, it } from 'vitest';
import { repoRoot } from '../support/paths.js';

function run(script: string, args: string[]) {
  const r = spawnSync(process.execPath, ['--experimental-wasm-modules', '--import', 'tsx', script, ...args], {
    cwd: repoRoot,
    encoding: 'utf8',
    timeout: 60_000,
  });
  return { status: r.status, stdout: r.stdout, stderr: r.stderr };
}
const STACK = /^\s+at .+[(:]\d+/m;

describe('npm run ask', () => {
  it('--help and -h print the usage and exit 0', () => {
    for (const flag of ['--help', '-h']) {
      const r = run('corpus-build/cli/ask.ts', [flag]);
      expect(r.status, r.stderr).toBe(0);
      expect(r.stdout).toMatch(/^Usage: npm run ask -- "your question" \[options\]/);
      expect(r.stdout).toMatch(/--corpus <id>/);
      expect(r.stderr).not.toMatch(STACK);
    }
  }, 120_000);

  it('an unknown option or no question gives the usage on stderr and exit 2, no stack trace', () => {
    for (const args of [['--bogus'], []]) {
      const r = run('corpus-build/cli/ask.ts', args);
      expect(r.status).toBe(2);
      expect(r.stderr).toMatch(/Usage: npm run ask/);
      expect(r.stderr).not.toMatch(STACK);
    }
  }, 120_000);
});

describe('npm start', () => {
  it('a bad option is reported with the usage (exit 2) before anything is built', () => {
    const r = run('corpus-build/cli/start.ts', ['--port', 'abc']);
    expect(r.status).toBe(2);
    expect(r.stderr).toMatch(/^npm start: --port needs a port number .*Usage: npm start/m);
    expect(r.stderr).not.toMatch(STACK);
    expect(r.stdout).not.toMatch(/Building the app/);
  }, 120_000);
});

describe('npm run eval', () => {
  it('contradictory ablation flags are a usage error (exit 2) naming both, before anything is loaded', () => {
    const r = run('corpus-build/cli/eval.ts', ['--questions', 'no-such-questions.jsonl', '--rerank', '--no-rerank']);
    expect(r.status).toBe(2);
    expect(r.stderr).toMatch(/^--rerank and --no-rerank contradict each other: choose one\.\n\nUsage: npm run eval/);
    expect(r.stderr).not.toMatch(STACK);
    expect(r.stdout).toBe('');
  }, 120_000);
});
