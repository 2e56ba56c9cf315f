/** coverageOf: does a question name, or ask about, an instrument the corpus only references? */
import { describe, expect, it } from 'vitest';
import { categoryFits, coverageMatches, coverageOf, questionCategories } from '../../src/core/coverage/match.js';
import { fixture } from './fixture.js';

const data = fixture();

describe('coverageOf', () => {
  it('names the absent instrument a question cites, with the citation as the reason', () => {
    const hit = coverageOf('What does Article 14 of Regulation (EU) 2019/947 require from operators?', data);
    expect(hit?.instrument.id).toBe('art14');
    expect(hit?.why).toMatchObject({ kind: 'named', key: 'reg:2019/947:art:14' });
  });

  it('returns null when the question cites a point whose AMC/GM the corpus holds', () => {
    expect(coverageOf('How is the SAIL set under Article 11?', data)).toBeNull();
    expect(coverageOf('What does the SORA say about registration of the operator?', data)).toBeNull();
  });

  it('recognises a question about an absent instrument’s subject without a citation', () => {
    const hit = coverageOf('Do I need to register my drone?', data);
    expect(hit?.instrument.id).toBe('art14');
    expect(hit?.why.kind).toBe('topic');
  });

  it('prefers the instrument with more subject cues', () => {
    expect(coverageOf('Can my hobby drone under 250 g be flown without registration?', data)?.instrument.id).toBe('open');
  });

  it('names an instrument by a proper name in its cues ("GDPR")', () => {
    expect(coverageOf('Does the GDPR apply to my drone videos?', data)).toMatchObject({ instrument: { id: 'gdpr' }, why: { kind: 'named', matched: 'GDPR' } });
  });

  it('returns null for a question about the documents’ own content', () => {
    expect(coverageOf('What is the intrinsic ground risk class of a 3 m aircraft over a sparsely populated area?', data)).toBeNull();
  });

  it('lists every match for the decision: named, topic and covered separately', () => {
    const m = coverageMatches('Under Article 11, must a hobby pilot register?', data);
    expect(m.covered.map((h) => h.instrument.id)).toEqual(['art11']);
    expect(m.topic.map((h) => h.instrument.id).sort()).toEqual(['art14', 'open']);
    expect(m.named).toEqual([]);
  });

  it('sends a subject to a category-bound instrument only when the question’s category fits (never on a shared keyword)', () => {
    expect(coverageOf('Must a remote pilot complete training first?', data)?.instrument.id).toBe('competence');
    expect(coverageOf('Must a remote pilot complete training first in the specific category?', data)).toBeNull();
    expect(coverageOf('Must a remote pilot complete training under the SORA?', data)).toBeNull();
    expect(coverageMatches('Must a remote pilot complete training under the SORA?', data).categories).toEqual(['specific']);
  });

  it('questionCategories reads the categories a question names; categoryFits lets an unbound entry or an unstated category through', () => {
    expect(questionCategories('Open category or specific category?', data)).toEqual(['open', 'specific']);
    expect(questionCategories('Do I need to register my drone?', data)).toEqual([]);
    expect(categoryFits({ categories: ['open'] }, ['specific'])).toBe(false);
    expect(categoryFits({ categories: ['open', 'specific'] }, ['specific'])).toBe(true);
    expect(categoryFits({}, ['specific'])).toBe(true);
    expect(categoryFits({ categories: ['open'] }, [])).toBe(true);
  });
});
