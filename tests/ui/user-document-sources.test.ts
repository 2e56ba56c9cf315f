/**
 * A passage of the user's own document is labelled as theirs (issue 26, item 6): the source card
 * and evidence card badge "your document · <jurisdiction>", the turn's route badge does not call it
 * regulatory text, and the audit record lists it apart. The document is a generated two-page PDF
 * read as the Library reads it (pdfjs text layer laid out by font size) and chunked by its headings.
 */
import { describe, expect, it } from 'vitest';
import { buildAuditRecord } from '../../src/core/ask/audit';
import { ingestUserDocument, textToDocument } from '../../src/core/ingest/user-document';
import { readPdf } from '../../src/ui/library/extract-text';
import { ownDocumentLabel, routeLabel, turnSources } from '../../src/ui/ask/sources';
import { guidancePdf, nodePdfjs } from '../support/guidance-pdf';
import { CHUNKS, createFakeRuntime } from './fake-runtime';

const meta = { id: 'user/lba-2024', title: 'LBA guidance on drone flights near hospitals', jurisdiction: 'DE', edition: '2024-03' };

async function userChunks() {
  const { pages } = await readPdf(await guidancePdf(), 'guidance.pdf', undefined, nodePdfjs);
  return ingestUserDocument(meta, textToDocument(meta.id, pages)).chunks;
}

describe("the user's own document in Ask", () => {
  it('is labelled "your document · DE" on its cards, the route badge says so, and the audit record lists it apart', async () => {
    const own = await userChunks();
    const rt = createFakeRuntime([...CHUNKS, ...own]);
    const question = 'consent of the hospital before flying near its grounds and the intrinsic ground risk class';
    const ask = await rt.retrieve(question);
    const evidence = await rt.evidenceOnly(question, ask);
    const s = turnSources({ ask, evidence });
    const mine = s.cited.filter((c) => c.chunk.docId === meta.id);
    const builtIn = s.cited.filter((c) => c.chunk.docId !== meta.id);
    expect(mine.length).toBeGreaterThan(0);
    expect(builtIn.length).toBeGreaterThan(0);
    for (const c of mine) expect(ownDocumentLabel(c.chunk)).toBe('your document · DE');
    for (const c of builtIn) expect(ownDocumentLabel(c.chunk)).toBeNull();
    // the consent passage is cited with its own page and heading, the highlight on the sentence that answers
    const consent = mine.find((c) => c.chunk.title === '2.1 Consent of the hospital')!;
    expect(consent.chunk).toMatchObject({ pageStart: 2, pageEnd: 2 });
    const marked = consent.ranges.map((r) => consent.chunk.text.slice(r.start, r.end)).join(' ');
    expect(marked).toContain('Operators shall obtain the consent of the hospital');
    expect(marked).not.toMatch(/Drone flights near hospitals|Scope/);
    // not shown under "From the regulatory text" alone
    expect(routeLabel('rules', s)).toBe('From the regulatory text and your documents');
    expect(routeLabel('rules', { cited: mine, other: [] })).toBe('From your documents');
    expect(routeLabel('rules', { cited: builtIn, other: [] })).toBe('From the regulatory text');
    const record = buildAuditRecord({
      question,
      retrievalQuery: question,
      retrieval: ask.retrieval,
      retrievalConfig: ask.config,
      mode: 'evidence-only',
      evidence,
      indexManifestSha: 'abc',
    });
    expect(record.userDocumentSources).toEqual(mine.map((c) => c.chunk.id));
    expect(record.citedSources).toEqual(expect.arrayContaining(record.userDocumentSources!));
  });
});
