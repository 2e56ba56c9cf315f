/**
 * Build a vector set (src/core/index/vector-set.ts) for an existing static index: the
 * same texts the index build embeds — retrieval strings, summaries, passage windows,
 * synthetic questions, summary-index nodes — embedded with another model, written to
 * `<index>/vectors/<model slug>/` with its manifest, and listed in vector-sets.json.
 */
import { createHash } from 'node:crypto';
import { existsSync, readFileSync } from 'node:fs';
import { mkdir, readFile, rename, rm, writeFile } from 'node:fs/promises';
import { join } from 'node:path';
import type { Embedder } from '../../src/core/embedding/embedder.js';
import { embedderSpec } from '../../src/core/embedding/models.js';
import { documentNodeText, sectionNodeText } from '../../src/core/ingest/documents.js';
import type { LoadedIndex } from '../../src/core/index/load.js';
import { ARTIFACTS } from '../../src/core/index/manifest.js';
import {
  BOUND_ARTIFACTS,
  parseVectorSets,
  VECTOR_SET_FORMAT_VERSION,
  VECTOR_SET_MANIFEST,
  VECTOR_SETS_FILE,
  vectorSetDir,
  type VectorSetEntry,
  type VectorSetManifest,
} from '../../src/core/index/vector-set.js';
import { windowText } from '../../src/core/retrieval/rerank-input.js';
import { CorpusBuildError } from '../errors.js';
import { questionsByChunk } from '../synth/store.js';
import { embedAll, packVectors, quantizeInt8 } from './pipeline.js';
import { type Progress, silentProgress } from './progress.js';

export interface VectorSetBuildOptions {
  index: LoadedIndex;
  indexDir: string;
  embedder: Embedder;
  modelFile: string;
  modelDtype: string;
  progress?: Progress;
  /** Where the synthetic questions are read (only when the index holds some). */
  syntheticDir?: string;
}

const sha256 = (b: Uint8Array) => createHash('sha256').update(b).digest('hex');

/** The texts of each vector artifact, in the index's row order. */
export function vectorSetTexts(index: LoadedIndex, syntheticDir?: string): Record<string, string[]> {
  let questions: string[] = [];
  if (index.questions.count) {
    const synth = questionsByChunk(index.chunks, syntheticDir);
    questions = index.chunks.flatMap((c) => (synth.byChunk.get(c.id) ?? []).map((q) => q.q));
    if (questions.length !== index.questions.count) {
      throw new CorpusBuildError(
        `The index holds ${index.questions.count} synthetic-question vectors but corpus-build/data gives ${questions.length} questions for its chunks: rebuild the index first (npm run index -- --synthetic).`,
      );
    }
  }
  return {
    [ARTIFACTS.vectors]: index.chunks.map((c) => c.retrieval),
    [ARTIFACTS.summaryVectors]: index.chunks.map((c) => c.summary || c.title),
    [ARTIFACTS.windowVectors]: Array.from({ length: index.windows.count }, (_, w) => windowText(index, w)),
    [ARTIFACTS.questionVectors]: questions,
    [ARTIFACTS.documentVectors]: index.documents.units.flatMap((d) => [documentNodeText(d), ...d.sections.map((s) => sectionNodeText(d, s))]),
  };
}

export async function buildVectorSet(opts: VectorSetBuildOptions): Promise<{ dir: string; bytes: number; timings: { stage: string; ms: number }[] }> {
  const progress = opts.progress ?? silentProgress;
  const { index, embedder } = opts;
  const dim = embedder.dimension;
  const texts = vectorSetTexts(index, opts.syntheticDir);
  const files: Record<string, Uint8Array> = {};
  const timings: { stage: string; ms: number }[] = [];
  for (const [name, list] of Object.entries(texts)) {
    const t0 = performance.now();
    // by length, so each batch pads to similar lengths (a large model pays for every padded token)
    const order = list.map((_, i) => i).sort((a, b) => list[a]!.length - list[b]!.length);
    const sorted = await embedAll(
      embedder,
      order.map((i) => list[i]!),
      `embed ${name}`,
      progress,
    );
    const vs: Float32Array[] = new Array(list.length);
    order.forEach((i, k) => (vs[i] = sorted[k]!));
    files[name] = name.endsWith('.i8') ? quantizeInt8(vs, dim) : packVectors(vs, dim);
    timings.push({ stage: `embed ${name} (${list.length})`, ms: performance.now() - t0 });
  }
  const spec = embedderSpec(embedder.modelId);
  // the model folder: <folder>/onnx/<file>.onnx beside <folder>/tokenizer.json
  const tokenizerFile = join(opts.modelFile, '..', '..', 'tokenizer.json');
  const manifest: VectorSetManifest = {
    formatVersion: VECTOR_SET_FORMAT_VERSION,
    builtAt: new Date().toISOString(),
    model: {
      id: embedder.modelId,
      dtype: opts.modelDtype,
      sha256: sha256(new Uint8Array(await readFile(opts.modelFile))),
      ...(existsSync(tokenizerFile) ? { tokenizerSha256: sha256(new Uint8Array(await readFile(tokenizerFile))) } : {}),
      output: spec.output,
    },
    dimension: dim,
    boundTo: Object.fromEntries(BOUND_ARTIFACTS.map((n) => [n, index.manifest.artifacts[n]!.sha256])),
    artifacts: Object.fromEntries(Object.entries(files).map(([n, b]) => [n, { sha256: sha256(b), bytes: b.byteLength }])),
    parameters: { prompts: spec.prompts, maxTokens: spec.maxTokens, windowQuantization: 'int8 × 127' },
  };
  const rel = vectorSetDir(embedder.modelId);
  const dir = join(opts.indexDir, rel);
  const tmp = `${dir}.tmp-${process.pid}`;
  await rm(tmp, { recursive: true, force: true });
  await mkdir(tmp, { recursive: true });
  for (const [n, b] of Object.entries(files)) await writeFile(join(tmp, n), b);
  await writeFile(join(tmp, VECTOR_SET_MANIFEST), JSON.stringify(manifest, null, 2));
  await rm(dir, { recursive: true, force: true });
  await rename(tmp, dir);
  const bytes = Object.values(files).reduce((a, b) => a + b.byteLength, 0);
  // the list the app reads: this set replaces an older entry of the same model
  const listFile = join(opts.indexDir, VECTOR_SETS_FILE);
  const sets: VectorSetEntry[] = existsSync(listFile) ? parseVectorSets(readFileSync(listFile, 'utf8')).filter((s) => s.id !== embedder.modelId) : [];
  sets.push({ id: embedder.modelId, dir: rel, bytes });
  await writeFile(listFile, JSON.stringify({ sets }, null, 2));
  return { dir, bytes, timings };
}
