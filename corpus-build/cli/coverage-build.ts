/**
 * `npm run coverage:build [-- --index <dir>] [--out <file>] [--check]`
 *
 * Reads the built static index (manifest + chunks.json, verified against the manifest's
 * SHA-256), finds the instruments and points the documents reference without containing
 * them, and writes src/core/coverage/coverage.json bound to the manifest's SHA-256.
 * Fails when a reference in the corpus is claimed by no instrument of
 * corpus-build/coverage/instruments.ts (add an entry with a description), so the data
 * stays complete when the corpus changes. `--check` compares instead of writing.
 */
import { existsSync, readFileSync, writeFileSync } from 'node:fs';
import { createHash } from 'node:crypto';
import { join, resolve } from 'node:path';
import { parseArgs } from 'node:util';
import type { Chunk } from '../../src/core/model/chunk.js';
import { parseManifest } from '../../src/core/index/manifest.js';
import { buildCoverage } from '../coverage/build.js';
import { CATEGORIES, INSTRUMENTS } from '../coverage/instruments.js';

const { values } = parseArgs({
  options: {
    index: { type: 'string', default: process.env.SKYCITE_INDEX_DIR ?? 'static-index' },
    out: { type: 'string', default: 'src/core/coverage/coverage.json' },
    check: { type: 'boolean', default: false },
    'allow-unclaimed': { type: 'boolean', default: false },
  },
});
const dir = resolve(values.index!);
const sha = (b: Uint8Array | string): string => createHash('sha256').update(b).digest('hex');
const manifestPath = join(dir, 'manifest.json');
if (!existsSync(manifestPath)) {
  console.error(`coverage:build: no static index at ${dir} (manifest.json missing). Build it with \`npm run index\`.`);
  process.exit(2);
}
const manifestBytes = readFileSync(manifestPath);
const manifest = parseManifest(manifestBytes.toString('utf8'));
const chunksBytes = readFileSync(join(dir, 'chunks.json'));
const expected = manifest.artifacts['chunks.json']?.sha256;
if (sha(chunksBytes) !== expected) {
  console.error(
    `coverage:build: ${join(dir, 'chunks.json')} has SHA-256 ${sha(chunksBytes)}, the manifest expects ${expected}. Rebuild the index with \`npm run index\`.`,
  );
  process.exit(2);
}
const chunks = JSON.parse(chunksBytes.toString('utf8')) as Chunk[];
const verbatim = new Map(manifest.sources.map((s) => [s.id, s.verbatim] as const));
const data = buildCoverage(
  chunks,
  INSTRUMENTS,
  { manifestSha256: sha(manifestBytes), chunksSha256: expected, builtAt: manifest.builtAt ?? '' },
  { categories: CATEGORIES, verbatim: (docId) => verbatim.get(docId) === true },
);

const absent = data.instruments.filter((i) => i.status === 'absent');
for (const i of data.instruments) {
  console.log(
    `${i.status.padEnd(16)} ${String(i.mentions.count).padStart(4)} mentions ${String(i.mentions.chunks.length).padStart(3)} chunks  ${i.id}${i.categories ? ` [${i.categories.join(', ')}]` : ''}${i.notice ? `  notice (${i.notice.kind}): ${i.notice.sources.length} source passage(s)` : ''}`,
  );
}
console.log(`${data.instruments.length} instruments, ${absent.length} absent from the corpus; ${data.unclaimed.length} unclaimed reference keys`);
if (data.unclaimed.length) {
  for (const u of data.unclaimed) console.error(`  unclaimed: ${u.key} (${u.count}×, e.g. "${u.asWritten}")`);
  if (!values['allow-unclaimed']) {
    console.error('coverage:build: add an entry for each unclaimed reference to corpus-build/coverage/instruments.ts (or pass --allow-unclaimed).');
    process.exit(1);
  }
}
const json = `${JSON.stringify(data, null, 1)}\n`;
const out = resolve(values.out!);
if (values.check) {
  const same = existsSync(out) && readFileSync(out, 'utf8') === json;
  console.log(same ? `${values.out} is current.` : `${values.out} is out of date: run npm run coverage:build.`);
  process.exit(same ? 0 : 1);
}
writeFileSync(out, json);
console.log(`wrote ${values.out} (${json.length} bytes; index manifest sha256 ${data.index.manifestSha256.slice(0, 12)}…)`);
