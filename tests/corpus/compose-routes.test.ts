/**
 * Composed `both` questions for the router's training (corpus-build/synth/compose-routes.ts): a value
 * question joined with a question about the passages of its table's section, reproducibly.
 */
import { describe, expect, it } from 'vitest';
import { companionPassages, composeBoth, join } from '../../corpus-build/synth/compose-routes.js';

const P = (chunk: string, ...questions: string[]) => ({ chunk, questions });
const PASSAGES = [
  P('doc/art11/s4.2.3', 'What does Step #2 determine?'),
  P('doc/art11/s4.2.3/table-1', 'Which row applies?'),
  P('doc/art11/s4.8.3/part-1', 'What is the adjacent area?'),
  P('doc/art11/s4.8.3/part-2', 'How is containment shown?'),
  P('doc/art11/s4.9', 'What are OSOs?'),
  P('doc/art11/s4.10.1', 'Unrelated section?'),
  P('doc/art11/s4.9.2', 'Empty section'),
];

describe('composed both questions', () => {
  it('takes the text passages of the table’s own section, never a table', () => {
    expect(companionPassages('doc/art11/s4.2.3/table-1', PASSAGES).map((p) => p.chunk)).toEqual(['doc/art11/s4.2.3']);
    expect(companionPassages('doc/art11/s4.8.3/table-8', PASSAGES).map((p) => p.chunk)).toEqual(['doc/art11/s4.8.3/part-1', 'doc/art11/s4.8.3/part-2']);
  });

  it('climbs section by section (s4.9.3 → s4.9; s4.1.5 → s4.1 → s4) when the table’s own section has no text passage, and stops at the document', () => {
    expect(companionPassages('doc/art11/s4.9.3/table-14', PASSAGES).map((p) => p.chunk)).toEqual(['doc/art11/s4.9', 'doc/art11/s4.9.2']);
    expect(companionPassages('doc/art11/s4.1.5/table-2', [P('doc/art11/s4.10.1', 'x?')]).map((p) => p.chunk)).toEqual(['doc/art11/s4.10.1']);
    expect(companionPassages('doc/art11/s4.1.5/table-2', [P('other/x', 'x?')])).toEqual([]);
  });

  it('joins two questions either as two sentences or with “and”, keeping acronyms’ case', () => {
    expect(join('What is the SAIL for GRC 4', 'What must the operator show?', 'two-questions')).toBe(
      'What is the SAIL for GRC 4? What must the operator show?',
    );
    expect(join('What is the SAIL for GRC 4?', 'What must the operator show?', 'and')).toBe('What is the SAIL for GRC 4, and what must the operator show?');
    expect(join('What is the SAIL?', 'SORA steps?', 'and')).toBe('What is the SAIL, and SORA steps?');
  });

  it('writes N per value question from its section, the same for the same seed and different for another', () => {
    const tables = [{ table: 'doc/art11/s4.8.3/table-8', valueQuestions: ['What containment for 400 people?', 'Which level for 3 m?'] }];
    const a = composeBoth(tables, PASSAGES, { perQuestion: 2, seed: 7 });
    expect(a).toHaveLength(4);
    expect(a.every((c) => c.chunk.startsWith('doc/art11/s4.8.3/part-') && c.table === 'doc/art11/s4.8.3/table-8')).toBe(true);
    expect(a.every((c) => /^(What containment for 400 people|Which level for 3 m)/.test(c.text))).toBe(true);
    expect(composeBoth(tables, PASSAGES, { perQuestion: 2, seed: 7 })).toEqual(a);
    const others = Array.from({ length: 5 }, (_, s) => JSON.stringify(composeBoth(tables, PASSAGES, { perQuestion: 2, seed: 100 + s })));
    expect(others.some((o) => o !== JSON.stringify(a))).toBe(true);
    // a table whose document has no text passage gives nothing
    expect(composeBoth([{ table: 'x/s1/table-1', valueQuestions: ['q?'] }], PASSAGES)).toEqual([]);
  });
});
