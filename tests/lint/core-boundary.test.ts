/** The src/core import boundary (eslint.config.js, tools/eslint/core-boundary.js), as `npm run lint` applies it. */
import path from 'node:path';
import { ESLint } from 'eslint';
import { describe, expect, it } from 'vitest';
import { repoRoot } from '../support/paths.js';

const eslint = new ESLint({ cwd: repoRoot });

async function problems(code: string, file: string): Promise<string[]> {
  const [result] = await eslint.lintText(code, { filePath: path.join(repoRoot, file) });
  return (result?.messages ?? []).map((m) => `${m.ruleId ?? 'parse'}: ${m.message}`);
}

describe('src/core import boundary', () => {
  it('accepts imports inside src/core and of installed packages', async () => {
    const code = [
      "import { deepMerge } from '../config/merge.js';",
      "import type { Chunk } from '../model/chunk.js';",
      "import MiniSearch from 'minisearch';",
      "export { bm25Search } from './bm25-search.js';",
      "export type T = import('../retrieval/types.js').Scored;",
      'export const x = [deepMerge, MiniSearch] as unknown as Chunk;',
    ].join('\n');
    expect(await problems(code, 'src/core/retrieval/example.ts')).toEqual([]);
  });

  it('reports an import of the runtime, the UI or the build code, naming where it resolves', async () => {
    const found = await problems(
      [
        "import type { AskResult } from '../../runtime/types.js';",
        "import { x } from '../../../corpus-build/node/engine.js';",
        "export * from '../../ui/format.js';",
        "const m = await import('../../storage/audit-store.js');",
      ].join('\n'),
      'src/core/answer/example.ts',
    );
    expect(found).toHaveLength(4);
    expect(found[0]).toMatch(/^skycite\/core-boundary: .*src\/runtime\/types\.js, outside src\/core/);
    expect(found[1]).toMatch(/corpus-build\/node\/engine\.js, outside src\/core/);
  });

  it('reports Node built-ins and packages that are not installed', async () => {
    const found = await problems(
      "import { readFile } from 'node:fs/promises';\nimport path from 'path';\nimport z from 'not-a-package-here';",
      'src/core/index/example.ts',
    );
    expect(found).toHaveLength(3);
    expect(found[0]).toMatch(/Node built-in/);
    expect(found[2]).toMatch(/node_modules\/not-a-package-here is missing/);
  });

  it('does not apply outside src/core (the runtime may use the UI-free Node and browser APIs it needs), though lint covers all of src', async () => {
    expect(await problems("import { openUserDb } from '../storage/db.js';\nexport const o = openUserDb;", 'src/runtime/example.ts')).toEqual([]);
    expect(await eslint.isPathIgnored(path.join(repoRoot, 'src/runtime/example.ts'))).toBe(false);
    expect(await eslint.isPathIgnored(path.join(repoRoot, 'src/core/answer/example.ts'))).toBe(false);
  });
});
