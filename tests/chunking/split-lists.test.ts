import { describe, expect, it } from 'vitest';
import { keepListsWithIntroductions, splitIntoParts } from '../../corpus-build/chunking/split.js';
import type { SourceLine } from '../../src/core/ingest/document-model.js';

const lines = (texts: string[]): SourceLine[] => texts.map((text, i) => ({ text, page: 1, lineNo: i + 1 }));
const joined = (part: SourceLine[]) => part.map((l) => l.text).join('\n');
const filler = (n: number) => Array.from({ length: n }, (_, i) => `Filler sentence number ${i} about the invented procedure of a test unit.`);

describe('splitting keeps a list with the sentence that introduces it', () => {
  it('keeps a short enumerated list and its introduction in one part', () => {
    const text = [
      ...filler(12),
      '',
      'The applicant should provide the following:',
      '(a)  a description of the zone;',
      '(b)  the altitude of the flight; and',
      '(c)  the contact of the pilot.',
      '',
      ...filler(12),
    ];
    const parts = splitIntoParts(lines(text), { maxChars: 900, minChars: 300 });
    expect(parts.length).toBeGreaterThan(1);
    const withIntro = parts.find((p) => joined(p).includes('the following:'))!;
    expect(joined(withIntro)).toContain('(a)  a description');
    expect(joined(withIntro)).toContain('(c)  the contact of the pilot.');
    for (const p of parts) expect(joined(p).trimEnd()).not.toMatch(/:$/);
  });

  it('never ends a part on an introduction even when the list is long', () => {
    const items = Array.from({ length: 20 }, (_, i) => `(${i + 1})  item ${i} describes an invented requirement in enough words to take room;`);
    const text = [...filler(8), '', 'Each record contains:', ...items, '', ...filler(4)];
    const parts = splitIntoParts(lines(text), { maxChars: 900, minChars: 300 });
    for (const p of parts) expect(joined(p).trimEnd()).not.toMatch(/:$/);
    const introPart = parts.find((p) => joined(p).includes('Each record contains:'))!;
    expect(joined(introPart)).toContain('(1)  item 0');
  });

  it('merges nested introductions with their first items', () => {
    const paras = [
      lines(['Intro sentence that is complete.']),
      lines(['The operator should:']),
      lines(['(a)  check the following:']),
      lines(['(1)  the battery;']),
      lines(['(2)  the propellers;']),
      lines(['(b)  log the result.']),
      lines(['Unrelated closing paragraph.']),
    ];
    const merged = keepListsWithIntroductions(paras, 900);
    expect(merged.map((p) => p.map((l) => l.text).join(' '))).toEqual([
      'Intro sentence that is complete.',
      'The operator should: (a)  check the following: (1)  the battery; (2)  the propellers; (b)  log the result.',
      'Unrelated closing paragraph.',
    ]);
  });

  it('stops adding items once the group would exceed the limit', () => {
    const long = 'x'.repeat(300);
    const paras = [lines(['It lists:']), lines([`(a) ${long};`]), lines([`(b) ${long};`]), lines([`(c) ${long}.`])];
    const merged = keepListsWithIntroductions(paras, 700);
    expect(merged).toHaveLength(2);
    expect(merged[0]!.map((l) => l.text)[0]).toBe('It lists:');
    expect(merged[0]).toHaveLength(3);
  });
});
