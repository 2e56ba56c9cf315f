import { readFileSync } from 'node:fs';
import { describe, expect, it } from 'vitest';
import { chunkEasaDocument } from '../../corpus-build/chunking/easa-chunker.js';
import { enrichDrafts } from '../../corpus-build/build/pipeline.js';
import { loadLayoutText } from '../../corpus-build/loaders/easa-layout.js';
import { DocumentSplitError, extractiveSummary, isProse, splitDocuments, splitSourceDocuments } from '../../src/core/ingest/documents.js';
import { documentIndex } from '../../src/core/index/load.js';
import { IndexIntegrityError, parseManifest } from '../../src/core/index/manifest.js';
import { easaSourcePath } from '../support/paths.js';
import { chunkOf } from '../support/tiny-index.js';

const SOURCE = { id: 'easa-amc-gm-2019-947', title: 'AMC & GM to Regulation (EU) 2019/947', edition: 'Amdt 3', jurisdiction: 'EU' };
const doc = loadLayoutText(readFileSync(easaSourcePath, 'utf8'), SOURCE.id);
const chunks = enrichDrafts(chunkEasaDocument(doc, { docId: SOURCE.id, edition: 'Amdt 3', jurisdiction: 'EU', language: 'en' }));
const docs = splitDocuments(chunks, [SOURCE]);
const byId = new Map(docs.map((d) => [d.id, d]));
const docOfChunk = new Map(docs.flatMap((d) => d.chunkIds.map((id) => [id, d] as const)));

describe('documents as units (EASA AMC & GM file)', () => {
  it('puts every chunk in exactly one document, in document order', () => {
    const all = docs.flatMap((d) => d.chunkIds);
    expect(all.length).toBe(chunks.length);
    expect(new Set(all).size).toBe(chunks.length);
    for (const d of docs) {
      const rows = d.chunkIds.map((id) => chunks.findIndex((c) => c.id === id));
      expect(rows).toEqual([...rows].sort((a, b) => a - b));
    }
  });

  it('separates the SORA main body, each Annex, Article 12 and the AMC & GM to UAS.SPEC.030 and .040', () => {
    for (const id of ['art11', 'art11/annex-a', 'art11/annex-b', 'art11/annex-e', 'art11/annex-i', 'art12', 'uas-spec-030', 'uas-spec-040']) {
      expect(byId.has(`${SOURCE.id}/${id}`), id).toBe(true);
    }
    // the printed headings decide: every OSO in Annex E, every glossary entry in Annex I, every S.x step in the main body
    for (const c of chunks) {
      if (c.kind === 'oso') expect(docOfChunk.get(c.id)!.id).toBe(`${SOURCE.id}/art11/annex-e`);
      if (c.kind === 'glossary') expect(docOfChunk.get(c.id)!.id).toBe(`${SOURCE.id}/art11/annex-i`);
      if (/^S\.\d/.test(c.title)) expect(docOfChunk.get(c.id)!.id).toBe(`${SOURCE.id}/art11`);
      if (/UAS\.SPEC\.030/.test(c.sectionPath[0] ?? '')) expect(docOfChunk.get(c.id)!.id).toBe(`${SOURCE.id}/uas-spec-030`);
    }
    expect(byId.get(`${SOURCE.id}/art11/annex-e`)!.title).toMatch(/^Annex E to AMC1 (to )?Article 11 — .*OPERATIONAL SAFETY OBJECTIVES/);
    expect(byId.get(`${SOURCE.id}/uas-spec-030`)!.entries.length).toBeGreaterThan(1);
  });

  it('gives each document the page range of its chunks, and the Annexes follow each other', () => {
    for (const d of docs) {
      const own = chunks.filter((c) => d.chunkIds.includes(c.id));
      const pages = own.flatMap((c) => [c.pageStart!, c.pageEnd!]);
      expect(d.pageStart).toBe(Math.min(...pages));
      expect(d.pageEnd).toBe(Math.max(...pages));
    }
    const annexes = ['a', 'b', 'e', 'i'].map((l) => byId.get(`${SOURCE.id}/art11/annex-${l}`)!);
    for (let i = 1; i < annexes.length; i++) expect(annexes[i]!.pageStart!).toBeGreaterThanOrEqual(annexes[i - 1]!.pageEnd!);
  });

  it('splits off an entry that prints an older edition of its own (AMC1bis Article 11, SORA 2.0)', () => {
    const bis = docs.find((d) => d.entries.some((e) => e.startsWith('AMC1bis')))!;
    expect(bis.id).not.toBe(`${SOURCE.id}/art11`);
    expect(bis.edition).toMatch(/SORA 2\.0, Edition December 2020/);
    expect(byId.get(`${SOURCE.id}/art11`)!.edition).toMatch(/SORA 2\.5, Edition September 2025/);
    expect(byId.get(`${SOURCE.id}/art11/annex-e`)!.edition).toBe(byId.get(`${SOURCE.id}/art11`)!.edition);
  });

  it('summarises section → document extractively, within the budgets, with a description', () => {
    for (const d of docs) {
      expect(d.summary.length).toBeLessThanOrEqual(720 + 200);
      expect(d.description.startsWith(d.title)).toBe(true);
      expect(d.sections.flatMap((s) => s.chunkIds).sort()).toEqual([...d.chunkIds].sort());
      // extractive: every summary sentence is printed in one of the document's chunks
      const text = chunks
        .filter((c) => d.chunkIds.includes(c.id))
        .map((c) => c.text.replace(/\s+/g, ' '))
        .join(' ');
      for (const s of d.summary.split(/(?<=[.;:])\s+(?=[A-Z(‘])/).filter((x) => x.length > 30 && !x.endsWith('…'))) {
        expect(text.includes(s.slice(0, 30)), `${d.id}: ${s}`).toBe(true);
      }
    }
  });
});

describe('documents of other sources', () => {
  it('keeps an unstructured source (a PDF, a user document) as one document with its source id and edition', () => {
    const cs = [
      chunkOf('nat/1', 'Scope', 'This guidance applies to operators in Germany.', 'DE', 'nat'),
      chunkOf('nat/2', 'Rules', 'The operator shall keep a log.', 'DE', 'nat'),
    ];
    const [d, ...rest] = splitSourceDocuments(cs, { id: 'nat', title: 'National guidance', edition: '2024', jurisdiction: 'DE' });
    expect(rest).toEqual([]);
    expect(d!.id).toBe('nat');
    expect(d!.edition).toBe('2024');
    expect(d!.jurisdiction).toBe('DE');
    expect(d!.chunkIds).toEqual(['nat/1', 'nat/2']);
  });

  it('refuses a chunk of another source and a chunk whose source is not registered', () => {
    const c = chunkOf('x/1', 'T', 'Some text here for the test.', 'EU', 'x');
    expect(() => splitSourceDocuments([c], { ...SOURCE })).toThrow(DocumentSplitError);
    expect(() => splitDocuments([c], [SOURCE])).toThrow(/in no document/);
  });
});

describe('extractive summary', () => {
  it('picks the sentences central to the body and keeps their order', () => {
    const body = ['The remote pilot shall check the battery. Battery checks are recorded by the remote pilot before every flight. The battery log is kept.'];
    const cands = [
      'Weather balloons are sometimes launched by meteorological offices in winter.',
      'The remote pilot shall check the battery before every flight.',
      'Battery checks are recorded in the battery log by the remote pilot.',
    ];
    expect(extractiveSummary(cands, body, 130)).toBe(`${cands[1]} ${cands[2]}`);
  });

  it('prefers whole prose sentences to table cells', () => {
    expect(isProse('Part B OSO #08 #2 Part D #3 Part E Annex 8.1.2.3.')).toBe(false);
    expect(isProse('The operator should keep the records for two years.')).toBe(true);
    expect(isProse('The operator should keep the records for two…')).toBe(false);
  });
});

describe('document index in the static index', () => {
  const cs = [chunkOf('a/1', 'T1', 'text one'), chunkOf('a/2', 'T2', 'text two')];
  const unit = (id: string, chunkIds: string[]) => ({ ...splitSourceDocuments(cs, { ...SOURCE, id: 'easa' })[0]!, id, chunkIds, sections: [] });
  it('refuses a chunk in two documents or in none, and vectors that do not match the nodes', () => {
    expect(() => documentIndex([unit('d1', ['a/1', 'a/2']), unit('d2', ['a/2'])], new Float32Array(2), 1, cs)).toThrow(/two documents/);
    expect(() => documentIndex([unit('d1', ['a/1'])], new Float32Array(1), 1, cs)).toThrow(/in no document/);
    expect(() => documentIndex([unit('d1', ['a/1', 'a/2'])], new Float32Array(3), 1, cs)).toThrow(IndexIntegrityError);
    expect(documentIndex([unit('d1', ['a/1', 'a/2'])], new Float32Array(1), 1, cs).docOfRow).toEqual(Int32Array.from([0, 0]));
  });

  it('says what an index of the previous format lacks', () => {
    expect(() => parseManifest(JSON.stringify({ formatVersion: 3, artifacts: {} }))).toThrow(/format version 3.*lacks logical documents/);
  });
});
