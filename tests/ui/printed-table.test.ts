/**
 * Issue 35 item 2: a table in an answer card is shown as a grid that fits the card (as the passage
 * viewer shows a typed table), never as monospace text cut at the card's edge. A layout table becomes
 * rows of its printed cells (core/text/units.ts printedTableRows); a row whose columns cannot be told
 * apart stays as printed, so no cell takes words from another column. The tables are invented, set out
 * as the EASA file prints its Annex B tables.
 */
import { describe, expect, it } from 'vitest';
import { printedTableRows } from '../../src/core/text/units';
import { passageLayout, printedColumns } from '../../src/ui/table-text';

const CRITERIA = [
  '                                              LEVEL of ASSURANCE',
  '                                   Low                          Medium',
  '     Criterion #1        The operator declares that     Same as ‘low’. In addition,',
  '     (Evaluation of      the area is sheltered.         the operator has evidence.',
  '     people at risk)',
  '',
  '     Comments            N/A',
  '',
  '              Table X.1 — Level of assurance criteria',
].join('\n');

const MATRIX = [
  '                     Low assurance       Medium assurance',
  'Low integrity        Low robustness      Low robustness',
  'Medium integrity     Low robustness      Medium robustness',
].join('\n');

describe('a layout table as the grid of its printed cells', () => {
  it('reads the header lines over their columns, then each row block cell by cell under its label', () => {
    const rows = printedTableRows({ text: CRITERIA, kind: 'table' })!;
    expect(rows.map((r) => (r.kind === 'cells' ? r.cells.map((c) => c.text) : r.text))).toEqual([
      ['', 'LEVEL of ASSURANCE Low', 'Medium'],
      [
        'Criterion #1 (Evaluation of people at risk)',
        'The operator declares that the area is sheltered.',
        'Same as ‘low’. In addition, the operator has evidence.',
      ],
      ['Comments', 'N/A'],
      ['Table X.1 — Level of assurance criteria'],
    ]);
    expect(rows[0]).toMatchObject({ kind: 'cells', header: true });
  });

  it('makes each line of a matrix a row of its own', () => {
    const rows = printedTableRows({ text: MATRIX, kind: 'table' })!;
    expect(rows.map((r) => (r.kind === 'cells' ? r.cells.map((c) => c.text) : r.text))).toEqual([
      ['', 'Low assurance', 'Medium assurance'],
      ['Low integrity', 'Low robustness', 'Low robustness'],
      ['Medium integrity', 'Low robustness', 'Medium robustness'],
    ]);
  });

  it('keeps a row as printed where a column holds two printed columns, never mixing their words', () => {
    const text = [
      '     Criterion #2        If the operator claims it Same as low. In addition, the',
      '     (Penetration)       the UA is light.        operator restricts times.',
      '                         The UA is tested.       The UA       is      tested.',
      '',
      '     Comments            N/A',
    ].join('\n');
    const rows = printedTableRows({ text, kind: 'table' })!;
    expect(rows[0]).toEqual({ kind: 'printed', text: text.split('\n\n')[0] });
    expect(rows[1]).toMatchObject({ kind: 'cells', cells: [{ text: 'Comments' }, { text: 'N/A' }] });
  });

  it('is no grid for a table of one column', () => {
    expect(printedTableRows({ text: 'A single column\nof text only.', kind: 'table' })).toBeNull();
  });

  it('sets the columns in the printed proportions, a row label wide enough for its words', () => {
    expect(printedColumns({ cells: [{ width: 20 }, { width: 30 }, { width: 31 }] })).toBe('minmax(6.5rem, 20fr) minmax(2.75rem, 30fr) minmax(2.75rem, 31fr)');
    expect(printedColumns({ cells: [{ width: 60 }] })).toBe('minmax(2.75rem, 60fr)');
  });

  it('shows a layout table as cells in an answer card, and in its printed columns in the passage viewer', () => {
    const chunk = { docId: 'easa-amc-gm-2019-947', kind: 'table' as const, title: 'Table X.1 — Level of assurance criteria', pageStart: 1, text: CRITERIA };
    expect(passageLayout(chunk, [], [], { cells: true }).kind).toBe('cells');
    expect(passageLayout(chunk, []).kind).toBe('layout');
  });
});
