import { describe, expect, it } from 'vitest';
import { ingestUserDocument, markdownToText, textToDocument, UserDocumentError } from '../../src/core/ingest/user-document.js';
import { createRetrievalEngine } from '../../src/core/retrieval/engine.js';
import { createDocumentAgents } from '../../src/core/agents/agents.js';
import { fakeEmbedder } from '../support/fake-embedder.js';
import { chunkOf, tinyIndex } from '../support/tiny-index.js';

const meta = { id: 'user/lba-2024', title: 'National guidance on drone flights near hospitals', jurisdiction: 'DE', edition: '2024-03' };
const PAGE1 = 'Scope\n\nThis guidance applies to UAS operators in Germany.\nIt complements the EU rules.';
const PAGE2 = 'Hospitals\n\nOperators shall obtain the consent of the hospital before flying within 100 m of its grounds. The consent should be kept with the flight records.';

describe('a user document', () => {
  it('keeps the pages of a PDF text layer (one string per page, or form feeds)', () => {
    const fromPages = textToDocument('x', [PAGE1, PAGE2]);
    const fromFeeds = textToDocument('x', `${PAGE1}\f${PAGE2}`);
    expect(fromPages.pageCount).toBe(2);
    expect(fromFeeds.lines.map((l) => [l.text, l.page])).toEqual(fromPages.lines.map((l) => [l.text, l.page]));
    expect(textToDocument('x', PAGE1).lines.every((l) => l.page === null)).toBe(true);
  });

  it('is chunked by the build\'s chunker into one document with its country, edition and page range', () => {
    const { chunks, document } = ingestUserDocument(meta, textToDocument(meta.id, [PAGE1, PAGE2]));
    expect(chunks.length).toBeGreaterThan(0);
    for (const c of chunks) {
      expect(c.id.startsWith(`${meta.id}/`)).toBe(true);
      expect(c).toMatchObject({ docId: meta.id, documentId: meta.id, jurisdiction: 'DE', edition: '2024-03' });
      expect(c.retrieval.startsWith(`${meta.title} ${meta.title}. `)).toBe(true);
      expect(c.summary.length).toBeGreaterThan(0);
    }
    expect(document).toMatchObject({ id: meta.id, jurisdiction: 'DE', edition: '2024-03', pageStart: 1, pageEnd: 2 });
    expect(document.chunkIds).toEqual(chunks.map((c) => c.id));
    const hospital = chunks.find((c) => c.text.includes('consent of the hospital'))!;
    expect(hospital.pageEnd).toBe(2);
  });

  it('refuses a document without text, a bad country code and an id already in the library, with what to do', () => {
    expect(() => ingestUserDocument(meta, textToDocument(meta.id, ['  ', '\n']))).toThrow(/no text.*OCR/);
    expect(() => ingestUserDocument({ ...meta, jurisdiction: 'Germany' }, textToDocument(meta.id, PAGE1))).toThrow(UserDocumentError);
    expect(() => ingestUserDocument(meta, textToDocument(meta.id, PAGE1), ['user/lba-2024'])).toThrow(/already in the library/);
    expect(() => ingestUserDocument({ ...meta, title: ' ' }, textToDocument(meta.id, PAGE1))).toThrow(/title/);
  });

  it('drops Markdown markup but keeps the words', () => {
    expect(markdownToText('# Night flights\n\nA **lighting plan** is [required](https://x.y).\n```js\ncode\n```')).toBe('Night flights\n\nA lighting plan is required.\n\ncode\n');
  });

  it('gets a document agent: a German question searches it, and EU rules once broadened', async () => {
    const emb = fakeEmbedder(64);
    const { chunks } = ingestUserDocument(meta, textToDocument(meta.id, [PAGE1, PAGE2]));
    const eu = chunkOf('easa/1', 'Operational volume', 'The operational volume is made of the flight geography and the contingency volume.', 'EU', 'easa');
    const index = await tinyIndex([...chunks, eu], emb);
    const agents = createDocumentAgents(index, createRetrievalEngine({ index, embedder: emb }));
    const q = 'consent of the hospital before flying';
    const r = await agents.run(q, (await emb.embed([q]))[0]!, { filters: { jurisdictions: ['DE'] } });
    expect(r.consulted.map((c) => c.id)).toEqual([meta.id]);
    expect(r.evidence[0]!.id.startsWith(`${meta.id}/`)).toBe(true);
    const v = 'operational volume flight geography contingency volume';
    const b = await agents.run(v, (await emb.embed([v]))[0]!, { filters: { jurisdictions: ['DE'] }, config: { gate: { minDense: 0.5 } } });
    expect(b.flat.broadened).toBe(true);
    expect(b.consulted.map((c) => c.id)).toContain('easa');
  });
});
