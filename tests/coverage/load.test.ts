/** Reading and binding the coverage data (src/core/coverage/load.ts). */
import { describe, expect, it } from 'vitest';
import { absentInstruments, coverageBinding, CoverageDataError, parseCoverage } from '../../src/core/coverage/load.js';
import { fixture } from './fixture.js';

describe('parseCoverage', () => {
  it('accepts valid data, from an object or a JSON string', () => {
    expect(parseCoverage(fixture()).instruments).toHaveLength(6);
    expect(parseCoverage(JSON.stringify(fixture())).instruments).toHaveLength(6);
  });
  it('rejects another format version, naming the command that rebuilds it', () => {
    expect(() => parseCoverage({ ...fixture(), formatVersion: 99 })).toThrow(/format version 99.*coverage:build/);
  });
  it('rejects data without its index binding, an instrument without a description, an invalid cue, a duplicate id, broken JSON', () => {
    const d = fixture();
    expect(() => parseCoverage({ ...d, index: undefined })).toThrow(CoverageDataError);
    expect(() => parseCoverage({ ...d, instruments: [{ ...d.instruments[0]!, description: '' }] })).toThrow(/description/);
    expect(() => parseCoverage({ ...d, instruments: [{ ...d.instruments[0]!, cues: [{ re: '(', kind: 'topic' }] }] })).toThrow(/invalid cue/);
    expect(() => parseCoverage({ ...d, instruments: [d.instruments[0]!, d.instruments[0]!] })).toThrow(/twice/);
    expect(() => parseCoverage('{not json')).toThrow(/not valid JSON/);
    expect(() => parseCoverage({ ...d, categories: undefined })).toThrow(/category list/);
    expect(() => parseCoverage({ ...d, instruments: [{ ...d.instruments[0]!, categories: ['hobby'] }] })).toThrow(/unknown categories/);
    expect(() =>
      parseCoverage({ ...d, instruments: [{ ...d.instruments[0]!, notice: { kind: 'not-regulated', subject: 'x', says: 'y', sources: [] } }] }),
    ).toThrow(/notice without/);
  });
});

describe('coverageBinding', () => {
  const d = fixture();
  it('is current for the same manifest, same-chunks when only the manifest changed, stale otherwise', () => {
    expect(coverageBinding(d, { manifestSha256: 'a'.repeat(64) })).toBe('current');
    expect(coverageBinding(d, { manifestSha256: 'x'.repeat(64), chunksSha256: 'b'.repeat(64) })).toBe('same-chunks');
    expect(coverageBinding(d, { manifestSha256: 'x'.repeat(64), chunksSha256: 'y'.repeat(64) })).toBe('stale');
  });
  it('absentInstruments keeps only instruments the corpus does not hold', () => {
    expect(absentInstruments(d).map((i) => i.id)).toEqual(['art14', 'open', 'gdpr', 'competence']);
  });
});
