/** Building the coverage data from chunks (corpus-build/coverage/build.ts) on hand-made chunks. */
import { describe, expect, it } from 'vitest';
import { buildCoverage, guidanceKeys } from '../../corpus-build/coverage/build.js';
import type { InstrumentSpec } from '../../corpus-build/coverage/instruments.js';

const chunk = (id: string, text: string, sectionPath: string[] = ['Some section']) => ({ id, docId: 'doc', text, sectionPath });
const spec = (id: string, keys: string[], extra: Partial<InstrumentSpec> = {}): InstrumentSpec => ({
  id,
  label: id,
  location: `loc ${id}`,
  description: `about ${id}`,
  keys,
  cues: [],
  ...extra,
});
const index = { manifestSha256: 'm'.repeat(64), chunksSha256: 'c'.repeat(64), builtAt: 'now' };

describe('buildCoverage', () => {
  const chunks = [
    chunk('a', 'Register in accordance with Article 14 of Implementing Regulation (EU) 2019/947. See UAS.SPEC.050(1)(d).'),
    chunk('b', 'Article 14 again, and UAS.SPEC.030(2).', ['AMC1 UAS.SPEC.030(2) Application']),
    chunk('c', 'Directive 2014/53/EU on radio equipment.'),
  ];
  const specs = [spec('art14', ['reg:2019/947:art:14']), spec('spec030', ['uas:SPEC.030']), spec('spec050', ['uas:SPEC.050'])];
  const data = buildCoverage(chunks, specs, index);
  const byId = Object.fromEntries(data.instruments.map((i) => [i.id, i]));

  it('counts each instrument’s mentions and lists the chunks that hold them, in corpus order', () => {
    expect(byId.art14!.mentions.count).toBe(2);
    expect(byId.art14!.mentions.chunks).toEqual(['a', 'b']);
    expect(byId.spec050!.mentions.byKey[0]).toMatchObject({ key: 'uas:SPEC.050', asWritten: 'UAS.SPEC.050(1)(d)', count: 1 });
  });

  it('marks an instrument whose AMC/GM heading is in the corpus as guidance-present, the others absent', () => {
    expect(byId.spec030!.status).toBe('guidance-present');
    expect(byId.spec030!.statusReason).toContain('AMC1 UAS.SPEC.030(2)');
    expect(byId.spec050!.status).toBe('absent');
    expect(byId.art14!.status).toBe('absent');
  });

  it('reports references no instrument claims', () => {
    expect(data.unclaimed.map((u) => u.key)).toEqual(['dir:2014/53']);
  });

  it('keeps a status override with its reason, and binds the data to the index', () => {
    const d = buildCoverage(
      chunks,
      [spec('art14', ['reg:2019/947:art:14'], { statusOverride: { status: 'quoted', reason: 'quoted in the glossary' } })],
      index,
    );
    expect(d.instruments[0]).toMatchObject({ status: 'quoted', statusReason: 'quoted in the glossary' });
    expect(d.index).toMatchObject({ manifestSha256: index.manifestSha256, chunksSha256: index.chunksSha256, chunkCount: 3 });
  });

  it('rejects a duplicate instrument id and an invalid cue pattern', () => {
    expect(() => buildCoverage(chunks, [spec('x', ['a']), spec('x', ['b'])], index)).toThrow(/twice/);
    expect(() => buildCoverage(chunks, [spec('x', ['a'], { cues: [{ re: '(', kind: 'topic' }] })], index)).toThrow();
  });
});

describe('guidanceKeys', () => {
  it('reads AMC/GM headings, including "AMC1bis" and "AMC1 to Article"', () => {
    const g = guidanceKeys([
      { sectionPath: ['AMC1bis Article 11 Rules'] },
      { sectionPath: ['GM1 UAS.SPEC.030(3)(e) Procedures'] },
      { sectionPath: ['Article 14 mentioned in a heading'] },
    ]);
    expect([...g.keys()].sort()).toEqual(['reg:2019/947:art:11', 'uas:SPEC.030']);
  });
});
