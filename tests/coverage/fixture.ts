/** A small hand-made coverage data set for the coverage tests. */
import type { CoverageData, CoverageInstrument } from '../../src/core/coverage/types.js';

const ins = (
  id: string,
  status: CoverageInstrument['status'],
  keys: string[],
  cues: CoverageInstrument['cues'] = [],
  chunks: string[] = [],
): CoverageInstrument => ({
  id,
  label: `label ${id}`,
  location: `location ${id}`,
  description: `description ${id}`,
  status,
  keys,
  cues,
  mentions: { count: chunks.length, byKey: [], chunks },
});

export function fixture(): CoverageData {
  return {
    formatVersion: 2,
    generator: 'test',
    index: { manifestSha256: 'a'.repeat(64), chunksSha256: 'b'.repeat(64), chunkCount: 3, builtAt: '' },
    sources: ['doc'],
    categories: [
      { id: 'open', label: 'open', cues: [String.raw`\bopen\s+category\b`] },
      { id: 'specific', label: 'specific', cues: [String.raw`\bspecific\s+category\b`, String.raw`\bSORA\b`] },
    ],
    instruments: [
      ins('r947', 'guidance-present', ['reg:2019/947']),
      ins('art11', 'guidance-present', ['reg:2019/947:art:11'], [{ re: String.raw`\bSORA\b`, kind: 'named' }]),
      ins('art14', 'absent', ['reg:2019/947:art:14'], [{ re: String.raw`\bregist(?:er|ration)\b`, kind: 'topic' }], ['chunk-mentions-14']),
      ins(
        'open',
        'absent',
        ['concept:open-category'],
        [
          { re: String.raw`\bhobby\b`, kind: 'topic' },
          { re: String.raw`\b250\s?g\b`, kind: 'topic' },
        ],
      ),
      ins('gdpr', 'absent', ['reg:2016/679'], [{ re: String.raw`\bGDPR\b`, kind: 'named' }]),
      {
        ...ins('competence', 'absent', ['concept:remote-pilot-competence'], [{ re: String.raw`\bremote\s+pilots?\b.{0,60}\btraining\b`, kind: 'topic' }]),
        categories: ['open'],
      },
    ],
    unclaimed: [],
  };
}
