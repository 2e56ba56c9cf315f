/**
 * A static index built from the invented Q&A fixture with the bag-of-words embedder,
 * served through a fetch stand-in, for tests that run the in-process runtime.
 */
import { cpSync, existsSync, mkdirSync, mkdtempSync, readFileSync } from 'node:fs';
import { tmpdir } from 'node:os';
import path from 'node:path';
import { buildIndex } from '../../corpus-build/build/pipeline.js';
import { fakeEmbedder } from './fake-embedder.js';
import { repoRoot } from './paths.js';
import { qaSampleEntry, qaSampleFile } from './qa-sample.js';

export async function servedIndex(): Promise<typeof fetch> {
  const dir = mkdtempSync(path.join(tmpdir(), 'skycite-rt-'));
  mkdirSync(path.join(dir, 'qa-sample'));
  cpSync(qaSampleFile, path.join(dir, 'qa-sample', 'qa-rules.sample.json'));
  const out = path.join(dir, 'static-index');
  await buildIndex({
    corpusDir: dir,
    cacheDir: path.join(dir, '.cache'),
    allowDownload: false,
    outDir: out,
    registry: [qaSampleEntry()],
    embedder: fakeEmbedder(),
    modelFile: qaSampleFile,
    modelDtype: 'fake',
    repoRoot,
    synthetic: false,
  });
  return (async (url: string | URL) => {
    const file = path.join(out, new URL(String(url)).pathname.replace(/^\/static-index\//, ''));
    return existsSync(file) ? new Response(readFileSync(file)) : new Response('missing', { status: 404 });
  }) as typeof fetch;
}
