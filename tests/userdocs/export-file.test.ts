/**
 * Reading an exported document back: every malformed or foreign file gets a message
 * that names the file and says what to do, and nothing else.
 */
import { describe, expect, it } from 'vitest';
import { duplicateOf, parseUserDocumentExport, USER_DOCUMENT_EXPORT_FORMAT } from '../../src/core/userdocs/export-file.js';

const good = {
  format: USER_DOCUMENT_EXPORT_FORMAT,
  version: 2,
  exportedAt: '2026-11-23T10:00:00.000Z',
  document: { id: 'user/hospitals', title: 'Guidance on flights near hospitals', jurisdiction: 'DE', edition: '2024-03' },
  source: { fileName: 'hospitals.pdf', format: 'pdf', pages: ['Scope', 'Operators shall obtain the consent of the hospital.'] },
  summary: {},
  chunks: [],
};
const parse = (x: unknown) => parseUserDocumentExport('h.skycite.json', typeof x === 'string' ? x : JSON.stringify(x));
const message = (x: unknown) => {
  const r = parse(x);
  if (r.ok) throw new Error('expected a refusal');
  return r.message;
};

describe('parseUserDocumentExport', () => {
  it('returns the fields an added file has, cleaned as the form cleans them', () => {
    const r = parse({ ...good, document: { ...good.document, jurisdiction: ' de ', title: '  Guidance  on flights near hospitals ' } });
    expect(r).toEqual({
      ok: true,
      value: {
        title: 'Guidance on flights near hospitals',
        jurisdiction: 'DE',
        edition: '2024-03',
        fileName: 'hospitals.pdf',
        format: 'pdf',
        pages: good.source.pages,
      },
    });
  });

  it('refuses a file that is not JSON, saying it may be cut short', () => {
    expect(message(JSON.stringify(good).slice(0, 80))).toMatch(/^h\.skycite\.json: not valid JSON .*export the document again/);
  });

  it('refuses JSON that is not a SkyCite export and points to "Add documents"', () => {
    expect(message({ hello: 1 })).toMatch(/not a document exported by SkyCite .*"Add documents"/);
    expect(message([1, 2])).toMatch(/not a document exported by SkyCite/);
  });

  it('explains that a version 1 export has no text and an unknown version needs an update', () => {
    expect(message({ ...good, version: 1 })).toMatch(/earlier version .* did not keep the document's text\. Add the original file/);
    expect(message({ ...good, version: 9 })).toMatch(/export version 9 is not one this version of SkyCite reads .*Update the app/);
  });

  it('names the missing or malformed part', () => {
    expect(message({ ...good, source: undefined })).toMatch(/"source" part .* is missing/);
    expect(message({ ...good, document: 'x' })).toMatch(/"document" part .* is missing/);
    expect(message({ ...good, source: { ...good.source, format: 'docx' } })).toMatch(/"source\.format" is "docx"; expected one of pdf, text, markdown, html/);
    expect(message({ ...good, source: { ...good.source, pages: [1, 2] } })).toMatch(/"source\.pages" must be the document's text/);
    expect(message({ ...good, source: { ...good.source, pages: ['  ', ''] } })).toMatch(/the exported text is empty/);
  });

  it("applies the form's checks to an edited export", () => {
    expect(message({ ...good, document: { ...good.document, jurisdiction: 'Germany' } })).toMatch(
      /“Germany” is not a jurisdiction.*\(in the exported "document" part\)/,
    );
    expect(message({ ...good, document: { ...good.document, title: '' } })).toMatch(/Give the document a title/);
  });

  it('refuses an oversized file before parsing it', () => {
    const r = parseUserDocumentExport('big.json', '{}', 200 * 1048576);
    expect(r).toEqual({ ok: false, message: expect.stringMatching(/^big\.json: the file is 200 MB; an exported document is at most 90 MB/) });
  });
});

describe('duplicateOf', () => {
  it('matches title and edition ignoring case and spaces, and the jurisdiction exactly', () => {
    const existing = [{ id: 'a', title: 'Guidance on flights near hospitals', edition: '2024-03', jurisdiction: 'DE' }];
    expect(duplicateOf({ title: 'guidance on flights near hospitals ', edition: '2024-03', jurisdiction: 'DE' }, existing)?.id).toBe('a');
    expect(duplicateOf({ title: 'Guidance on flights near hospitals', edition: '2025-01', jurisdiction: 'DE' }, existing)).toBeUndefined();
    expect(duplicateOf({ title: 'Guidance on flights near hospitals', edition: '2024-03', jurisdiction: 'AT' }, existing)).toBeUndefined();
  });
});
