/** Typed errors (eslint.config.js, tools/eslint/typed-errors.js), as `npm run lint` applies it over all of src. */
import path from 'node:path';
import { ESLint } from 'eslint';
import { describe, expect, it } from 'vitest';
import { repoRoot } from '../support/paths.js';

const eslint = new ESLint({ cwd: repoRoot });

async function problems(code: string, file = 'src/ui/example.ts'): Promise<string[]> {
  const [result] = await eslint.lintText(code, { filePath: path.join(repoRoot, file) });
  return (result?.messages ?? []).map((m) => `${m.ruleId ?? 'parse'}: ${m.message}`);
}

describe('typed errors', () => {
  it('accepts typed errors recognised by class or code', async () => {
    const code = [
      "import { SkyCiteError } from '../core/errors.js';",
      "import { IndexFetchError } from '../runtime/fetch-bytes.js';",
      "export const f = (e: unknown) => e instanceof IndexFetchError || (e instanceof SkyCiteError && e.code === 'import-cancelled');",
      "export const g = () => { throw new IndexFetchError('Could not fetch x.', null); };",
      "export const h = (file: File) => file.name === 'manifest.json';",
    ].join('\n');
    expect(await problems(code)).toEqual([]);
  });

  it('reports a plain Error, a name string and a pattern over the message, in every part of src', async () => {
    const found = await problems(
      [
        "export const a = () => { throw new Error('boom'); };",
        "export const b = () => Promise.reject(new Error('boom'));",
        "export const c = (e: Error) => e.name === 'AbortError';",
        "export const d = (e: Error) => 'IndexFetchError' !== e.name;",
        'export const f = (e: Error) => /Failed to fetch/.test(e.message);',
        "export const g = (e: Error) => e.message.includes('quota');",
        'export const h = (e: Error) => /HTTP (\\d+)/.exec(String(e.message));',
      ].join('\n'),
      'src/runtime/example.ts',
    );
    expect(found).toHaveLength(7);
    expect(found.every((p) => p.startsWith('skycite/typed-errors: typed errors:'))).toBe(true);
    expect(found[2]).toMatch(/not by the name string "AbortError"/);
    expect(await problems("export const x = () => { throw new Error('x'); };", 'src/core/answer/example.ts')).toHaveLength(1);
  });
});
