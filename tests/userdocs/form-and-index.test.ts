/** The "Add documents" form's checks, document ids, and the dense stage over the built-in plus the user's rows. */
import { describe, expect, it } from 'vitest';
import { exactBackend } from '../../src/core/retrieval/dense.js';
import { ACCEPTED_FILES, fileFormat, MAX_FILE_BYTES, userDocumentId, validateUserDocumentForm } from '../../src/core/userdocs/form.js';
import { withUserRows } from '../../src/core/userdocs/user-index.js';

const ok = { fileName: 'guidance.pdf', fileBytes: 2048, title: 'LBA guidance', jurisdiction: 'de', edition: '2024-03' };

describe('the Add documents form', () => {
  it('accepts PDF, plain text, Markdown and HTML files and cleans the values', () => {
    expect(['a.pdf', 'a.TXT', 'a.md', 'a.markdown', 'a.htm', 'a.html'].map((n) => fileFormat(n))).toEqual([
      'pdf',
      'text',
      'markdown',
      'markdown',
      'html',
      'html',
    ]);
    expect(fileFormat('scan', 'application/pdf')).toBe('pdf');
    expect(ACCEPTED_FILES).toContain('.pdf');
    expect(validateUserDocumentForm({ ...ok, title: '  LBA   guidance ', jurisdiction: ' eu ' })).toEqual({
      ok: true,
      value: { format: 'pdf', title: 'LBA guidance', jurisdiction: 'EU', edition: '2024-03' },
    });
  });

  it('says for each invalid field what to enter', () => {
    const r = validateUserDocumentForm({ fileName: 'photo.docx', fileBytes: 10, title: ' ', jurisdiction: 'Germany', edition: '' });
    expect(r.ok).toBe(false);
    if (r.ok) return;
    expect(r.problems.file).toMatch(/not a PDF, plain-text .* Save it in one of these formats/);
    expect(r.problems.title).toMatch(/Give the document a title/);
    expect(r.problems.jurisdiction).toMatch(/“Germany” is not a jurisdiction: enter EU, or the two-letter ISO country code/);
    expect(r.problems.edition).toMatch(/edition or date/);
    const big = validateUserDocumentForm({ ...ok, fileBytes: MAX_FILE_BYTES + 1 });
    expect(big.ok ? '' : big.problems.file).toMatch(/files up to 30 MB/);
    const empty = validateUserDocumentForm({ ...ok, fileBytes: 0 });
    expect(empty.ok ? '' : empty.problems.file).toMatch(/is empty/);
    const none = validateUserDocumentForm({ ...ok, fileName: '' });
    expect(none.ok ? '' : none.problems.file).toMatch(/Choose a file/);
    const long = validateUserDocumentForm({ ...ok, title: 'x'.repeat(201), edition: 'y'.repeat(81) });
    expect(long.ok ? [] : [long.problems.title, long.problems.edition]).toEqual([expect.stringMatching(/at most 200/), expect.stringMatching(/at most 80/)]);
  });

  it('derives a document id from the title, unique in the library', () => {
    expect(userDocumentId('Betriebshandbuch – Überflug', [])).toBe('user/betriebshandbuch-uberflug');
    expect(userDocumentId('A', ['user/a', 'user/a-2'])).toBe('user/a-3');
    expect(userDocumentId('???', [])).toBe('user/document');
  });
});

describe("the dense stage with the user's rows", () => {
  it("ranks the built-in backend's rows and the user's rows exactly as one exact scan does", () => {
    const dim = 4;
    const unit = (v: number[]) => {
      const n = Math.hypot(...v);
      return v.map((x) => x / n);
    };
    const rows = [unit([1, 0, 0, 0]), unit([0, 1, 0, 0]), unit([1, 1, 0, 0]), unit([1, 0, 1, 0]), unit([0, 0, 1, 1]), unit([1, 1, 1, 0])];
    const vectors = Float32Array.from(rows.flat());
    const q = Float32Array.from(unit([1, 0.5, 0.2, 0]));
    const allowed = Uint8Array.from([1, 1, 1, 0, 1, 1]);
    const merged = withUserRows(exactBackend(vectors.subarray(0, 3 * dim), dim), vectors, dim, 3);
    expect(merged.search(q, 4, allowed)).toEqual(exactBackend(vectors, dim).search(q, 4, allowed));
  });
});
