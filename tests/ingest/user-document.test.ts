import { describe, expect, it } from 'vitest';
import { ingestUserDocument, markdownDocument, markdownToText, textToDocument } from '../../src/core/ingest/user-document.js';
import { UserDocumentError } from '../../src/core/userdocs/validate.js';
import { createRetrievalEngine } from '../../src/core/retrieval/engine.js';
import { createDocumentAgents } from '../../src/core/agents/agents.js';
import { fakeEmbedder } from '../support/fake-embedder.js';
import { chunkOf, tinyIndex } from '../support/tiny-index.js';
import { readPdf } from '../../src/ui/library/extract-text.js';
import { guidancePdf, METADATA_TITLE, nodePdfjs, PRINTED_TITLE } from '../support/guidance-pdf.js';

const meta = { id: 'user/lba-2024', title: 'National guidance on drone flights near hospitals', jurisdiction: 'DE', edition: '2024-03' };
const PAGE1 = 'Scope\n\nThis guidance applies to UAS operators in Germany.\nIt complements the EU rules.';
const PAGE2 =
  'Hospitals\n\nOperators shall obtain the consent of the hospital before flying within 100 m of its grounds. The consent should be kept with the flight records.';

describe('a user document', () => {
  it('keeps the pages of a PDF text layer (one string per page, or form feeds)', () => {
    const fromPages = textToDocument('x', [PAGE1, PAGE2]);
    const fromFeeds = textToDocument('x', `${PAGE1}\f${PAGE2}`);
    expect(fromPages.pageCount).toBe(2);
    expect(fromFeeds.lines.map((l) => [l.text, l.page])).toEqual(fromPages.lines.map((l) => [l.text, l.page]));
    expect(textToDocument('x', PAGE1).lines.every((l) => l.page === null)).toBe(true);
  });

  it("is chunked by the build's chunker into one document with its country, edition and page range", () => {
    const { chunks, document } = ingestUserDocument(meta, textToDocument(meta.id, [PAGE1, PAGE2]));
    expect(chunks.length).toBeGreaterThan(0);
    for (const c of chunks) {
      expect(c.id.startsWith(`${meta.id}/`)).toBe(true);
      expect(c).toMatchObject({ docId: meta.id, documentId: meta.id, jurisdiction: 'DE', edition: '2024-03' });
      expect(c.retrieval.startsWith(meta.title)).toBe(true);
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
    expect(markdownToText('# Night flights\n\nA **lighting plan** is [required](https://x.y).\n```js\ncode\n```')).toBe(
      'Night flights\n\nA lighting plan is required.\n\ncode\n',
    );
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

describe('a user document chunked by its headings and pages (issue 26, item 6)', () => {
  it('splits a two-page PDF at its numbered headings, each passage with its heading and its own page', async () => {
    const { pages } = await readPdf(await guidancePdf(), 'guidance.pdf', undefined, nodePdfjs);
    expect(pages).toHaveLength(2);
    const { chunks, document } = ingestUserDocument(meta, textToDocument(meta.id, pages));
    const at = (heading: string) => chunks.filter((c) => c.title === heading);
    expect(chunks.map((c) => [c.title, c.pageStart, c.pageEnd])).toEqual([
      [meta.title, 1, 1], // the printed title above "1 Scope"
      ['1 Scope', 1, 1],
      ['2 Flights near hospitals', 1, 1],
      ['2.1 Consent of the hospital', 2, 2],
      ['3 Records', 2, 2],
    ]);
    expect(at('1 Scope')[0]!.text).toBe('This guidance applies to UAS operators in Germany\nand complements the EU rules for the specific category.');
    const consent = at('2.1 Consent of the hospital')[0]!;
    // the heading is the passage's title and section, not a sentence of its text (the highlight cannot fall on it)
    expect(consent.text.startsWith('Operators shall obtain the consent of the hospital')).toBe(true);
    expect(consent.text).not.toContain('2.1 Consent');
    expect(consent.sectionPath).toEqual([meta.title, '2 Flights near hospitals', '2.1 Consent of the hospital']);
    expect(consent.retrieval.startsWith(`${meta.title}: 2.1 Consent of the hospital`)).toBe(true);
    expect(document.sections.map((s) => s.path.at(-1))).toEqual(expect.arrayContaining(['1 Scope', '2 Flights near hospitals', '3 Records']));
    expect(document).toMatchObject({ pageStart: 1, pageEnd: 2 });
  });

  it('sets a heading printed larger than the text apart, numbered or not, and never runs a passage over a page', () => {
    const pages = [
      'Hospitals\n\nOperators shall obtain consent.\nIt is kept with the records.',
      'They are kept for two years.\n\nNight flights\n\nLights are on.',
    ];
    const { chunks } = ingestUserDocument(meta, textToDocument(meta.id, pages));
    expect(chunks.map((c) => [c.title, c.pageStart, c.text])).toEqual([
      ['Hospitals', 1, 'Operators shall obtain consent.\nIt is kept with the records.'],
      ['Hospitals', 2, 'They are kept for two years.'],
      ['Night flights', 2, 'Lights are on.'],
    ]);
    // a numbered list item's first line is not a heading, nor a short line inside a paragraph
    // a heading that is the document's title is not a section of it
    const titled = ingestUserDocument(meta, textToDocument(meta.id, [`${meta.title}\n\nHospitals\n\nOperators shall obtain consent.`]));
    expect(titled.chunks.map((c) => [c.title, c.sectionPath, c.text])).toEqual([['Hospitals', [meta.title, 'Hospitals'], 'Operators shall obtain consent.']]);
    expect(ingestUserDocument(meta, textToDocument(meta.id, [meta.title])).chunks.map((c) => c.text)).toEqual([meta.title]);
    const list = ingestUserDocument(
      meta,
      textToDocument(meta.id, ['1 Operators shall obtain the consent of the hospital before\nflying within 100 m of its grounds.']),
    );
    expect(list.chunks.map((c) => c.title)).toEqual([meta.title]);
  });

  it("takes its default title from the PDF metadata, else from the first page's main heading", async () => {
    expect((await readPdf(await guidancePdf({ metadataTitle: METADATA_TITLE }), 'x.pdf', undefined, nodePdfjs)).title).toBe(METADATA_TITLE);
    expect((await readPdf(await guidancePdf(), 'x.pdf', undefined, nodePdfjs)).title).toBe(PRINTED_TITLE);
    expect((await readPdf(await guidancePdf({ metadataTitle: 'Microsoft Word - guidance_v3.docx' }), 'x.pdf', undefined, nodePdfjs)).title).toBe(PRINTED_TITLE);
  });
});

describe('a Markdown document chunked by its headings (issue 35, item 8)', () => {
  const MD = [
    '# Riverside park drone rules',
    'Issued by the park authority.',
    '## Launch sites',
    'Drones may take off only from the marked pad next to the boathouse.',
    '## Night flights',
    'Flights after sunset require a green flashing light visible from 500 m.',
    '',
    '## Wildlife',
    'Keep 150 m from the heron colony between March and July.',
    '### Nesting season',
    'No flight at all over the reed beds in April.',
    '## Records',
    'The pilot logs every flight in the park office book.',
    '```',
    '## not a heading (code)',
    '```',
  ].join('\n');
  const park = { ...meta, title: 'Riverside park drone rules' };

  it('makes each ## section a passage titled by its heading, the heading kept out of its text', () => {
    const { chunks } = ingestUserDocument(park, markdownDocument(park.id, MD));
    expect(chunks.map((c) => c.title)).toEqual([park.title, 'Launch sites', 'Night flights', 'Wildlife', 'Nesting season', 'Records']);
    const night = chunks.find((c) => c.title === 'Night flights')!;
    expect(night.text).toBe('Flights after sunset require a green flashing light visible from 500 m.');
    expect(chunks.find((c) => c.title === 'Nesting season')!.sectionPath).toEqual([park.title, 'Wildlife', 'Nesting season']);
    for (const c of chunks.slice(0, -1)) expect(c.text).not.toMatch(/^#|Launch sites\n|Night flights\n/m);
    expect(chunks.at(-1)!.text).toContain('## not a heading (code)');
  });

  it('reads setext headings, and a "---" rule after a blank line is not one', () => {
    const doc = markdownDocument('x', 'Scope\n=====\nIt applies to the park.\n\nConsent\n-------\nAsk the warden.\n\n---\n\nLast line.');
    expect(doc.lines.filter((l) => l.heading !== undefined).map((l) => [l.text, l.heading])).toEqual([
      ['Scope', 1],
      ['Consent', 2],
    ]);
  });
});
