/**
 * Errors are typed, one base class per layer, all rooted in SkyCiteError (src/core/errors.ts), and no
 * two classes share a name (errors crossing a worker are told apart by name).
 */
import { readdirSync, readFileSync, statSync } from 'node:fs';
import { join } from 'node:path';
import { describe, expect, it } from 'vitest';

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
  /** The `name` property it sets, when it sets one. */
  nameProp: string | null;
}

const CLASSES: ErrorClass[] = files('src').flatMap((file) => {
  const src = readFileSync(file, 'utf8');
  return [...src.matchAll(/^(?:export )?class (\w+) extends (\w+)[^{]*\{([\s\S]*?)^\}/gm)]
    .filter((m) => /Error$/.test(m[1]!) || /Error$/.test(m[2]!))
    .map((m) => ({ name: m[1]!, parent: m[2]!, file, nameProp: /name = '(\w+)'/.exec(m[3]!)?.[1] ?? null }));
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
});
