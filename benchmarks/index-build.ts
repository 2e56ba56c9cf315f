/**
 * `npm run bench:index`: time each stage of the corpus build, and print chunk
 * count and artifact sizes; also measures the voy (WASM) index built from the
 * binary vectors versus its serialized JSON (the load-time trade-off).
 * Writes to a temporary folder; static-index/ is not touched.
 */
import { mkdtempSync, rmSync } from 'node:fs';
import { tmpdir, cpus } from 'node:os';
import { join } from 'node:path';
import { buildIndex } from '../corpus-build/build/pipeline.js';
import { loadIndexFromDir } from '../corpus-build/node/index-fs.js';
import { INDEX_DTYPE, modelFile, nodeEmbedder } from '../corpus-build/node/model.js';
import { loadVoyInNode } from '../corpus-build/node/voy.js';

const out = join(mkdtempSync(join(tmpdir(), 'skycite-bench-')), 'static-index');
const t0 = performance.now();
const tModel = performance.now();
const embedder = await nodeEmbedder();
const modelMs = performance.now() - tModel;
const report = await buildIndex({ outDir: out, embedder, modelFile: modelFile(), modelDtype: INDEX_DTYPE });
const totalMs = performance.now() - t0;

console.log(`machine: ${cpus().length} × ${cpus()[0]?.model ?? 'cpu'}, node ${process.version}, model ${INDEX_DTYPE}`);
console.log(`${'load embedding model'.padEnd(28)} ${(modelMs / 1000).toFixed(2)} s`);
for (const t of report.timings) console.log(`${t.stage.padEnd(28)} ${(t.ms / 1000).toFixed(2)} s`);
console.log(`${'whole build'.padEnd(28)} ${(totalMs / 1000).toFixed(2)} s`);
for (const s of report.perSource) console.log(`chunks ${s.id}: ${s.chunks}`);
console.log(`chunks total: ${report.chunkCount}`);
let total = 0;
for (const [name, bytes] of Object.entries(report.artifacts)) {
  total += bytes;
  console.log(`artifact ${name.padEnd(22)} ${(bytes / 1e6).toFixed(2)} MB`);
}
console.log(`static-index total (model excluded): ${(total / 1e6).toFixed(2)} MB`);

// voy: build from vectors at load time vs. ship its serialization
const idx = await loadIndexFromDir(out);
const Voy = await loadVoyInNode(); // instantiated as the browser worker does (src/runtime/voy.ts)
const dim = idx.manifest.dimension;
const tv = performance.now();
// the runtime only needs search(); voy's instances also serialize (measured here, never shipped)
const voy = new Voy({
  embeddings: idx.chunks.map((c, i) => ({ id: String(i), title: '', url: '', embeddings: Array.from(idx.vectors.subarray(i * dim, (i + 1) * dim)) })),
}) as InstanceType<typeof Voy> & { serialize(): string };
const voyBuild = performance.now() - tv;
const ts = performance.now();
const ser = voy.serialize();
console.log(
  `voy build from vectors: ${voyBuild.toFixed(0)} ms; serialize ${(performance.now() - ts).toFixed(0)} ms → ${(ser.length / 1e6).toFixed(2)} MB JSON (not shipped)`,
);
rmSync(out, { recursive: true, force: true });
await embedder.dispose?.();
