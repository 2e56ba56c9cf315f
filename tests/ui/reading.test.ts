import { describe, expect, it } from 'vitest';
import { documentSequence, placeIn, printedTableNumber, sectionPassages, tableLabels } from '../../src/ui/reading.js';
import type { DocumentOutline, OutlineNode } from '../../src/runtime/types.js';

const node = (title: string, chunkIds: string[], children: OutlineNode[] = []): OutlineNode => ({ title, chunkIds, children });

// "Section 4 The SORA process": its heading passage, then its steps' passages (the issue: Read showed the heading only)
const section4 = node(
  'Section 4 The SORA process',
  ['d/s4'],
  [node('S.4.1 Step #1', ['d/s4.1', 'd/s4.1/part-2']), node('S.4.2 Step #2', ['d/s4.2'], [node('S.4.2.3 Task description', ['d/s4.2.3', 'd/s4.2.3/table-1'])])],
);

describe('reading a section through', () => {
  it("lists a section's passages and all its subsections', in outline order, each once", () => {
    expect(sectionPassages(section4)).toEqual(['d/s4', 'd/s4.1', 'd/s4.1/part-2', 'd/s4.2', 'd/s4.2.3', 'd/s4.2.3/table-1']);
    expect(sectionPassages(node('twice', ['a', 'a'], [node('child', ['a', 'b'])]))).toEqual(['a', 'b']);
  });

  it('gives the previous and next passage, none beyond either end, and nothing for a passage outside the sequence', () => {
    const seq = { ids: sectionPassages(section4), label: section4.title };
    expect(placeIn(seq, 'd/s4')).toEqual({ position: 1, count: 6, previous: null, next: 'd/s4.1' });
    expect(placeIn(seq, 'd/s4.2')).toEqual({ position: 4, count: 6, previous: 'd/s4.1/part-2', next: 'd/s4.2.3' });
    expect(placeIn(seq, 'd/s4.2.3/table-1')?.next).toBeNull();
    expect(placeIn(seq, 'elsewhere')).toBeNull();
    expect(placeIn(null, 'd/s4')).toBeNull();
  });

  it('reads a whole document in outline order, labelled with its title', () => {
    const outline = [
      { docId: 'd', title: 'SORA', edition: '', verbatim: true, reuseNotice: '', editionNote: '', sections: [node('Section 3', ['d/s3']), section4] },
    ] as DocumentOutline[];
    const seq = documentSequence(outline, 'd');
    expect(seq?.label).toBe('SORA');
    expect(seq?.ids.slice(0, 3)).toEqual(['d/s3', 'd/s4', 'd/s4.1']);
    expect(documentSequence(outline, 'other')).toBeNull();
  });
});

describe('table labels', () => {
  it('reads the number as printed in a caption', () => {
    expect(printedTableNumber('Table B.4 — Level of integrity assessment criteria for M2 mitigation')).toBe('B.4');
    expect(printedTableNumber('Table 14 — Recommended operational safety objectives (OSOs)')).toBe('14');
    expect(printedTableNumber('Table E.1 – Basic principles')).toBe('E.1');
    expect(printedTableNumber('Section 4')).toBeNull();
  });

  it('labels each table with its caption as printed, unique, and says when the document prints one number twice', () => {
    // Annex B prints "Table B.4" on the M1(B) integrity table (p. 89) and again on the M2 one (p. 93)
    const labels = tableLabels([
      { id: 'a/annex-b/b3/table-b4', title: 'Table B.4 — Level of integrity assessment criteria for M1(B) mitigation' },
      { id: 'a/annex-b/b5/table-b4', title: 'Table B.4 — Level of integrity assessment criteria for M2 mitigation' },
      { id: 'a/annex-b/b5/table-b10', title: 'Table B.10 — Level of assurance assessment criteria for M2 mitigation' },
    ]);
    const shown = [...labels.values()].map((l) => l.label);
    expect(new Set(shown).size).toBe(3);
    expect(labels.get('a/annex-b/b5/table-b4')!.label).toBe('Table B.4 — Level of integrity assessment criteria for M2 mitigation');
    expect(labels.get('a/annex-b/b5/table-b4')!.note).toMatch(
      /prints the number B\.4 on this table and also on “Table B\.4 — Level of integrity assessment criteria for M1\(B\) mitigation”/,
    );
    expect(labels.get('a/annex-b/b3/table-b4')!.note).toMatch(/M2 mitigation/);
    expect(labels.get('a/annex-b/b5/table-b10')!.note).toBeNull();
  });
});
