/**
 * The house's import graph (madge over src/): no import circle, and the rooms of src/core keep their
 * doors — the room graph has no cycle, the SORA tables and the model layer import none of the rooms
 * that use them, and the answer room does not reach into the seed designs' rooms.
 */
import madge from 'madge';
import { describe, expect, it } from 'vitest';

const graph = madge('src', { fileExtensions: ['ts', 'svelte'], tsConfig: 'tsconfig.json' });
const ROOMS = ['core/ask', 'core/agents', 'core/answer', 'core/indicators', 'core/route', 'core/sora', 'core/llm', 'core/retrieval'];
const roomOf = (file: string) => ROOMS.find((r) => file.startsWith(`${r}/`)) ?? null;

/** Room → rooms it imports, with one example file edge each. */
async function roomEdges(): Promise<Map<string, Map<string, string>>> {
  const out = new Map<string, Map<string, string>>();
  for (const [file, deps] of Object.entries((await graph).obj())) {
    const from = roomOf(file);
    if (!from) continue;
    for (const d of deps) {
      const to = roomOf(d);
      if (!to || to === from) continue;
      if (!out.has(from)) out.set(from, new Map());
      out.get(from)!.set(to, `${file} → ${d}`);
    }
  }
  return out;
}
const importsOf = async (room: string) => [...((await roomEdges()).get(room)?.values() ?? [])];

describe('import graph', () => {
  it('has no import circle in src', async () => {
    expect((await graph).circular()).toEqual([]);
  }, 60_000);

  it('has no cycle between the rooms of src/core', async () => {
    const edges = await roomEdges();
    const cycles: string[] = [];
    const visit = (room: string, path: string[]) => {
      for (const next of edges.get(room)?.keys() ?? []) {
        if (path.includes(next)) cycles.push([...path, next].join(' → '));
        else visit(next, [...path, next]);
      }
    };
    for (const r of ROOMS) visit(r, [r]);
    expect(cycles).toEqual([]);
  }, 60_000);

  it('keeps the SORA tables and the model layer free of the rooms that use them', async () => {
    expect(await importsOf('core/sora')).toEqual([]);
    expect(await importsOf('core/llm')).toEqual([]);
  }, 60_000);

  it('keeps the answer room out of the router, the calculator, the indicators and the agents', async () => {
    expect((await importsOf('core/answer')).filter((e) => /→ core\/(route|sora|indicators|agents|ask)\//.test(e))).toEqual([]);
  }, 60_000);
});
