/**
 * The question bank's spans: a quote is found in its passage whatever its whitespace or quote marks,
 * a span that moved is found again by its hash, and a question whose answering text is gone is
 * reported, never dropped. No source text is stored, only where the answer stands.
 */
import { describe, expect, it } from 'vitest';
import { draftProblems, locateQuote, relocateSpan, spanText, splitOf } from '../../corpus-build/bank/bank';
import { checkBank } from '../../corpus-build/bank/store';
import type { BankQuestion } from '../../corpus-build/bank/bank';

const TEXT = 'The operator should  define the\n   flight geography. The ‘contingency volume’ surrounds it.';

describe('quotes become spans', () => {
  it('finds a quote whose whitespace and quote marks differ from the passage', () => {
    const s = locateQuote(TEXT, "The 'contingency volume' surrounds it.")!;
    expect(s).not.toBeNull();
    expect(TEXT.slice(s.start, s.end)).toBe('The ‘contingency volume’ surrounds it.');
    expect(locateQuote(TEXT, 'The operator should define the flight geography.')).not.toBeNull();
    expect(locateQuote(TEXT, 'The operator must define')).toBeNull();
  });

  it('finds a span again after the text around it changed, and says when it is gone', () => {
    const s = locateQuote(TEXT, 'define the flight geography.')!;
    const moved = `A new first sentence. ${TEXT}`;
    expect(spanText(moved, s)).toBeNull();
    const again = relocateSpan(moved, s)!;
    expect(moved.slice(again.start, again.end).replace(/\s+/g, ' ')).toBe('define the flight geography.');
    expect(relocateSpan('Nothing of it here.', s)).toBeNull();
  });

  it('names what is wrong with a draft line', () => {
    expect(
      draftProblems({ chunk: 'c', q: 'Who defines the flight geography?', persona: 'operator', style: 'lay', answer: ['The operator should define'] }, TEXT),
    ).toEqual([]);
    expect(draftProblems({ chunk: 'c', q: 'Who?', persona: 'pilot' as never, style: 'lay', answer: ['not in the passage at all'] }, TEXT)).toEqual([
      'question missing or too short',
      'persona must be one of operator, inspector, newcomer, engineer',
      expect.stringMatching(/^quote not found/),
    ]);
    expect(draftProblems({ chunk: 'x', skip: 'footnotes only' }, undefined)).toEqual(['unknown chunk id "x"']);
  });
});

describe('the bank against rebuilt chunks', () => {
  const span = locateQuote(TEXT, 'define the flight geography.')!;
  const q: BankQuestion = {
    id: 'qb-00001',
    chunk: 'doc/a',
    textSha: 'stale',
    q: 'who draws the area?',
    persona: 'newcomer',
    style: 'terse',
    answer: [span],
    group: 'doc/a',
    ...splitOf('doc/a'),
    writer: 'test',
  };

  it('carries a question to the passage that now holds its answer, and reports one whose answer is nowhere by id', () => {
    const moved = checkBank(
      [q],
      [
        { id: 'doc/a', docId: 'doc', text: 'Only the heading is left here.' },
        { id: 'doc/b', docId: 'doc', text: `Split off: ${TEXT}` },
      ],
    );
    expect(moved.moved).toEqual([{ id: 'qb-00001', from: 'doc/a', to: 'doc/b' }]);
    expect(moved.usable[0]!.chunk).toBe('doc/b');
    const lost = checkBank([q], [{ id: 'doc/b', docId: 'doc', text: 'Unrelated.' }]);
    expect(lost.lost).toEqual([{ id: 'qb-00001', chunk: 'doc/a', why: expect.stringMatching(/no longer exists/) }]);
    expect(lost.usable).toEqual([]);
  });

  it('splits by section group: the same group always lands in the same split and fold', () => {
    expect(splitOf('doc/group one')).toEqual(splitOf('doc/group one'));
    const splits = Array.from({ length: 400 }, (_, i) => splitOf(`g${i}`).split);
    const held = splits.filter((s) => s === 'heldout').length / splits.length;
    expect(held).toBeGreaterThan(0.12);
    expect(held).toBeLessThan(0.28);
  });
});
