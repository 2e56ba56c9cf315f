/**
 * Errors are typed, one base class per layer, all rooted in SkyCiteError (src/core/errors.ts); no
 * two classes share a name, each one's name is its class name and each has a code of the one scheme;
 * and every class an error crossing a worker can be is one the other side can rebuild
 * (src/runtime/error-classes.ts, core/llm/errors.ts MODEL_ERROR_CLASSES).
 */
import { readdirSync, readFileSync, statSync } from 'node:fs';
import { join } from 'node:path';
import madge from 'madge';
import { describe, expect, it } from 'vitest';
import { MODEL_ERROR_CLASSES } from '../../src/core/llm/errors.js';
import { RUNTIME_ERROR_CLASSES } from '../../src/runtime/error-classes.js';

function files(dir: string): string[] {
  return readdirSync(dir).flatMap((f) => {
    const p = join(dir, f);
    return statSync(p).isDirectory() ? files(p) : /\.(ts|svelte)$/.test(f) ? [p] : [];
  });
}

interface ErrorClass {
  name: string;
  parent: string;
  file: string;
  exported: boolean;
  /** The `name` property it sets, when it sets one. */
  nameProp: string | null;
  /** The code it sets (a `code` field, or the first argument of AnswerError's constructor), when it sets one. */
  code: string | null;
}

const CLASSES: ErrorClass[] = files('src').flatMap((file) => {
  const src = readFileSync(file, 'utf8');
  return [...src.matchAll(/^(export )?class (\w+) extends (\w+)[^{]*\{([\s\S]*?)^\}/gm)]
    .filter((m) => /Error$/.test(m[2]!) || /Error$/.test(m[3]!))
    .map((m) => ({
      name: m[2]!,
      parent: m[3]!,
      file,
      exported: Boolean(m[1]),
      nameProp: /name = '(\w+)'/.exec(m[4]!)?.[1] ?? null,
      code: /code(?:: \w+)? = '([a-z-]+)'/.exec(m[4]!)?.[1] ?? /super\(\s*'([a-z-]+)'/.exec(m[4]!)?.[1] ?? null,
    }));
});
const LAYER_BASES: Record<string, string> = {
  'src/core': 'SkyCiteError',
  'src/storage': 'StorageError',
  'src/runtime': 'RuntimeError',
  'src/llm': 'SkyCiteError',
  'src/pwa': 'SkyCiteError',
  'src/ui': 'SkyCiteError',
};

describe('error classes', () => {
  it('finds the error classes of src (the scan works)', () => {
    expect(CLASSES.length).toBeGreaterThan(30);
  });

  it('gives every error class and every error name one meaning', () => {
    const dup = (xs: string[]) => xs.filter((x, i) => xs.indexOf(x) !== i);
    expect(dup(CLASSES.map((c) => c.name))).toEqual([]);
    expect(dup(CLASSES.map((c) => c.nameProp ?? c.name))).toEqual([]);
  });

  it('roots every error class in SkyCiteError through its layer base', () => {
    const parentOf = new Map(CLASSES.map((c) => [c.name, c.parent] as const));
    const chain = (n: string): string[] => (parentOf.has(n) ? [n, ...chain(parentOf.get(n)!)] : [n]);
    const stray = CLASSES.filter((c) => c.name !== 'SkyCiteError')
      .filter((c) => {
        const up = chain(c.name);
        const layer = Object.keys(LAYER_BASES).find((l) => c.file.startsWith(l));
        const base = layer ? LAYER_BASES[layer]! : 'SkyCiteError';
        return !up.includes('SkyCiteError') || (c.name !== base && !up.includes(base) && base !== 'SkyCiteError');
      })
      .map((c) => `${c.file}: ${chain(c.name).join(' → ')}`);
    expect(stray).toEqual([]);
  });

  it('names every error class by its class name (the codec rebuilds it by that name) and gives it a code of the one scheme', () => {
    expect(CLASSES.filter((c) => c.nameProp !== c.name).map((c) => `${c.file}: ${c.name} is named ${c.nameProp ?? '(nothing)'}`)).toEqual([]);
    const bases = new Set(['SkyCiteError', 'RuntimeError', 'StorageError', 'AnswerError']);
    const codeOf = new Map(CLASSES.map((c) => [c.name, c] as const));
    const inherited = (n: string): string | null => {
      const c = codeOf.get(n);
      return !c ? null : (c.code ?? (bases.has(c.parent) ? null : inherited(c.parent)));
    };
    expect(CLASSES.filter((c) => !bases.has(c.name) && !inherited(c.name)).map((c) => `${c.file}: ${c.name}`)).toEqual([]);
  });
});

/** Files of src the given entry imports, directly or not (madge, as tests/lint/import-graph.test.ts reads the graph). */
async function reachable(entry: string): Promise<Set<string>> {
  const deps = (await madge('src', { fileExtensions: ['ts', 'svelte'], tsConfig: 'tsconfig.json' })).obj();
  const seen = new Set([entry]);
  const todo = [entry];
  while (todo.length) for (const d of deps[todo.pop()!] ?? []) if (!seen.has(d) && (seen.add(d), true)) todo.push(d);
  return seen;
}

describe('errors across the workers', () => {
  it('can rebuild every exported error class the runtime worker’s code holds (src/runtime/error-classes.ts)', async () => {
    const files = await reachable('runtime/runtime.worker.ts');
    const thrown = CLASSES.filter((c) => c.exported && files.has(c.file.replace(/^src\//, ''))).map((c) => c.name);
    expect(thrown.length).toBeGreaterThan(20);
    expect(thrown.filter((n) => !RUNTIME_ERROR_CLASSES.has(n))).toEqual([]);
  }, 60_000);

  it('can rebuild every class of the model layer’s taxonomy on the app’s side of the LLM worker', () => {
    const model = CLASSES.filter((c) => c.file === join('src', 'core', 'llm', 'errors.ts')).map((c) => c.name);
    expect(model.length).toBeGreaterThan(10);
    expect(model.filter((n) => !MODEL_ERROR_CLASSES.has(n))).toEqual([]);
  });
});
