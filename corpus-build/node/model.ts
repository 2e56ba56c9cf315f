/** Where Node finds the embedding model: the app's own files under public/models. */
import { resolve } from 'node:path';
import { DEFAULT_EMBEDDER_ID, type EmbeddingModelConfig } from '../../src/core/embedding/embedder.js';
import { createTransformersEmbedder } from '../../src/core/embedding/transformers-embedder.js';
import type { Embedder } from '../../src/core/embedding/embedder.js';

export const MODELS_DIR = resolve(process.env.SKYCITE_MODELS_DIR ?? 'public/models');

/** The dtype the static index is built with (and the browser embeds queries with). */
/** The embedder the index is built with: a folder under MODELS_DIR (env SKYCITE_EMBEDDER; default all-MiniLM-L6-v2). */
export const INDEX_EMBEDDER = process.env.SKYCITE_EMBEDDER ?? DEFAULT_EMBEDDER_ID;

export const INDEX_DTYPE: EmbeddingModelConfig['dtype'] = (process.env.SKYCITE_MODEL_DTYPE as 'fp32' | 'q8' | undefined) ?? 'q8';

export const modelFile = (dtype: EmbeddingModelConfig['dtype'] = INDEX_DTYPE, modelId: string = INDEX_EMBEDDER): string =>
  resolve(MODELS_DIR, modelId, 'onnx', dtype === 'fp32' ? 'model.onnx' : 'model_quantized.onnx');

export function nodeEmbedder(dtype: EmbeddingModelConfig['dtype'] = INDEX_DTYPE, modelId: string = INDEX_EMBEDDER): Promise<Embedder> {
  return createTransformersEmbedder({
    modelId,
    dtype,
    localModelPath: `${MODELS_DIR}/`,
    device: 'cpu',
    batchSize: 16,
  });
}
