import { describe, expect, it } from 'vitest';
import { abbreviationLexicon, abbreviationsFromChunks, longFormBefore, plausibleLongForm } from '../../src/core/retrieval/abbreviations.js';

describe('abbreviations read from the documents', () => {
  it('finds the long form before "(SHORT)" (Schwartz–Hearst)', () => {
    expect(longFormBefore('The operator keeps an emergency response plan', 'ERP')).toBe('emergency response plan');
    expect(longFormBefore('for operations beyond visual line of sight', 'BVLOS')).toBe('beyond visual line of sight');
    expect(longFormBefore('the intrinsic ground risk class', 'iGRC')).toBe('intrinsic ground risk class');
    expect(longFormBefore('nothing matching here', 'XYZ')).toBeNull();
  });

  it('rejects long forms carried over from punctuation or whose initials do not fit', () => {
    expect(plausibleLongForm('EU', 'established by regulation')).toBe(false);
    expect(plausibleLongForm('CRM', 'consideration. resource management')).toBe(false);
    expect(plausibleLongForm('S&A', 'see and avoid')).toBe(true);
    expect(plausibleLongForm('MTOM', 'maximum take-off mass')).toBe(true);
  });

  it('reads glossary titles, running text and a list of abbreviations', () => {
    const found = abbreviationsFromChunks([
      { title: 'I.13. Airspace observer (AO)', text: 'A person who assists the remote pilot.' },
      { title: 'Operations', text: 'The flight termination system (FTS) is independent.' },
      { title: 'List of abbreviations', text: ' TMZ                  transponder mandatory zone\n not an entry line' },
    ]);
    expect(found).toEqual([
      { short: 'AO', long: 'airspace observer' },
      { short: 'FTS', long: 'flight termination system' },
      { short: 'TMZ', long: 'transponder mandatory zone' },
    ]);
  });

  it('expands a short form to its long form and back, never inside a word', () => {
    const lex = abbreviationLexicon([
      { short: 'ERP', long: 'emergency response plan' },
      { short: 'AO', long: 'airspace observer' },
    ]);
    expect(lex.expand('Does our ERP need a drill?')).toEqual(['emergency response plan']);
    expect(lex.expand('who writes the emergency response plan')).toEqual(['ERP']);
    expect(lex.expand('AOs and the ERP')).toEqual(['emergency response plan']);
    expect(lex.expand('a TAO procedure')).toEqual([]);
  });
});
