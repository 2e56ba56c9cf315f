/**
 * The house's import graph (madge over src/): no circle anywhere, and the rooms keep their doors —
 * the answer and the SORA/assessment rooms do not import each other, and the model layer
 * (src/core/llm) imports nothing outside itself.
 */
import madge from 'madge';
import { describe, expect, it } from 'vitest';

const graph = madge('src', { fileExtensions: ['ts', 'svelte'], tsConfig: 'tsconfig.json', detectiveOptions: { ts: { skipTypeImports: false } } });
const importsOf = async () => (await graph).obj();
const edges = async (from: RegExp, to: RegExp) =>
  Object.entries(await importsOf()).flatMap(([file, deps]) => (from.test(file) ? deps.filter((d) => to.test(d)).map((d) => `${file} → ${d}`) : []));

describe('import graph', () => {
  it('has no import circle in src', async () => {
    expect((await graph).circular()).toEqual([]);
  }, 60_000);

  it('keeps core/answer and core/assess from importing each other', async () => {
    expect(await edges(/^core\/answer\//, /^core\/assess\//)).toEqual([]);
    expect(await edges(/^core\/assess\//, /^core\/answer\//)).toEqual([]);
  }, 60_000);

  it('keeps the model layer (core/llm) free of the rooms that use it', async () => {
    expect(await edges(/^core\/llm\//, /^(?!core\/llm\/)/)).toEqual([]);
  }, 60_000);
});
