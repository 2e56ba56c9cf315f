import { describe, expect, it } from 'vitest';
import { countHygiene, hasInterleavedColumns, isHeadingOnly } from '../../corpus-build/chunking/hygiene.js';
import { isColumnHeader, readGlossaryColumns } from '../../corpus-build/chunking/glossary.js';
import type { LayoutLine } from '../../corpus-build/loaders/easa-layout.js';

const layout = (texts: string[], footnoteFrom = Infinity): LayoutLine[] =>
  texts.map((text, i) => ({ text, page: 1, lineNo: i + 1, footnote: i >= footnoteFrom }));

// an invented glossary entry in the three-column layout (term | acronym | definition)
const ENTRY = [
  'X.7.   Widget handling        WHP         Steps to be taken in a given order when a',
  '       procedure                          widget is dropped, so that it can be picked',
  '                                          up again.',
  '',
  ' Term                         Acronym     Definition',
];

describe('chunk hygiene checks', () => {
  it('calls a chunk heading-only when its text is its title and at most a few column labels', () => {
    expect(isHeadingOnly({ title: 'S.9.1 Step #1 — Things', text: 'S.9.1     Step #1 — Things' })).toBe(true);
    expect(isHeadingOnly({ title: 'Annex Q', text: 'Annex Q\nLIST OF THINGS\n Name   Kind   Meaning' })).toBe(true);
    expect(isHeadingOnly({ title: 'S.9.1.2 Outcome', text: 'S.9.1.2 Outcome\nOperators will know which widgets apply.' })).toBe(false);
    expect(isHeadingOnly({ title: 'S.9.2.2 Outcome', text: 'S.9.2.2 Outcome\nChoice of the widget.' })).toBe(false);
  });

  it('sees interleaved columns when a wrapped line holds a term beside a definition, not in list markers', () => {
    expect(hasInterleavedColumns(ENTRY.join('\n'))).toBe(true);
    expect(hasInterleavedColumns('(a)    first item\n(b)    second item\n2.7.2   Who reports?')).toBe(false);
    expect(countHygiene([{ id: 't', kind: 'table', title: 'T', text: ENTRY.join('\n') }]).interleavedColumns).toEqual([]);
  });
});

describe('glossary entries read column by column', () => {
  it('puts the whole term and acronym on the heading line and the definition after it, in reading order', () => {
    const out = readGlossaryColumns(layout(ENTRY))!;
    expect(out.map((l) => l.text.trim()).filter(Boolean)).toEqual([
      'X.7. Widget handling procedure (WHP)',
      'Steps to be taken in a given order when a',
      'widget is dropped, so that it can be picked',
      'up again.',
    ]);
    expect(hasInterleavedColumns(out.map((l) => l.text).join('\n'))).toBe(false);
    // line numbers and pages stay with the text they came from
    expect(out[0]!.lineNo).toBe(1);
    expect(out.find((l) => l.text.startsWith('up again'))!.lineNo).toBe(3);
  });

  it('keeps footnotes and leaves lines that are not an entry as they were', () => {
    const withNote = readGlossaryColumns(layout([...ENTRY.slice(0, 3), '', '12   A footnote of the page.'], 4))!;
    expect(withNote[withNote.length - 1]!.text).toBe('12   A footnote of the page.');
    expect(readGlossaryColumns(layout(['Plain prose that is no glossary entry.']))).toBeNull();
    expect(isColumnHeader(' Term                         Acronym     Definition')).toBe(true);
    expect(isColumnHeader('I.3. Adequate        Whatever is necessary')).toBe(false);
  });
});
