/**
 * CSV export against formula injection (issue 27, item 7): every CSV writer escapes its cells with
 * one function, which follows OWASP's rule — a cell beginning with =, +, -, @, a tab or a carriage
 * return is prefixed with a single quote and quoted, its quotes doubled — and RFC 4180 otherwise.
 */
import { describe, expect, it } from 'vitest';
import { csvField, draftToCsv, type RequirementDraft } from '../../src/core/agents/requirements.js';
import { csvCell, csvRow } from '../../src/core/text/csv.js';

const draft = (document: string, statement: string): RequirementDraft => ({
  query: 'q',
  mode: 'evidence-only',
  createdAt: '2026-11-25T10:00:00.000Z',
  documents: [{ id: 'user/x', title: document, edition: '1', reason: 'r', kept: true }],
  requirements: [
    {
      id: 'R1',
      statement,
      modal: 'shall',
      group: document,
      rationale: 'passage 1',
      source: { chunkId: 'user/x/p1-1', document, edition: '1', section: 'S.1', pages: 'page 3' },
      verbatim: true,
      sourceVerbatim: true,
    },
  ],
  noEvidence: false,
});

/** The cells of one CSV line without quoted line breaks (enough for these rows). */
function cells(line: string): string[] {
  const out: string[] = [];
  const re = /("(?:[^"]|"")*"|[^,]*)(,|$)/g;
  let m: RegExpExecArray | null;
  while ((m = re.exec(line)) && m[0] !== '') {
    out.push(m[1]!);
    if (m[2] === '') break;
  }
  return out;
}

describe('CSV cells against formula injection', () => {
  it('prefixes a cell beginning with =, +, -, @, tab or carriage return with a quote, and quotes it', () => {
    expect(csvCell('=HYPERLINK("http://evil.example","x")')).toBe(`"'=HYPERLINK(""http://evil.example"",""x"")"`);
    expect(csvCell('+1+cmd|calc')).toBe(`"'+1+cmd|calc"`);
    expect(csvCell('-2+3')).toBe(`"'-2+3"`);
    expect(csvCell('@SUM(A1:A2)')).toBe(`"'@SUM(A1:A2)"`);
    expect(csvCell('\t=1')).toBe(`"'\t=1"`);
    expect(csvCell('\r=1')).toBe(`"'\r=1"`);
  });

  it('leaves other cells as RFC 4180 has them (quoted only when needed)', () => {
    expect(csvCell('plain')).toBe('plain');
    expect(csvCell('a=b, c')).toBe('"a=b, c"');
    expect(csvCell('say "x"')).toBe('"say ""x"""');
    expect(csvCell('')).toBe('');
    expect(csvRow(['a', '=b'])).toBe(`a,"'=b"`);
  });

  it('is the one escaping the Requirements export uses', () => {
    expect(csvField).toBe(csvCell);
  });

  it('writes a document title beginning with = as text in the requirements CSV', () => {
    const csv = draftToCsv(draft('=cmd|" /C calc"!A0', '@statement, with a comma'));
    const [, row] = csv.split('\r\n');
    const c = cells(row!);
    expect(c[1]).toBe(`"'=cmd|"" /C calc""!A0"`);
    expect(c[3]).toBe(`"'@statement, with a comma"`);
    expect(c[4]).toBe(`"'=cmd|"" /C calc""!A0"`);
    // no cell of the file begins with a formula character once its quotes are read
    for (const line of csv.split('\r\n').filter(Boolean)) {
      for (const cell of cells(line)) expect(cell.replace(/^"/, '')).not.toMatch(/^[=+\-@\t\r]/);
    }
  });
});
