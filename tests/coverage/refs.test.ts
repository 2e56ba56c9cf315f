/** The reference scanner reads the corpus's own notation into stable keys (src/core/coverage/refs.ts). */
import { describe, expect, it } from 'vitest';
import { HOME_REGULATION, resolveKey, scanReferences } from '../../src/core/coverage/refs.js';

const keys = (text: string) => scanReferences(text).map((r) => r.key);

describe('scanReferences', () => {
  it('reads an Article with its Regulation, and a bare Article as one of the AMC’s own Regulation', () => {
    expect(keys('in accordance with Article 14 of Implementing Regulation (EU) 2019/947.')).toEqual(['reg:2019/947:art:14']);
    expect(keys('see AMC1 Article 11 (SORA)')).toEqual([`reg:${HOME_REGULATION}:art:11`]);
    expect(keys('Article 40(1)(d) of Regulation (EU) 2019/945')).toEqual(['reg:2019/945:art:40']);
  });

  it('resolves "that Regulation" to the Regulation named last before it', () => {
    expect(keys('Regulation (EU) 2016/679 applies; a DPIA under Article 35 of that Regulation')).toEqual(['reg:2016/679', 'reg:2016/679:art:35']);
  });

  it('strips a footnote number glued to a Regulation number', () => {
    expect(keys('Implementing Regulation (EU) 2019/94512 and Regulation (EU) No 748/201211')).toEqual(['reg:2019/945', 'reg:748/2012']);
  });

  it('reads Part-UAS points, standard-scenario points and Parts of the Annex to Regulation 2019/945', () => {
    expect(keys('UAS.SPEC.030(3)(e) and UAS.STS-02.020(3) and UAS.OPEN.020')).toEqual(['uas:SPEC.030', 'uas:STS-02.020', 'uas:OPEN.020']);
    expect(keys('as defined in Part 17 of the Annex to Regulation (EU) 2019/945')).toEqual(['reg:2019/945:part:17']);
  });

  it('takes "class C6" as a class mark but not the command-and-control "C2 link"', () => {
    expect(keys('a UAS marked class C6')).toEqual(['class:C6']);
    expect(scanReferences('a C1 drone')[0]!.subject).toBe(true);
    expect(keys('loss of the C2 link')).toEqual([]);
  });

  it('marks subjects named in words, not citations', () => {
    const [r] = scanReferences('published geographical zones');
    expect(r).toMatchObject({ key: 'reg:2019/947:art:15', subject: true });
    expect(scanReferences('Article 15 of Implementing Regulation (EU) 2019/947')[0]!.subject).toBeUndefined();
  });
});

describe('resolveKey', () => {
  const instruments = [
    { id: 'reg', keys: ['reg:2019/947'] },
    { id: 'art1', keys: ['reg:2019/947:art:1'] },
    { id: 'art14', keys: ['reg:2019/947:art:14'] },
    { id: 'classes', keys: ['class:'] },
  ];
  it('gives a key to the instrument with the longest matching prefix', () => {
    expect(resolveKey('reg:2019/947:art:14', instruments)?.id).toBe('art14');
    expect(resolveKey('reg:2019/947:art:7', instruments)?.id).toBe('reg');
    expect(resolveKey('class:C2', instruments)?.id).toBe('classes');
  });
  it('does not let Article 1 claim Article 14, nor a Regulation claim another number', () => {
    expect(
      resolveKey(
        'reg:2019/947:art:14',
        instruments.filter((i) => i.id !== 'art14'),
      )?.id,
    ).toBe('reg');
    expect(resolveKey('reg:2019/9470', instruments)).toBeNull();
  });
});
