import { createHash } from 'node:crypto';
import { existsSync, mkdirSync, mkdtempSync, readFileSync, readdirSync, writeFileSync, cpSync } from 'node:fs';
import { tmpdir } from 'node:os';
import path from 'node:path';
import { describe, expect, it } from 'vitest';
import { buildIndex } from '../../corpus-build/build/pipeline.js';
import { ChecksumMismatchError, SourceMissingError } from '../../corpus-build/errors.js';
import { loadIndexFromDir } from '../../corpus-build/node/index-fs.js';
import { resolveSource } from '../../corpus-build/sources/resolve.js';
import { IndexIntegrityError } from '../../src/core/index/manifest.js';
import { fakeEmbedder } from '../support/fake-embedder.js';
import { DataFileError } from '../../corpus-build/errors.js';
import { META_FILE, SYNTH_FILE, textSha } from '../../corpus-build/synth/store.js';
import { repoRoot } from '../support/paths.js';
import { qaSampleEntry, qaSampleFile, qaSampleSha } from '../support/qa-sample.js';

const fixture = qaSampleFile;
const fixtureSha = qaSampleSha;
const entry = qaSampleEntry;

function corpusWithFixture(): string {
  const dir = mkdtempSync(path.join(tmpdir(), 'skycite-corpus-'));
  mkdirSync(path.join(dir, 'qa-sample'));
  cpSync(fixture, path.join(dir, 'qa-sample', 'qa-rules.sample.json'));
  return dir;
}

const build = (corpusDir: string, outDir: string, over: Partial<Parameters<typeof buildIndex>[0]> = {}) =>
  buildIndex({
    corpusDir,
    cacheDir: path.join(corpusDir, '.cache'),
    allowDownload: false,
    outDir,
    registry: [entry()],
    embedder: fakeEmbedder(),
    modelFile: fixture,
    modelDtype: 'fake',
    repoRoot,
    synthetic: false,
    ...over,
  });

describe('source resolution', () => {
  it('names the source, every place tried and the fix when a source is missing', async () => {
    const empty = mkdtempSync(path.join(tmpdir(), 'skycite-empty-'));
    const err = await resolveSource(entry({ id: 'nowhere' }), { corpusDir: empty, cacheDir: path.join(empty, 'cache'), allowDownload: false }).catch((e) => e);
    expect(err).toBeInstanceOf(SourceMissingError);
    expect(err.message).toContain('"nowhere"');
    expect(err.message).toContain(path.join(empty, 'nowhere', 'qa-rules.sample.json'));
    expect(err.message).toContain(path.join(empty, 'cache', 'nowhere', 'qa-rules.sample.json'));
    expect(err.message).toContain('official URL: none registered');
    expect(err.message).toMatch(/Fix: .*CORPUS_DIR/);
  });

  it('refuses a file whose checksum differs, quoting both hashes', async () => {
    const dir = corpusWithFixture();
    const wrong = '0'.repeat(64);
    const err = await resolveSource(entry({ file: { name: 'qa-rules.sample.json', sha256: wrong } }), { corpusDir: dir, allowDownload: false }).catch((e) => e);
    expect(err).toBeInstanceOf(ChecksumMismatchError);
    expect(err.message).toContain(wrong);
    expect(err.message).toContain(fixtureSha);
  });

  it('downloads from the official URL into the cache when the mirror lacks the file, verifying the hash', async () => {
    const empty = mkdtempSync(path.join(tmpdir(), 'skycite-dl-'));
    const bytes = readFileSync(fixture);
    const fetchImpl = (async () => new Response(bytes)) as typeof fetch;
    const e = entry({ officialUrl: 'https://publisher.invalid/qa.json', officialFormat: 'qa-rules-json' });
    const r = await resolveSource(e, { corpusDir: path.join(empty, 'mirror'), cacheDir: path.join(empty, 'cache'), fetchImpl });
    expect(r.via).toBe('download');
    expect(existsSync(path.join(empty, 'cache', 'qa-sample', 'qa-rules.sample.json'))).toBe(true);
    const again = await resolveSource(e, { corpusDir: path.join(empty, 'mirror'), cacheDir: path.join(empty, 'cache'), allowDownload: false });
    expect(again.via).toBe('cache');
    const tampered = (async () => new Response('not the document')) as typeof fetch;
    const err = await resolveSource(e, { corpusDir: path.join(empty, 'm2'), cacheDir: path.join(empty, 'c2'), fetchImpl: tampered }).catch((x) => x);
    expect(err).toBeInstanceOf(ChecksumMismatchError);
  });
});

describe('static index build', () => {
  it('writes chunks, vectors, BM25 and a manifest that verifies on load', async () => {
    const dir = corpusWithFixture();
    const out = path.join(dir, 'static-index');
    const report = await build(dir, out);
    expect(report.chunkCount).toBeGreaterThanOrEqual(4);
    const idx = await loadIndexFromDir(out);
    expect(idx.chunks).toHaveLength(report.chunkCount);
    expect(idx.vectors.length).toBe(report.chunkCount * 32);
    // every quotable unit has its vector, in chunk order
    expect(idx.units.count).toBeGreaterThan(0);
    expect(idx.units.vectors.length).toBe(idx.units.count * 32);
    expect(idx.manifest.sources[0]).toMatchObject({ id: 'qa-sample', sha256: fixtureSha, via: 'mirror' });
    expect(Object.keys(idx.manifest.artifacts).sort()).toEqual([
      'bm25.json',
      'chunks.json',
      'document-vectors.f32',
      'documents.json',
      'question-vectors.i8',
      'questions.json',
      'summary-vectors.f32',
      'unit-vectors.i8',
      'units.json',
      'vectors.f32',
      'window-vectors.i8',
      'windows.json',
    ]);
    expect(idx.windows.count).toBeGreaterThanOrEqual(report.chunkCount);
    expect(idx.bm25.search('logbook').length).toBeGreaterThan(0);
    for (const c of idx.chunks) expect(c.retrieval.startsWith(`${c.title} ${c.title}. `)).toBe(true);
    // one source without entry structure: one document, every chunk in it, one summary vector per node
    expect(idx.documents.units.map((d) => d.id)).toEqual(['qa-sample']);
    for (const c of idx.chunks) expect(c.documentId).toBe('qa-sample');
    expect(idx.documents.vectors.length).toBe((1 + idx.documents.units[0]!.sections.length) * 32);
  });

  it('refuses a corrupted artifact with the message to rebuild', async () => {
    const dir = corpusWithFixture();
    const out = path.join(dir, 'static-index');
    await build(dir, out);
    const vec = path.join(out, 'vectors.f32');
    const bytes = readFileSync(vec);
    bytes[5] = (bytes[5] ?? 0) ^ 0xff;
    writeFileSync(vec, bytes);
    await expect(loadIndexFromDir(out)).rejects.toThrow(IndexIntegrityError);
    await expect(loadIndexFromDir(out)).rejects.toThrow(/vectors\.f32 does not match its manifest.*npm run index/);
  });

  it('refuses a truncated artifact, a missing artifact and a malformed manifest', async () => {
    const dir = corpusWithFixture();
    const out = path.join(dir, 'static-index');
    await build(dir, out);
    const chunksPath = path.join(out, 'chunks.json');
    const original = readFileSync(chunksPath);
    writeFileSync(chunksPath, original.subarray(0, 100));
    await expect(loadIndexFromDir(out)).rejects.toThrow(/chunks\.json has 100 bytes.*truncated/);
    writeFileSync(chunksPath, original);
    const bm = readFileSync(path.join(out, 'bm25.json'));
    writeFileSync(path.join(out, 'manifest.json'), '{ "formatVersion": 1, ');
    await expect(loadIndexFromDir(out)).rejects.toThrow(/manifest is not valid JSON.*npm run index/);
    expect(bm.length).toBeGreaterThan(0);
  });

  it('never leaves a partial static-index when the build fails midway', async () => {
    const dir = corpusWithFixture();
    const out = path.join(dir, 'static-index');
    mkdirSync(out);
    writeFileSync(path.join(out, 'manifest.json'), '{"previous":"index"}');
    await expect(build(dir, out, { embedder: fakeEmbedder(32, 0) })).rejects.toThrow(/injected/);
    expect(readFileSync(path.join(out, 'manifest.json'), 'utf8')).toBe('{"previous":"index"}');
    expect(readdirSync(out)).toEqual(['manifest.json']);
    expect(readdirSync(dir).filter((n) => n.includes('.tmp-'))).toEqual([]);
  });

  it('names the malformed item and field when structured input is bad, and writes nothing', async () => {
    const dir = mkdtempSync(path.join(tmpdir(), 'skycite-bad-'));
    mkdirSync(path.join(dir, 'qa-sample'));
    const bad = JSON.stringify({
      questions: [{ question_id: 'q1', question_text: 'x?', category: 'c', tags: [], answers_by_country: { FR: { answer_html: 42 } } }],
    });
    writeFileSync(path.join(dir, 'qa-sample', 'qa-rules.sample.json'), bad);
    const sha = createHash('sha256').update(bad).digest('hex');
    const out = path.join(dir, 'static-index');
    await expect(build(dir, out, { registry: [entry({ file: { name: 'qa-rules.sample.json', sha256: sha } })] })).rejects.toThrow(
      /q1.*answers_by_country\.FR\.answer_html/,
    );
    expect(existsSync(out)).toBe(false);
  });
});

describe('synthetic questions in the index', () => {
  /** A data folder with one invented question per chunk of the fixture, and its meta file. */
  function dataFor(chunks: { id: string; text: string }[]): string {
    const dir = mkdtempSync(path.join(tmpdir(), 'skycite-synth-'));
    const lines = chunks.map((c, i) =>
      JSON.stringify({ chunk: c.id, textSha: textSha(c.text), prompt: 'test', questions: [{ style: 'public', q: `zebra crossing question number ${i}` }] }),
    );
    const body = `${lines.join('\n')}\n`;
    writeFileSync(path.join(dir, SYNTH_FILE), body);
    const sha = createHash('sha256').update(body).digest('hex');
    writeFileSync(
      path.join(dir, META_FILE),
      JSON.stringify({ formatVersion: 1, files: { [SYNTH_FILE]: { sha256: sha, records: lines.length, questions: lines.length } } }),
    );
    return dir;
  }

  it("indexes each passage's questions as BM25 text and as vectors", async () => {
    const corpus = corpusWithFixture();
    const plain = path.join(corpus, 'plain');
    await build(corpus, plain);
    const chunks = (await loadIndexFromDir(plain)).chunks;
    const out = path.join(corpus, 'with-questions');
    await build(corpus, out, { synthetic: true, syntheticDir: dataFor(chunks) });
    const idx = await loadIndexFromDir(out);
    expect(idx.questions.count).toBe(chunks.length);
    expect(Array.from(idx.questions.row)).toEqual(chunks.map((_, i) => i));
    expect(idx.bm25.search('zebra').map((h) => h.id)).toHaveLength(chunks.length);
    expect(idx.manifest.parameters.indexedQuestions).toMatchObject({ source: 'synthetic', questions: chunks.length, stale: 0, missing: 0 });
  });

  it('fails naming the file, its expected SHA-256 and the command that regenerates it when the data file is corrupt or missing', async () => {
    const corpus = corpusWithFixture();
    const plain = path.join(corpus, 'plain');
    await build(corpus, plain);
    const dir = dataFor((await loadIndexFromDir(plain)).chunks);
    const expected = JSON.parse(readFileSync(path.join(dir, META_FILE), 'utf8')).files[SYNTH_FILE].sha256 as string;
    writeFileSync(path.join(dir, SYNTH_FILE), 'tampered\n');
    const corrupt = build(corpus, path.join(corpus, 'x'), { synthetic: true, syntheticDir: dir });
    await expect(corrupt).rejects.toThrow(DataFileError);
    await expect(corrupt).rejects.toThrow(new RegExp(`synthetic-questions.jsonl: expected SHA-256 ${expected}.*npm run synth:questions`));
    const empty = mkdtempSync(path.join(tmpdir(), 'skycite-nosynth-'));
    await expect(build(corpus, path.join(corpus, 'y'), { synthetic: true, syntheticDir: empty })).rejects.toThrow(/Missing data file .*synthetic-questions/);
    expect(existsSync(path.join(corpus, 'x'))).toBe(false);
  });
});
