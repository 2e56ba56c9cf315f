/**
 * Issue 35 item 4: an answer card that shows passage text says where the printed text merges
 * struck-through and inserted words (as the passage viewer does), naming the words where their case
 * marks the merge. The texts are invented in the manner of the EASA amendment document.
 */
import { describe, expect, it } from 'vitest';
import { amendmentFlag, amendmentLine, isAmendmentSource } from '../../src/ui/amendment';
import { amendmentMerges } from '../../src/core/text/units';

const NOTE = 'Amendment document, not a consolidated text: struck-through and inserted words are merged in the text (e.g. "wWhen").';

describe('merged amendment wording in answer cards', () => {
  it('locates the merges the case marks, with the words as printed and as read', () => {
    expect(amendmentMerges('However, the applicantUAS operator should check it. wWhen flying, the Ssafety case holds.')).toEqual([
      { start: 13, end: 25, printed: 'applicantUAS', read: 'UAS' },
      { start: 52, end: 57, printed: 'wWhen', read: 'When' },
      { start: 70, end: 77, printed: 'Ssafety', read: 'safety' },
    ]);
    // abbreviations and names are no merges
    expect(amendmentMerges('The UAS operator and EASA use Remote ID and C2 links.')).toEqual([]);
  });

  it('names the merged words of the text the card shows, once each', () => {
    const text = 'The applicantUAS operator should train the crew. Later, the applicantUAS operator should record it.';
    const flag = amendmentFlag({ text }, { amendmentSource: true });
    expect(flag).toEqual({ merges: [{ printed: 'applicantUAS', read: 'UAS' }] });
    expect(amendmentLine(flag!)).toBe(
      'The printed text merges struck-through and inserted words here: “applicantUAS” (read as “UAS”). The consolidated text is the reference.',
    );
    // only what the card shows: an excerpt without the merge
    expect(amendmentFlag({ text }, { ranges: [{ start: 49, end: 60 }], amendmentSource: true })).toEqual({ merges: [] });
  });

  it('says that an amendment document’s text may merge words the case does not mark (“should receiveundergo”)', () => {
    const text = 'The remote crew should receiveundergo competency-based training.';
    expect(amendmentMerges(text)).toEqual([]);
    const flag = amendmentFlag({ text }, { amendmentSource: isAmendmentSource({ editionNote: NOTE }) });
    expect(flag).toEqual({ merges: [] });
    expect(amendmentLine(flag!)).toMatch(/^From an amendment document: the printed text can run struck-through and inserted words together/);
    // a passage flagged at indexing, from any source
    expect(amendmentFlag({ text, amendmentArtefacts: true })).toEqual({ merges: [] });
  });

  it('flags nothing in a document that is no amendment (a restatement, the user’s own)', () => {
    expect(isAmendmentSource({ editionNote: 'Narrative restatement of an older SORA edition (2.0), not the regulation’s wording.' })).toBe(false);
    expect(isAmendmentSource(undefined)).toBe(false);
    expect(amendmentFlag({ text: 'The pilot must check the battery.' }, { amendmentSource: false })).toBeNull();
    // a user's document written in camelCase is no amendment
    expect(amendmentFlag({ text: 'Set the flightMode to RTH.' }, { amendmentSource: false })).toBeNull();
  });
});
