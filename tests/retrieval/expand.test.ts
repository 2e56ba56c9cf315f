import { describe, expect, it } from 'vitest';
import { expansionTerms, lexiconHoldout } from '../../src/core/retrieval/expand.js';

describe('everyday → regulatory query expansion', () => {
  it('adds the regulation’s terms for everyday words, once each', () => {
    expect(expansionTerms('Do I need a permit, and when does the permit expire? Is there an expiry date?')).toEqual([
      'operational authorisation',
      'duration validity unlimited operational authorisation',
    ]);
    expect(expansionTerms('How is the SAIL derived from the final GRC?')).toEqual([]);
  });

  it('skips excluded entries', () => {
    expect(expansionTerms('Can spotters replace a permit?', ['operational authorisation'])).toEqual(['airspace observer AO']);
  });
});

describe('leave-one-group-out estimate for the lexicon', () => {
  it('excludes, for a group, the entries that fire on that group only', () => {
    const map = lexiconHoldout([
      { group: 'g1', question: 'Do I need a permit?' },
      { group: 'g1', question: 'Is a permit needed for spotters?' },
      { group: 'g2', question: 'Who approves my permit?' },
      { group: 'g3', question: 'Can a spotter help?' },
      { group: 'g3', question: 'How is the SAIL derived?' },
    ]);
    // "permit" fires on g1 and g2: kept for both; "spotter" fires on g1 and g3: kept
    expect(map.get('g1')).toBeUndefined();
    expect(map.get('g2')).toBeUndefined();
    const one = lexiconHoldout([
      { group: 'g1', question: 'Do I need a permit?' },
      { group: 'g2', question: 'Can a spotter help?' },
    ]);
    expect(one.get('g1')).toEqual(['operational authorisation']);
    expect(one.get('g2')).toEqual(['airspace observer AO']);
  });
});
