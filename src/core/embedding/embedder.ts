/**
 * The embedding interface shared by the build, the CLI, the evaluation harness
 * and the browser worker. Vectors are float32, L2-normalised (mean pooling).
 */
import { SkyCiteError } from '../errors.js';

/** The embedding model could not be loaded (transformers-embedder.ts): its message says which file and what to do. */
export class ModelLoadError extends SkyCiteError {
  override name = 'ModelLoadError';
  override readonly code = 'model-load';
}

export interface Embedder {
  readonly modelId: string;
  readonly dimension: number;
  /**
   * Sentence embeddings, one L2-normalised vector per text. `role` picks the model's
   * prompt (EmbeddingGemma: "task: search result | query: " for questions, "title: none |
   * text: " for passages); models without prompts (MiniLM) ignore it. Default 'document'.
   */
  embed(texts: string[], role?: EmbedRole): Promise<Float32Array[]>;
  /**
   * Contextual token embeddings of one text (L2-normalised per token), for
   * late-interaction (MaxSim) reranking. Special tokens ([CLS], [SEP]) excluded.
   */
  embedTokens(text: string): Promise<Float32Array[]>;
  dispose?(): Promise<void>;
}

/** What a text is to the model: a search question, or a passage (and anything compared with passages). */
export type EmbedRole = 'query' | 'document';

export interface EmbeddingModelConfig {
  /** Model id as laid out under the models folder. Default 'sentence-transformers/all-MiniLM-L6-v2'. */
  modelId: string;
  /** transformers.js dtype: 'fp32' (onnx/model.onnx) or 'q8' (onnx/model_quantized.onnx). */
  dtype: 'fp32' | 'q8';
  /**
   * Where the model folder lives: an absolute filesystem path in Node, or a URL
   * path on the app's own origin in the browser ('/models/'). Never a hub.
   */
  localModelPath: string;
  /** 'cpu' in Node; 'webgpu' or 'wasm' in the browser. */
  device: 'cpu' | 'wasm' | 'webgpu';
  /** Batch size for embedding many texts (build time). Default 16. */
  batchSize: number;
  /**
   * Browser only: where onnxruntime-web's wasm files are served (the app's own
   * origin). Without it transformers.js would fetch them from a CDN.
   */
  ortWasmPaths?: { mjs: string; wasm: string };
}

export const MINILM_ID = 'sentence-transformers/all-MiniLM-L6-v2';
export const MINILM_DIM = 384;
/**
 * The embedder the static index is built with by default. The browser loads
 * whichever model the index manifest names (`manifest.model.id`), so an index
 * built with another model folder under public/models (e.g. the base MiniLM,
 * `SKYCITE_EMBEDDER=sentence-transformers/all-MiniLM-L6-v2 npm run index`) needs no code change.
 * Default: MiniLM fine-tuned on the corpus's synthetic questions (public/models/skycite/minilm-skycite/ORIGIN.md).
 */
export const DEFAULT_EMBEDDER_ID = 'skycite/minilm-skycite';
