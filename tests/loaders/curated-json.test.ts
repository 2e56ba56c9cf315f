import { readFileSync } from 'node:fs';
import path from 'node:path';
import { fileURLToPath } from 'node:url';
import { describe, it, expect } from 'vitest';
import { loadCuratedChunks } from '../../corpus-build/loaders/curated-json.js';
import { SourceFormatError } from '../../corpus-build/errors.js';

const repoRoot = path.resolve(path.dirname(fileURLToPath(import.meta.url)), '../..');
const corpusDir = path.resolve(repoRoot, process.env.CORPUS_DIR ?? '../shared/corpus');
const curatedDir = path.join(corpusDir, 'skysafe-sora-curated');

const meta = { docId: 'skysafe-sora-curated', edition: 'SKYSAFE 2024', jurisdiction: 'EU', language: 'en' };

interface RawItem {
  chunk_title: string;
  chunk_text: string;
  chunk_summary: string;
  chunk_keywords: string[];
  chunk_index: number;
  id?: string;
  edges?: string[];
}

const jsonText = readFileSync(path.join(curatedDir, 'SORA_chunks_cleaned_manual.json'), 'utf8');
const raw = JSON.parse(jsonText) as RawItem[];
const reference = JSON.parse(readFileSync(path.join(curatedDir, 'reference-embeddings.json'), 'utf8')) as {
  items: { chunk_index: number | string; retrieval_doc: string }[];
};

/** A minimal valid item for the bad-input tests. */
const item = (over: Record<string, unknown> = {}): Record<string, unknown> => ({
  chunk_title: 'A title',
  chunk_text: 'Some text.',
  chunk_summary: 'A summary.',
  chunk_keywords: ['k'],
  chunk_index: 0,
  ...over,
});

/** The SourceFormatError thrown by loading `text`. */
function errorOf(text: string): SourceFormatError {
  try {
    loadCuratedChunks(text, meta);
  } catch (e) {
    expect(e).toBeInstanceOf(SourceFormatError);
    return e as SourceFormatError;
  }
  throw new Error('expected loadCuratedChunks to throw');
}

describe('loadCuratedChunks on the SKYSAFE curated file', () => {
  const chunks = loadCuratedChunks(jsonText, meta);

  it('makes one curated chunk per item (120)', () => {
    expect(chunks).toHaveLength(120);
    expect(new Set(chunks.map((c) => c.id)).size).toBe(120);
    for (const c of chunks) expect(c.kind).toBe('curated');
  });

  it('keeps the item fields', () => {
    chunks.forEach((c, i) => {
      const r = raw[i]!;
      expect(c.id).toBe(`skysafe-sora-curated/${r.chunk_index}`);
      expect(c.title).toBe(r.chunk_title.replace(/\s+/g, ' ').trim());
      expect(c.sectionPath).toEqual([c.title]);
      expect(c.text).toBe(r.chunk_text);
      expect(c.summary).toBe(r.chunk_summary);
      expect(c.keywords).toEqual(r.chunk_keywords);
      expect(c.pageStart).toBeNull();
      expect(c.pageEnd).toBeNull();
      expect(c.jurisdiction).toBe('EU');
      expect(c.edition).toBe(meta.edition);
      expect(c.language).toBe('en');
      expect(c.extra).toEqual({ chunkIndex: r.chunk_index, curatedId: r.id ?? null });
    });
  });

  it('turns edges into links whose targets are the chunks with those ids', () => {
    const step3 = chunks.find((c) => c.extra?.curatedId === 'sora-step-3')!;
    expect(step3.links).toEqual([{ label: 'edge:grc-mitigation-table', target: 'skysafe-sora-curated/22' }]);
    expect(chunks[22]!.extra?.curatedId).toBe('grc-mitigation-table');
    // 'edges is misspelt with a quote in the published file on the SORA process item: still read.
    const process = chunks.find((c) => c.extra?.curatedId === 'sora-process')!;
    expect(process.links).toHaveLength(10);
    expect(process.links[0]).toEqual({ label: 'edge:sora-step-1', target: 'skysafe-sora-curated/9' });
    // An edge to an id no item has stays unresolved.
    const withTypo = chunks.find((c) => c.extra?.curatedId === 'sora-step-2')!;
    expect(withTypo.links).toEqual([{ label: 'edge:intrincsic-grc-table', target: null }]);
    const allLinks = chunks.flatMap((c) => c.links);
    expect(allLinks).toHaveLength(50);
    expect(allLinks.filter((l) => l.target === null)).toHaveLength(1);
  });

  it('builds retrieval strings equal to the reference implementation for all 120 chunks', () => {
    const byIndex = new Map(reference.items.map((r) => [Number(r.chunk_index), r.retrieval_doc]));
    expect(byIndex.size).toBe(120);
    const mismatches = chunks.filter((c) => byIndex.get(c.extra?.chunkIndex as number) !== c.retrieval);
    expect(mismatches.map((c) => c.id)).toEqual([]);
  });
});

describe('loadCuratedChunks on malformed input', () => {
  it('rejects invalid JSON naming JSON and the parse error', () => {
    const e = errorOf('[{"chunk_title": "x",');
    expect(e.field).toBe('JSON');
    expect(e.message).toMatch(/JSON/);
    expect(e.message).toMatch(/not valid JSON: .+/);
  });

  it('rejects a document that is not an array', () => {
    expect(errorOf('{"chunks": []}').message).toMatch(/expected a JSON array/);
  });

  it('rejects an item without chunk_title, naming the item and the field', () => {
    const bad = item({ chunk_index: 7 });
    delete bad.chunk_title;
    const e = errorOf(JSON.stringify([item(), bad]));
    expect(e.item).toBe('item #1 (chunk_index 7)');
    expect(e.field).toBe('chunk_title');
    expect(e.message).toContain('item #1 (chunk_index 7)');
    expect(e.message).toContain('"chunk_title"');
    expect(e.message).toMatch(/missing/);
  });

  it('rejects chunk_keywords that is not an array, naming the item and the field', () => {
    const e = errorOf(JSON.stringify([item({ chunk_index: 3, chunk_title: 'Keyword test', chunk_keywords: 'a, b' })]));
    expect(e.message).toContain('item #0 (chunk_index 3, "Keyword test")');
    expect(e.field).toBe('chunk_keywords');
    expect(e.message).toMatch(/expected an array of strings, got a string/);
  });

  it('rejects a duplicate chunk_index, naming both items', () => {
    const e = errorOf(JSON.stringify([item({ chunk_index: 4 }), item({ chunk_index: 5 }), item({ chunk_index: 4, chunk_title: 'Again' })]));
    expect(e.message).toContain('item #2 (chunk_index 4, "Again")');
    expect(e.field).toBe('chunk_index');
    expect(e.message).toMatch(/duplicate: item #0/);
  });

  it('rejects a non-integer chunk_index and a wrong-typed edge', () => {
    expect(errorOf(JSON.stringify([item({ chunk_index: '1' })])).field).toBe('chunk_index');
    const e = errorOf(JSON.stringify([item({ id: 'a', edges: ['b', 3] })]));
    expect(e.field).toBe('edges[1]');
  });
});
