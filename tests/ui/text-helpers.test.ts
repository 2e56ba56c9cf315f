/** Small text helpers of the Ask and Library views: language, edition labels, keyword excerpts, indicator display. */
import { describe, expect, it } from 'vitest';
import { cardOrder, notesToShow, numberCitations } from '../../src/core/indicators/display';
import type { IndicatorResult } from '../../src/core/indicators/run';
import { shortEdition } from '../../src/core/text/edition';
import { keywordExcerpt } from '../../src/core/text/excerpt';
import { englishOnlyNotice, nonEnglishLanguage } from '../../src/core/text/language';
import { checkQuestion, MAX_QUESTION_CHARS } from '../../src/core/text/question';

describe('language of a question', () => {
  it('recognises German, French, Spanish, Italian and Dutch questions and leaves English ones alone', () => {
    expect(nonEnglishLanguage('Welche Regeln gelten für den Flug über Wohngebiete mit einer Drohne?')?.code).toBe('de');
    expect(nonEnglishLanguage('Quelles sont les exigences pour voler au-dessus de zones peuplées ?')?.code).toBe('fr');
    expect(nonEnglishLanguage('¿Qué requisitos se aplican para volar con un dron sobre la ciudad?')?.code).toBe('es');
    expect(nonEnglishLanguage('Quali sono i requisiti per il volo di un drone sopra una città?')?.code).toBe('it');
    expect(nonEnglishLanguage('Wat zijn de regels voor het vliegen met een drone boven de stad?')?.code).toBe('nl');
    for (const q of [
      'What is the SAIL for GRC 4 and ARC-c?',
      'Which OSOs apply at SAIL II?',
      'Is a remote pilot allowed to operate from a moving vehicle?',
      'SAIL GRC ARC',
      'PDRA-G01 die size',
    ]) {
      expect(nonEnglishLanguage(q), q).toBeNull();
    }
    expect(englishOnlyNotice(nonEnglishLanguage('Welche Regeln gelten für den Flug über Wohngebiete?')!)).toMatch(/English only.*German/);
  });
});

describe('question limits', () => {
  it('accepts a question up to the limit and refuses a longer or empty one', () => {
    expect(checkQuestion('  What is a PDRA?  ')).toEqual({ ok: true, text: 'What is a PDRA?' });
    expect(checkQuestion('a'.repeat(MAX_QUESTION_CHARS)).ok).toBe(true);
    const long = checkQuestion('a'.repeat(20_000));
    expect(long.ok).toBe(false);
    expect(!long.ok && long.message).toMatch(/limited to 1,500 characters; this one has 20,000/);
    expect(checkQuestion('   ').ok).toBe(false);
  });
});

describe('short edition labels', () => {
  it('keeps the first clause and the SORA edition, and cuts long labels at a word', () => {
    expect(shortEdition('Issue 1, Amendment 3 (renamed Amendment 4 by the corrigendum of 12 December 2025); SORA 2.5, edition September 2025')).toBe(
      'Issue 1, Amendment 3 · SORA 2.5',
    );
    const curated = shortEdition('SORA 2.0-era AMC1 Article 11 and Annexes B–E; PDRA-S01, S02, G01, G02, G03 (narrative restatements)');
    expect(curated.length).toBeLessThanOrEqual(34);
    expect(curated).toMatch(/^SORA 2\.0-era AMC1 Article 11.*…$/);
    expect(shortEdition('Edition 2024')).toBe('Edition 2024');
  });
});

describe('keyword excerpts', () => {
  it('shows the window with the most query words and marks them', () => {
    const text = `${'Unrelated words about something else entirely. '.repeat(10)}The ground risk buffer should be defined with the 1-to-1 principle. ${'More filler text follows here. '.repeat(10)}`;
    const ex = keywordExcerpt(text, 'ground risk buffer');
    expect(ex.text).toContain('The ground risk buffer should be defined');
    expect(ex.leadingEllipsis).toBe(true);
    expect(ex.ranges.map((r) => ex.text.slice(r.start, r.end))).toEqual(['ground', 'risk', 'buffer']);
    expect(keywordExcerpt('Short text about buffers.', 'buffer').ranges.map((r) => 'Short text about buffers.'.slice(r.start, r.end))).toEqual(['buffers']);
  });
});

describe('indicator cards as people read them', () => {
  it('numbers passage citations by the card source list instead of showing ids', () => {
    expect(numberCitations('See [doc/a] and [doc/b; doc/a].', ['doc/a', 'doc/b'])).toBe('See [1] and [2, 1].');
    expect(numberCitations('See [doc/zz].', ['doc/a'])).toBe('See [source not listed].');
  });

  it('puts SAIL, final GRC and iGRC first, then values, then cards without a value', () => {
    const card = (name: string, value: string | number | null) => ({ name, value }) as unknown as IndicatorResult;
    const order = cardOrder([
      card('likely_regulatory_pathway', null),
      card('initial_ground_risk_orientation', 'low'),
      card('igrc', 3),
      card('final_grc', 3),
      card('sail', 'II'),
      card('expected_assessment_depth', null),
    ]);
    expect(order.map((r) => r.name)).toEqual([
      'sail',
      'final_grc',
      'igrc',
      'initial_ground_risk_orientation',
      'likely_regulatory_pathway',
      'expected_assessment_depth',
    ]);
  });
});

describe('notesToShow', () => {
  const table = 'The text (S.4.7.3) cites this table as "Table 7"; it is captioned "Table 3".';
  it('drops notes already in the explanation or under a table shown, and repeated notes', () => {
    expect(notesToShow([table], `SAIL III, read from the tables. ${table}`, [])).toEqual([]);
    expect(notesToShow([table], 'SAIL III.', [table])).toEqual([]);
    expect(notesToShow(['Assumes VLOS.', 'Assumes  VLOS.'], 'SAIL III.', [])).toEqual(['Assumes VLOS.']);
  });
  it('keeps the notes the reader has not seen, in their order', () => {
    expect(notesToShow(['Assumes VLOS.', table], 'SAIL III.', ['Another table note.'])).toEqual(['Assumes VLOS.', table]);
  });
});
