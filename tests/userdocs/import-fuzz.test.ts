/**
 * A small, bounded fuzz test of the user-document import path (issue 27): random and mutated
 * inputs (fixed seed, fixed counts) through the export parser, the form's checks, the duplicate
 * check, the stored-record check, the store's list and the runtime's load. Asserts that nothing
 * throws, every message stays short, and the document already stored is never lost.
 */
import 'fake-indexeddb/auto';
import { describe, expect, it } from 'vitest';
import { duplicateOf, parseUserDocumentExport, USER_DOCUMENT_EXPORT_FORMAT } from '../../src/core/userdocs/export-file.js';
import { validateUserDocumentForm } from '../../src/core/userdocs/form.js';
import { createInProcessRuntime, NO_ADAPTER } from '../../src/runtime/in-process.js';
import { createUserDocsStore, openUserDocsDb, storedDocumentProblem, USER_DOCS_STORE, type StoredUserDocument } from '../../src/storage/user-docs-store.js';
import { fakeEmbedder } from '../support/fake-embedder.js';
import { servedIndex } from '../support/served-index.js';

/** mulberry32: a small seeded generator, so a failure can be replayed. */
function rng(seed: number) {
  let a = seed >>> 0;
  const next = () => {
    a = (a + 0x6d2b79f5) >>> 0;
    let t = a;
    t = Math.imul(t ^ (t >>> 15), t | 1);
    t ^= t + Math.imul(t ^ (t >>> 7), t | 61);
    return ((t ^ (t >>> 14)) >>> 0) / 4294967296;
  };
  const int = (n: number) => Math.floor(next() * n);
  const pick = <T>(xs: readonly T[]): T => xs[int(xs.length)]!;
  return { next, int, pick };
}
type Rng = ReturnType<typeof rng>;

const ALPHABET = [
  'a',
  'Z',
  '9',
  ' ',
  '\n',
  '"',
  '\\',
  '{',
  '}',
  '[',
  ']',
  ',',
  ':',
  '=',
  '@',
  '\u0000',
  '\u200B',
  '\u202E',
  'é',
  '𝔘',
  '\uD800',
  '.pdf',
  '__proto__',
  'user/',
];
function randomString(r: Rng): string {
  if (r.next() < 0.05) return r.pick(['x', '=', '\u200B']).repeat(100_000 + r.int(400_000));
  return Array.from({ length: r.int(24) }, () => r.pick(ALPHABET)).join('');
}

function randomValue(r: Rng, depth = 0): unknown {
  const kinds = ['string', 'number', 'special', 'null', 'bool', 'array', 'object', 'f32'] as const;
  switch (r.pick(depth > 2 ? kinds.slice(0, 5) : kinds)) {
    case 'string':
      return randomString(r);
    case 'number':
      return r.pick([0, -1, 1, 2.5, 1e9, -1e-9, r.int(1000)]);
    case 'special':
      return r.pick([Number.NaN, Infinity, -Infinity, undefined]);
    case 'null':
      return null;
    case 'bool':
      return r.next() < 0.5;
    case 'array':
      return Array.from({ length: r.int(4) }, () => randomValue(r, depth + 1));
    case 'object':
      return Object.fromEntries(Array.from({ length: r.int(4) }, () => [randomString(r), randomValue(r, depth + 1)]));
    case 'f32':
      return Float32Array.from({ length: r.int(64) }, () => r.pick([0.1, -0.2, Number.NaN, Infinity]));
  }
}

/** The paths of an object tree (typed arrays as leaves), to pick one to change. */
function paths(x: unknown, prefix: (string | number)[] = [], out: (string | number)[][] = []): (string | number)[][] {
  if (prefix.length) out.push(prefix);
  if (prefix.length > 6 || typeof x !== 'object' || x === null || ArrayBuffer.isView(x)) return out;
  const entries: [string | number, unknown][] = Array.isArray(x) ? x.slice(0, 3).map((v, i) => [i, v]) : Object.entries(x);
  for (const [k, v] of entries) paths(v, [...prefix, k], out);
  return out;
}

/** A deep copy with one path replaced, deleted, or (typed arrays) one value set to NaN or the array cut short. */
function mutate<T>(value: T, r: Rng): T {
  const copy = structuredClone(value) as Record<string | number, unknown>;
  const all = paths(copy);
  const path = r.pick(all);
  let parent: Record<string | number, unknown> = copy;
  for (const k of path.slice(0, -1)) parent = parent[k] as Record<string | number, unknown>;
  const key = path.at(-1)!;
  const old = parent[key];
  const roll = r.next();
  if (old instanceof Float32Array && old.length > 0 && roll < 0.5) {
    if (r.next() < 0.5) old[r.int(old.length)] = r.pick([Number.NaN, Infinity, -Infinity]);
    else parent[key] = old.subarray(0, old.length - 1 - r.int(old.length));
  } else if (roll < 0.2) delete parent[key];
  else parent[key] = randomValue(r);
  return copy as T;
}

const EXPORT = {
  format: USER_DOCUMENT_EXPORT_FORMAT,
  version: 2,
  exportedAt: '2026-11-23T10:00:00.000Z',
  document: { id: 'user/hospitals', title: 'Guidance on flights near hospitals', jurisdiction: 'DE', edition: '2024-03' },
  source: { fileName: 'hospitals.pdf', format: 'pdf', pages: ['Scope', 'Operators shall obtain the consent of the hospital.'] },
  summary: {},
  chunks: [],
};
const MAX_MESSAGE = 1200;

describe('fuzzing the import parsers and validators (seeded, bounded)', () => {
  it('parses 400 random and mutated exports without throwing, each refusal short', () => {
    const r = rng(27);
    let accepted = 0;
    for (let i = 0; i < 400; i++) {
      const text = i % 4 === 0 ? randomString(r) : (JSON.stringify(mutate(EXPORT, r)) ?? 'undefined');
      const cut = i % 7 === 0 ? text.slice(0, r.int(text.length + 1)) : text;
      const name = i % 5 === 0 ? randomString(r) : 'doc.skycite.json';
      const result = parseUserDocumentExport(name, cut);
      if (result.ok) {
        accepted++;
        expect(validateUserDocumentForm({ ...result.value, fileBytes: 1 }).ok).toBe(true);
        expect(typeof duplicateOf(result.value, [{ ...EXPORT.document }])).not.toBe('number');
      } else expect(result.message.length).toBeLessThan(MAX_MESSAGE);
    }
    expect(accepted).toBeGreaterThan(0); // the mutations leave some exports valid: both paths ran
  });

  it('checks 400 random forms without throwing, each problem short', () => {
    const r = rng(8);
    const str = () => (r.next() < 0.3 ? randomString(r) : r.pick(['guidance.pdf', 'DE', 'eu', '2024-03', 'Title', '']));
    for (let i = 0; i < 400; i++) {
      const v = validateUserDocumentForm({ fileName: str(), fileBytes: r.pick([0, 1, 1e9, Number.NaN]), title: str(), jurisdiction: str(), edition: str() });
      if (!v.ok) for (const m of Object.values(v.problems)) expect(m.length).toBeLessThan(MAX_MESSAGE);
    }
  });

  it('loads a store holding 60 mutated copies of a document without throwing or losing the intact one', async () => {
    const db = `skycite-fuzz-${Math.random().toString(36).slice(2)}`;
    const open = () => openUserDocsDb(db);
    const rt = createInProcessRuntime({
      baseUrl: 'http://localhost/',
      probeAdapter: async () => NO_ADAPTER,
      createEmbedder: async () => fakeEmbedder(),
      fetchImpl: await servedIndex(),
      userDocStore: createUserDocsStore({ open }),
    });
    await rt.init({ denseBackend: 'exact', rerank: false });
    const keep = await rt.addUserDocument({
      title: 'Operations manual: beekeeping surveys',
      jurisdiction: 'FR',
      edition: '2',
      fileName: 'bees.md',
      format: 'markdown',
      pages: '# Beehives\n\nThe remote pilot keeps a distance of 15 metres from every beehive.',
    });
    const copy = await rt.addUserDocument({
      title: 'Copy to mutate',
      jurisdiction: 'DE',
      edition: '1',
      fileName: 'copy.txt',
      format: 'text',
      pages: 'Scope\n\nOperators shall obtain consent.\n\nHelipads\n\nKeep 300 metres from the helipad.',
    });
    rt.dispose();
    const raw = await open();
    const intact = (await raw.get(USER_DOCS_STORE, keep.id)) as StoredUserDocument;
    const base = (await raw.get(USER_DOCS_STORE, copy.id)) as StoredUserDocument;
    await raw.delete(USER_DOCS_STORE, copy.id);
    const r = rng(2027);
    let written = 0;
    for (let i = 0; i < 60; i++) {
      const m = mutate(base, r);
      expect(() => storedDocumentProblem(m)).not.toThrow();
      // every copy under its own key (never the intact document's)
      if (typeof m === 'object' && m !== null)
        (m as { id: unknown }).id = r.next() < 0.9 ? `user/fuzz-${i}` : r.pick([i, [i, 'x'], `user/${'f'.repeat(5000)}${i}`]);
      try {
        await raw.put(USER_DOCS_STORE, m);
        written++;
      } catch {
        // a value IndexedDB itself refuses (no usable key) is never stored
      }
    }
    raw.close();
    expect(written).toBeGreaterThan(40);

    const listed = await createUserDocsStore({ open }).list();
    expect(listed.records.map((x) => x.id)).toContain(keep.id);
    expect(listed.records.length + listed.problems.length).toBe(written + 1);
    for (const p of listed.problems) expect(p.message.length).toBeLessThan(MAX_MESSAGE);

    const second = createInProcessRuntime({
      baseUrl: 'http://localhost/',
      probeAdapter: async () => NO_ADAPTER,
      createEmbedder: async () => fakeEmbedder(),
      fetchImpl: await servedIndex(),
      userDocStore: createUserDocsStore({ open }),
    });
    await second.init({ denseBackend: 'exact', rerank: false });
    const loaded = await second.loadUserDocuments();
    expect(loaded.documents.map((d) => d.id)).toContain(keep.id);
    const top = (await second.retrieve('distance of 15 metres from every beehive', { filters: { jurisdictions: ['FR'] } })).chunks[0]!;
    expect(top.docId).toBe(keep.id);
    // every damaged copy can be removed by the name its message gives, and the intact document stays
    for (const message of loaded.problems) {
      const name = /document “([^”]+)” is damaged/.exec(message)?.[1];
      if (name) await second.removeUserDocument(name);
    }
    const after = await createUserDocsStore({ open }).list();
    expect(after.problems).toEqual([]);
    expect(after.records.map((x) => x.id)).toContain(keep.id);
    expect((await open().then(async (d) => ((await d.get(USER_DOCS_STORE, keep.id)) as StoredUserDocument | undefined)?.chunks)) ?? []).toEqual(intact.chunks);
  });
});
