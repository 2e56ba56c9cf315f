/**
 * MiniLM through @huggingface/transformers, loaded only from local files (the
 * app's own origin in the browser, public/models in Node). Remote model hubs
 * are disabled.
 */
import { env, pipeline, type FeatureExtractionPipeline } from '@huggingface/transformers';
import type { Embedder, EmbeddingModelConfig } from './embedder.js';
import { MINILM_DIM } from './embedder.js';

export class ModelLoadError extends Error {
  override name = 'ModelLoadError';
}

function normalise(v: Float32Array): Float32Array {
  let n = 0;
  for (let i = 0; i < v.length; i++) n += v[i]! * v[i]!;
  n = Math.sqrt(n) || 1;
  for (let i = 0; i < v.length; i++) v[i]! /= n;
  return v;
}

export async function createTransformersEmbedder(config: EmbeddingModelConfig): Promise<Embedder> {
  env.allowRemoteModels = false;
  env.allowLocalModels = true;
  env.localModelPath = config.localModelPath;
  const onnx = env.backends.onnx as { wasm?: { wasmPaths?: unknown; proxy?: boolean } } | undefined;
  if (config.ortWasmPaths && onnx?.wasm) {
    onnx.wasm.wasmPaths = { ...config.ortWasmPaths };
    // load the wasm straight from the app's origin (the service worker caches it), no blob: URLs
    (env as { useWasmCache?: boolean }).useWasmCache = false;
  }
  let extractor: FeatureExtractionPipeline;
  try {
    extractor = (await pipeline('feature-extraction', config.modelId, {
      dtype: config.dtype,
      device: config.device,
    })) as FeatureExtractionPipeline;
  } catch (e) {
    throw new ModelLoadError(
      `Could not load the embedding model "${config.modelId}" (${config.dtype}) from ${config.localModelPath}: ` +
        `${(e as Error).message}. The model ships in public/models/${config.modelId}/; restore it with ` +
        '`git checkout -- public/models` (or run tools/export-minilm.sh), or point the model base path at a folder that holds it.',
    );
  }
  const dim = MINILM_DIM;
  return {
    modelId: config.modelId,
    dimension: dim,
    async embed(texts: string[]): Promise<Float32Array[]> {
      const out: Float32Array[] = [];
      for (let i = 0; i < texts.length; i += config.batchSize) {
        const batch = texts.slice(i, i + config.batchSize);
        const t = await extractor(batch, { pooling: 'mean', normalize: true });
        const data = t.data as Float32Array;
        for (let k = 0; k < batch.length; k++) out.push(Float32Array.from(data.subarray(k * dim, (k + 1) * dim)));
        t.dispose?.();
      }
      return out;
    },
    async embedTokens(text: string): Promise<Float32Array[]> {
      const t = await extractor(text, { pooling: 'none', normalize: false });
      const data = t.data as Float32Array;
      const n = t.dims[1] ?? 0;
      const out: Float32Array[] = [];
      // skip [CLS] (first) and [SEP] (last)
      for (let k = 1; k < n - 1; k++) out.push(normalise(Float32Array.from(data.subarray(k * dim, (k + 1) * dim))));
      t.dispose?.();
      return out;
    },
    async dispose() {
      await extractor.dispose();
    },
  };
}
