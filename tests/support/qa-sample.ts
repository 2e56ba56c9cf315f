/** The invented Q&A fixture as a registered source, for tests that build a small index from it. */
import { createHash } from 'node:crypto';
import { readFileSync } from 'node:fs';
import path from 'node:path';
import type { SourceEntry } from '../../corpus-build/sources/registry.js';
import { repoRoot } from './paths.js';

export const qaSampleFile = path.join(repoRoot, 'tests/fixtures/qa-rules.sample.json');
export const qaSampleSha = createHash('sha256').update(readFileSync(qaSampleFile)).digest('hex');

export const qaSampleEntry = (over: Partial<SourceEntry> = {}): SourceEntry => ({
  id: 'qa-sample',
  title: 'Invented Q&A sample',
  publisher: 'tests',
  instrument: 'none',
  edition: 'test edition',
  date: '2025-01-01',
  jurisdiction: 'EU',
  language: 'en',
  officialUrl: null,
  officialFormat: null,
  officialSha256: null,
  file: { name: 'qa-rules.sample.json', sha256: qaSampleSha },
  format: 'qa-rules-json',
  verbatim: false,
  reuseNotice: 'invented',
  editionNote: 'invented',
  ...over,
});
