/**
 * One segmentation into quotable units: sentences and list items of prose, table cells under their
 * headers, footnotes apart from the text, glued footnote numbers separated, case-marked amendment
 * merges read, headings and fragments not quotable. Invented samples in the documents' layout.
 */
import { describe, expect, it } from 'vitest';
import { garbledCell, quotableUnits, segmentUnits, unitQuote } from '../../src/core/text/units';

const texts = (t: string, markers: string[] = []) => segmentUnits({ text: t, footnoteMarkers: markers }).map((u) => u.text);

describe('prose', () => {
  it('splits sentences across printed line breaks and keeps their spans in the passage text', () => {
    const text = 'The operator should keep a log of\n   every flight. The log is kept for\ntwo years.';
    const units = segmentUnits({ text });
    expect(units.map((u) => u.text)).toEqual(['The operator should keep a log of every flight.', 'The log is kept for two years.']);
    expect(text.slice(units[1]!.start, units[1]!.end).replace(/\s+/g, ' ')).toBe('The log is kept for two years.');
  });

  it('reads a sentence that points back ("These records …", "In other cases …") with the one before it, but not after a question or for an expletive "It is … that"', () => {
    expect(texts('The operator keeps crew records. These records are kept for three years. The drone is inspected.')).toEqual([
      'The operator keeps crew records. These records are kept for three years.',
      'The drone is inspected.',
    ]);
    expect(texts('A log is kept for each flight. In other cases a summary suffices.')).toEqual([
      'A log is kept for each flight. In other cases a summary suffices.',
    ]);
    expect(texts('Who keeps the log? It should be noted that the pilot does. This Annex lists the logs.')).toEqual([
      'Who keeps the log?',
      'It should be noted that the pilot does.',
      'This Annex lists the logs.',
    ]);
  });

  it('quotes the first sentence of a short numbered entry under the term it defines', () => {
    const units = segmentUnits({ title: 'Z.7. Flight log', text: 'Z.7. Flight log\nThe record of each flight kept by the operator.' });
    const q = quotableUnits(units);
    expect(q.map((u) => unitQuote(u))).toEqual(['Flight log: The record of each flight kept by the operator.']);
    // a section's numbered heading is no term (found quoting "Instructions: …")
    expect(
      quotableUnits(segmentUnits({ title: 'Z.4.5.4 Instructions', text: 'Z.4.5.4 Instructions\nThe operator applies the mitigation.' }))[0]!.header,
    ).toBeUndefined();
    // a long section under a numbered heading is no definition
    const long = segmentUnits({ title: 'Z.8 Logs', text: `Z.8 Logs\nThe operator keeps logs. ${'Each log lists the flights of the day. '.repeat(30)}` });
    expect(quotableUnits(long)[0]!.header).toBeUndefined();
  });

  it('takes each enumerated item as a unit, with its enumerator, and joins an enumerator printed alone on its line', () => {
    const text = '(a)      the crew is trained; and\n(b)\n         the drone is inspected before each flight.';
    expect(texts(text)).toEqual(['(a) the crew is trained; and', '(b) the drone is inspected before each flight.']);
    expect(segmentUnits({ text }).map((u) => u.kind)).toEqual(['item', 'item']);
  });

  it('marks the printed heading and a short unpunctuated heading item as not quotable', () => {
    const units = segmentUnits({
      title: 'X.1 Crew fitness',
      text: 'X.1 Crew fitness\n(e) Crew fitness policy\nThe crew declares itself fit before each flight.',
    });
    expect(units.map((u) => [u.kind, u.quotable])).toEqual([
      ['heading', false],
      ['item', false],
      ['sentence', true],
    ]);
  });

  it('does not quote the first words of a passage that continue a sentence of the part before it', () => {
    const units = segmentUnits({ text: 'applied to the ground risk.\nThe buffer is at least as wide as the height.' });
    expect(units[0]!.quotable).toBe(false);
    expect(units[1]!.quotable).toBe(true);
  });
});

describe('what is not quoted on its own', () => {
  it('quotes a list introduction with the items that follow it', () => {
    const text =
      '(a) The loss of control is a state that corresponds to situations:\n(i) where the outcome relies on providence; or\n(ii) that cannot be handled by contingency procedures.';
    const [u, ...rest] = segmentUnits({ text });
    expect(u!.text).toBe(
      '(a) The loss of control is a state that corresponds to situations: (i) where the outcome relies on providence; or (ii) that cannot be handled by contingency procedures.',
    );
    expect(rest).toEqual([]);
  });

  it('does not quote a restatement’s sentence about itself', () => {
    const units = segmentUnits({ text: 'This content addresses the crew fitness objective. The crew declares itself fit before each flight.' });
    expect(units.map((x) => x.quotable)).toEqual([false, true]);
  });

  it('does not quote a table cell whose words come from interleaved columns', () => {
    expect(garbledCell('density) sparsely populated area populated area assemblies of people', 'Ground risk')).toBe(true);
    expect(garbledCell('The components are designed to an 1 airworthiness design standard.', 'Criterion')).toBe(true);
    expect(garbledCell('penetration OR hazard) For UA with a take-off mass higher than 25 kg, the operator has evidence.', 'Criterion #2')).toBe(true);
    expect(garbledCell('The designer shows evidence by testing or analysis.', 'Criterion #1 (Design) · Medium')).toBe(false);
  });

  it('does not quote a formula scattered by the extraction, or a row of capitals', () => {
    const units = segmentUnits({
      text: 'Termination with fixed-wing 𝑆GRB = 𝐸 𝐻CV aircraft: 𝑆GRB\n\nDETERIORATION OF EXTERNAL SYSTEMS SUPPORTING UAS OPERATIONS\n\nThe buffer is wide.',
    });
    expect(units.map((u) => u.quotable)).toEqual([false, false, true]);
  });
});

describe('footnotes', () => {
  it('keeps a footnote printed inside the passage apart, as a footnote unit, and separates its number glued to a value', () => {
    const text = 'The reduction is –230 for a high robustness.\n\n30\n      Only where the competent authority accepts it.\n\nThe next rule applies.';
    const units = segmentUnits({ text, footnoteMarkers: ['30'] });
    expect(units.map((u) => [u.kind, u.text])).toEqual([
      ['sentence', 'The reduction is –2 for a high robustness.'],
      ['footnote', 'Only where the competent authority accepts it.'],
      ['sentence', 'The next rule applies.'],
    ]);
    expect(units[0]!.footnotes).toEqual(['30']);
    expect(units[0]!.printed).toBe('The reduction is –230 for a high robustness.');
    expect(units[1]!.header).toBe('Footnote 30');
  });

  it('separates a marker only when it is a footnote of the passage’s pages and what is left is a value or a word', () => {
    expect(texts('See Annex F Edition 2.536 and the area35 around it.', ['35', '36'])).toEqual(['See Annex F Edition 2.5 and the area around it.']);
    // a class mark or a number that is no footnote stays as printed
    expect(texts('A C2 link and 2019/947 apply here.', ['2', '47'])).toEqual(['A C2 link and 2019/947 apply here.']);
  });
});

describe('amendment mark-up', () => {
  it('reads case-marked merges as the amended wording and keeps the printed words', () => {
    const [u] = segmentUnits({ text: 'wWhen the applicantUAS operator applies, the Ssafety case is sent.' });
    expect(u!.text).toBe('When the UAS operator applies, the safety case is sent.');
    expect(u!.amendment).toBe('read');
    expect(u!.printed).toBe('wWhen the applicantUAS operator applies, the Ssafety case is sent.');
  });

  it('leaves ordinary capitals and acronyms alone', () => {
    const [u] = segmentUnits({ text: 'The SORA applies to the UAS operator in class G airspace.' });
    expect(u!.amendment).toBeUndefined();
    expect(u!.printed).toBeUndefined();
  });
});

describe('layout tables', () => {
  const table = [
    '                          Medium                        High',
    '   Criterion #1    The designer shows evidence    The authority verifies the',
    '   (Design)        by testing or analysis.        design.',
    '',
    '   Criterion #2    Procedures are written.        Procedures are validated',
    '   (Procedures)                                   by the authority.',
  ].join('\n');

  it('reads each cell down its column, under its row and column headers, never across columns', () => {
    const units = segmentUnits({ text: table, kind: 'table' });
    expect(units.map(unitQuote)).toEqual([
      'Criterion #1 (Design) · Medium: The designer shows evidence by testing or analysis.',
      'Criterion #1 (Design) · High: The authority verifies the design.',
      'Criterion #2 (Procedures) · Medium: Procedures are written.',
      'Criterion #2 (Procedures) · High: Procedures are validated by the authority.',
    ]);
    expect(units.every((u) => u.kind === 'cell')).toBe(true);
  });

  it('finds a table inside a prose passage and keeps the prose around it as sentences', () => {
    const text = `The criteria are as follows.\n\n${table}\n\nThe authority may ask for more.`;
    const units = quotableUnits(segmentUnits({ text }));
    expect(units[0]!.text).toBe('The criteria are as follows.');
    expect(units.filter((u) => u.kind === 'cell')).toHaveLength(4);
    expect(units.at(-1)!.text).toBe('The authority may ask for more.');
  });

  it('quotes a typed grid row by row under its headers', () => {
    const grid = {
      head: [[{ text: 'Dimension' }, { text: '1 m' }, { text: '3 m' }]],
      rows: [{ header: 'Controlled ground area', cells: [{ text: '1' }, { text: '1' }] }],
    };
    const units = segmentUnits({ text: 'Table 2 — iGRC\nControlled ground area   1   1', kind: 'table', title: 'Table 2 — iGRC' }, grid);
    expect(units.filter((u) => u.kind === 'cell').map(unitQuote)).toEqual(['Controlled ground area · 1 m: 1', 'Controlled ground area · 3 m: 1']);
  });
});
