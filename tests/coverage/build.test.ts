/** Building the coverage data from chunks (corpus-build/coverage/build.ts) on hand-made chunks. */
import { describe, expect, it } from 'vitest';
import { buildCoverage, guidanceKeys, whereOf } from '../../corpus-build/coverage/build.js';
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

describe('notices for subjects the documents do not cover', () => {
  const chunks = [
    {
      ...chunk('s13', 'Privacy, liability and insurance are excluded from the scope of this methodology.', [
        'AMC1 Article 11 Rules',
        'Section 1',
        'S.1.3 Applicability',
      ]),
      pageStart: 8,
    },
    {
      ...chunk('zones', 'Zones are defined according to Article 15 of Implementing Regulation (EU) 2019/947.', [
        'AMC1 Article 11 Rules',
        'Annex I to AMC1 Article 11',
        'I.7. Aerodrome environment',
      ]),
      pageStart: 157,
    },
    { ...chunk('curated', 'Insurance is a matter for national law.'), docId: 'restatement' },
  ];
  const verbatim = (docId: string) => docId === 'doc';
  const ins = spec('insurance', [], {
    notice: { kind: 'not-regulated', subject: 'insurance', says: 'they leave it to other rules', evidence: String.raw`\binsurance\b` },
  });
  const art15 = spec('art15', ['reg:2019/947:art:15'], {
    categories: ['open'],
    notice: { kind: 'cited-only', subject: 'geographical zones', says: 'they cite Article 15 of Regulation (EU) 2019/947', evidence: 'Article 15 of' },
  });
  const categories = [{ id: 'open' as const, label: 'open', cues: ['open category'] }];

  it('keeps as sources the verbatim documents’ passages that match the evidence, with where they are', () => {
    const d = buildCoverage(chunks, [ins, art15], index, { verbatim, categories });
    const byId = Object.fromEntries(d.instruments.map((i) => [i.id, i]));
    expect(byId.insurance!.notice).toEqual({
      kind: 'not-regulated',
      subject: 'insurance',
      says: 'they leave it to other rules',
      sources: [{ chunk: 's13', where: 'AMC1 Article 11, S.1.3', page: 8 }],
    });
    expect(byId.art15!.notice!.sources).toEqual([{ chunk: 'zones', where: 'AMC1 Article 11, Annex I, I.7', page: 157 }]);
    expect(byId.art15!.categories).toEqual(['open']);
    expect(d.categories).toEqual(categories);
  });

  it('fails on a notice without a source, on one that names an instrument no source cites, and on an unknown category', () => {
    const none = spec('x', [], { notice: { kind: 'not-regulated', subject: 'tax', says: 'none', evidence: String.raw`\bVAT\b` } });
    expect(() => buildCoverage(chunks, [none], index, { verbatim })).toThrow(/no source/);
    const uncited = spec('y', [], {
      notice: { kind: 'not-regulated', subject: 'insurance', says: 'see Regulation (EC) No 785/2004', evidence: String.raw`\binsurance\b` },
    });
    expect(() => buildCoverage(chunks, [uncited], index, { verbatim })).toThrow(/names Regulation \(EC\) No 785\/2004, which none of its sources cites/);
    expect(() => buildCoverage(chunks, [art15], index, { verbatim })).toThrow(/category open/);
  });

  it('whereOf names the AMC/GM, its annex, its numbered section and the form', () => {
    expect(whereOf(['AMC1 UAS.SPEC.030(2) Application for an operational authorisation — EASA Form 208'])).toBe('AMC1 UAS.SPEC.030(2), EASA Form 208');
    expect(whereOf(['AMC1 Article 11 Rules', 'Section 2 Key concepts', 'S.2.4 Robustness'])).toBe('AMC1 Article 11, S.2.4');
  });
});
