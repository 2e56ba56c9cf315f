/**
 * Verify the shipped MiniLM ONNX files with transformers.js in Node, loaded only
 * from public/models (remote models disabled).
 *
 *   npx tsx tools/verify-model.ts [path/to/reference-embeddings.json]
 *
 * For each dtype ('fp32' -> onnx/model.onnx, 'q8' -> onnx/model_quantized.onnx)
 * it embeds the reference `retrieval_doc` strings (mean pooling, L2 norm), prints
 * mean/min cosine against the reference vectors and the throughput, and checks
 * pooling 'none' (token embeddings). Exits 1 if a dtype misses the bar
 * (mean >= 0.99, min >= 0.98) or a check fails. VERIFY_RUNS (default 3) sets how
 * many timed passes the throughput figure is the best of.
 */
import { existsSync, readFileSync } from 'node:fs';
import { resolve } from 'node:path';
import { AutoTokenizer, env, mean_pooling, pipeline, Tensor, type FeatureExtractionPipeline } from '@huggingface/transformers';

const MODEL_ID = 'sentence-transformers/all-MiniLM-L6-v2';
const MODELS_DIR = resolve(import.meta.dirname, '..', 'public', 'models');
const REFERENCE = resolve(process.argv[2] ?? '/work/shared/corpus/skysafe-sora-curated/reference-embeddings.json');
const DIM = 384;
const MAX_TOKENS = 256;
const BATCH = 16;
const BAR = { mean: 0.99, min: 0.98 };
const RUNS = Number(process.env.VERIFY_RUNS ?? 3);

interface ReferenceFile {
  model: string;
  pooling: string;
  normalized: boolean;
  dim: number;
  items: { chunk_index: number; retrieval_doc: string; embedding: number[] | string }[];
}

function unit(v: ArrayLike<number>): Float32Array {
  const out = Float32Array.from(v);
  let n = 0;
  for (let i = 0; i < out.length; i++) n += out[i]! * out[i]!;
  n = Math.sqrt(n) || 1;
  for (let i = 0; i < out.length; i++) out[i]! /= n;
  return out;
}

function dot(a: Float32Array, b: Float32Array): number {
  let s = 0;
  for (let i = 0; i < a.length; i++) s += a[i]! * b[i]!;
  return s;
}

function stats(xs: number[]): { mean: number; min: number } {
  return { mean: xs.reduce((a, b) => a + b, 0) / xs.length, min: Math.min(...xs) };
}

/**
 * Mean-pooled, normalised embeddings with sentence-transformers' truncation:
 * [CLS] + first 254 word pieces + [SEP]. The pipeline's own truncation just cuts
 * the id array at model_max_length, so a long text loses its [SEP] there (and
 * keeps one more word piece), which shifts the vector slightly.
 */
async function embedKeepSep(extractor: FeatureExtractionPipeline, texts: string[]): Promise<Float32Array[]> {
  const tokenizer = extractor.tokenizer;
  const ids = texts.map((t) => {
    const x = tokenizer.encode(t) as number[];
    return x.length <= MAX_TOKENS ? x : [...x.slice(0, MAX_TOKENS - 1), tokenizer.sep_token_id as number];
  });
  const len = Math.max(...ids.map((x) => x.length));
  const inputIds = new BigInt64Array(ids.length * len);
  const mask = new BigInt64Array(ids.length * len);
  ids.forEach((x, r) =>
    x.forEach((id, c) => {
      inputIds[r * len + c] = BigInt(id);
      mask[r * len + c] = 1n;
    }),
  );
  const dims = [ids.length, len];
  const attention_mask = new Tensor('int64', mask, dims);
  const out = (await extractor.model({
    input_ids: new Tensor('int64', inputIds, dims),
    attention_mask,
    token_type_ids: new Tensor('int64', new BigInt64Array(ids.length * len), dims),
  })) as { last_hidden_state: Tensor };
  const pooled = mean_pooling(out.last_hidden_state, attention_mask);
  const data = pooled.data as Float32Array;
  return texts.map((_, k) => unit(data.subarray(k * DIM, (k + 1) * DIM)));
}

async function main(): Promise<void> {
  env.allowRemoteModels = false;
  env.allowLocalModels = true;
  env.localModelPath = `${MODELS_DIR}/`;
  env.useFSCache = false;

  if (!existsSync(REFERENCE)) throw new Error(`reference file not found: ${REFERENCE}`);
  const ref = JSON.parse(readFileSync(REFERENCE, 'utf8')) as ReferenceFile;
  const docs = ref.items.map((it) => it.retrieval_doc);
  const refVecs = ref.items.map((it) => unit(typeof it.embedding === 'string' ? (JSON.parse(it.embedding) as number[]) : it.embedding));
  console.log(`reference: ${docs.length} strings, model=${ref.model}, pooling=${ref.pooling}, dim=${ref.dim}`);
  console.log(`localModelPath: ${env.localModelPath}`);

  let ok = true;

  // Truncation: transformers.js truncates to tokenizer_config.model_max_length.
  const tokenizer = await AutoTokenizer.from_pretrained(MODEL_ID);
  const lens = docs.map((d) => (tokenizer.encode(d) as number[]).length);
  const enc = tokenizer(docs, { padding: true, truncation: true });
  const truncLen = enc.input_ids.dims[1];
  console.log(
    `tokenizer: model_max_length=${tokenizer.model_max_length}; ${lens.filter((l) => l > MAX_TOKENS).length}/${docs.length} ` +
      `docs exceed ${MAX_TOKENS} word pieces (longest ${Math.max(...lens)}); batch padded/truncated to ${truncLen}`,
  );
  if (tokenizer.model_max_length !== MAX_TOKENS || truncLen !== MAX_TOKENS) {
    console.error(`FAIL: expected truncation to ${MAX_TOKENS} word pieces`);
    ok = false;
  }

  const results: Record<string, Float32Array[]> = {};
  for (const dtype of ['fp32', 'q8'] as const) {
    const t0 = performance.now();
    const extractor = (await pipeline('feature-extraction', MODEL_ID, {
      dtype,
      device: 'cpu',
    })) as FeatureExtractionPipeline;
    const loadMs = performance.now() - t0;

    await extractor(docs.slice(0, 2), { pooling: 'mean', normalize: true }); // warm-up
    // Throughput: best of RUNS passes over all strings (the machine may be shared).
    let vecs: Float32Array[] = [];
    let secs = Infinity;
    for (let run = 0; run < RUNS; run++) {
      const t1 = performance.now();
      const pass: Float32Array[] = [];
      for (let i = 0; i < docs.length; i += BATCH) {
        const batch = docs.slice(i, i + BATCH);
        const out = await extractor(batch, { pooling: 'mean', normalize: true });
        if (out.dims[1] !== DIM) throw new Error(`unexpected output dims ${JSON.stringify(out.dims)}`);
        const data = out.data as Float32Array;
        for (let k = 0; k < batch.length; k++) pass.push(Float32Array.from(data.subarray(k * DIM, (k + 1) * DIM)));
        out.dispose?.();
      }
      secs = Math.min(secs, (performance.now() - t1) / 1000);
      vecs = pass;
    }
    results[dtype] = vecs;

    const cos = vecs.map((v, i) => dot(v, refVecs[i]!));
    const s = stats(cos);
    const pass = s.mean >= BAR.mean && s.min >= BAR.min;
    if (!pass) ok = false;
    console.log(
      `[${dtype}] cosine vs reference: mean=${s.mean.toFixed(6)} min=${s.min.toFixed(6)} ${pass ? 'PASS' : 'FAIL'}; ` +
        `${(docs.length / secs).toFixed(1)} strings/s (${docs.length} strings, batch ${BATCH}, best of ${RUNS}: ${secs.toFixed(2)} s); load ${loadMs.toFixed(0)} ms`,
    );

    // Same model, sentence-transformers truncation (keeps [SEP]).
    const t2 = performance.now();
    const keep: Float32Array[] = [];
    for (let i = 0; i < docs.length; i += BATCH) keep.push(...(await embedKeepSep(extractor, docs.slice(i, i + BATCH))));
    const secs2 = (performance.now() - t2) / 1000;
    const s2 = stats(keep.map((v, i) => dot(v, refVecs[i]!)));
    console.log(
      `[${dtype}] cosine vs reference with [SEP]-keeping truncation (not the pipeline): mean=${s2.mean.toFixed(6)} ` +
        `min=${s2.min.toFixed(6)}; ${(docs.length / secs2).toFixed(1)} strings/s`,
    );

    // Token embeddings (pooling 'none'), as used by the MaxSim reranker.
    const probe = 'Which SAIL applies to a BVLOS operation over a sparsely populated area?';
    const tok = await extractor(probe, { pooling: 'none', normalize: false });
    const nTok = (tokenizer.encode(probe) as number[]).length;
    const shapeOk = tok.dims.length === 3 && tok.dims[0] === 1 && tok.dims[1] === nTok && tok.dims[2] === DIM;
    if (!shapeOk) ok = false;
    console.log(`[${dtype}] pooling 'none': dims=${JSON.stringify(tok.dims)} (expected [1, ${nTok}, ${DIM}] incl. [CLS]/[SEP]) ${shapeOk ? 'OK' : 'FAIL'}`);
    tok.dispose?.();
    await extractor.dispose();
  }

  const fp32 = results.fp32!;
  const q8 = results.q8!;
  const cross = stats(fp32.map((v, i) => dot(v, q8[i]!)));
  console.log(`[fp32 vs q8] cosine: mean=${cross.mean.toFixed(6)} min=${cross.min.toFixed(6)}`);

  console.log(ok ? 'ALL CHECKS PASSED' : 'SOME CHECKS FAILED');
  if (!ok) process.exitCode = 1;
}

main().catch((e: unknown) => {
  console.error(e);
  process.exitCode = 1;
});
