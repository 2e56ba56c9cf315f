/**
 * Sentence embedders through @huggingface/transformers (MiniLM and its tuned copy:
 * mean pooling; EmbeddingGemma: the graph's own `sentence_embedding` output and its
 * query/document prompts, see models.ts), loaded only from local files (the app's own
 * origin in the browser, public/models in Node). Remote model hubs are disabled.
 */
import { AutoModel, AutoTokenizer, env, mean_pooling, type PreTrainedModel, type PreTrainedTokenizer, type Tensor } from '@huggingface/transformers';
import { ModelLoadError, type Embedder, type EmbeddingModelConfig, type EmbedRole } from './embedder.js';
import { embedderSpec } from './models.js';
import { dot } from './similarity.js';

function normalise(v: Float32Array): Float32Array {
  const n = Math.sqrt(dot(v, v)) || 1;
  for (let i = 0; i < v.length; i++) v[i]! /= n;
  return v;
}

/**
 * transformers.js truncates long inputs to the model's 256 word pieces by
 * cutting the tail, final [SEP] included; sentence-transformers (the reference
 * that produced SKYSAFE's vectors) keeps [CLS] … [SEP]. Put [SEP] back at the
 * last attended position of every row that lost it. `ids` and `mask` are the
 * row-major `rows × cols` tensors of one padded batch; changed in place.
 */
export function restoreFinalSep(ids: BigInt64Array, mask: BigInt64Array, rows: number, cols: number, sepId: bigint): number {
  let fixed = 0;
  for (let r = 0; r < rows; r++) {
    let last = -1;
    for (let c = cols - 1; c >= 0; c--) {
      if (mask[r * cols + c] !== 0n) {
        last = c;
        break;
      }
    }
    if (last > 0 && ids[r * cols + last] !== sepId) {
      ids[r * cols + last] = sepId;
      fixed++;
    }
  }
  return fixed;
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
  const spec = embedderSpec(config.modelId);
  let extractor: { model: PreTrainedModel; tokenizer: PreTrainedTokenizer; dispose: () => Promise<void> };
  try {
    // Tokenizer and model directly, without a progress callback: with one, transformers.js first
    // GETs every file in full to learn its size, downloading it twice (the browser runtime counts
    // progress from the response bodies instead: src/runtime/download-progress.ts).
    const [tokenizer, model] = await Promise.all([
      AutoTokenizer.from_pretrained(config.modelId),
      AutoModel.from_pretrained(config.modelId, { dtype: config.dtype, device: config.device }),
    ]);
    extractor = { model, tokenizer, dispose: async () => void (await model.dispose()) };
  } catch (e) {
    throw new ModelLoadError(
      `Could not load the embedding model "${config.modelId}" (${config.dtype}) from ${config.localModelPath}: ` +
        `${(e as Error).message}. ` +
        (spec.output === 'sentence_embedding'
          ? `In the app: when offline, the model is used from this browser's cache only if it was stored there while online (reconnect and choose it again in Settings). On a server: the model is not committed; write it to public/models/${config.modelId}/ with \`npm run models:prepare -- --embedder\` (docs/models.md).`
          : `The model ships in public/models/${config.modelId}/; restore it with \`git checkout -- public/models\` (or run tools/export-minilm.sh), or point the model base path at a folder that holds it.`),
      { cause: e },
    );
  }
  // the model's own width (MiniLM and its tuned copies: 384; EmbeddingGemma: 768)
  const dim =
    spec.output === 'sentence_embedding'
      ? spec.dimension
      : Number((extractor.model as unknown as { config?: { hidden_size?: number } }).config?.hidden_size ?? 384);
  const sepId = BigInt((extractor.tokenizer as unknown as { sep_token_id?: number }).sep_token_id ?? 102);
  const tokenize = (texts: string[]) =>
    extractor.tokenizer(texts, { padding: true, truncation: true, ...(spec.maxTokens ? { max_length: spec.maxTokens } : {}) }) as unknown as Record<
      string,
      Tensor
    > & {
      input_ids: Tensor;
      attention_mask: Tensor;
    };
  /** Tokenize (with the [SEP] fix) and run the model: token states and the attention mask. */
  const encode = async (texts: string[]): Promise<{ hidden: Tensor; mask: Tensor }> => {
    const inputs = tokenize(texts);
    const [rows, cols] = inputs.input_ids.dims as [number, number];
    restoreFinalSep(inputs.input_ids.data as BigInt64Array, inputs.attention_mask.data as BigInt64Array, rows, cols, sepId);
    const out = (await extractor.model(inputs)) as { last_hidden_state: Tensor };
    return { hidden: out.last_hidden_state, mask: inputs.attention_mask };
  };
  /** One batch → row-major sentence vectors (L2-normalised), by the model's kind of output. */
  const sentenceVectors = async (batch: string[]): Promise<{ data: Float32Array; release: () => void }> => {
    if (spec.output === 'sentence_embedding') {
      const inputs = tokenize(batch);
      const out = (await extractor.model({ input_ids: inputs.input_ids, attention_mask: inputs.attention_mask })) as { sentence_embedding?: Tensor };
      const t = out.sentence_embedding;
      if (!t)
        throw new ModelLoadError(
          `The model "${config.modelId}" has no sentence_embedding output; its ONNX file is not the one \`npm run models:prepare -- embedder\` writes.`,
        );
      return { data: t.data as Float32Array, release: () => t.dispose?.() };
    }
    const { hidden, mask } = await encode(batch);
    const t = mean_pooling(hidden, mask).normalize(2, -1);
    return {
      data: t.data as Float32Array,
      release: () => {
        t.dispose?.();
        hidden.dispose?.();
      },
    };
  };
  return {
    modelId: config.modelId,
    dimension: dim,
    async embed(texts: string[], role: EmbedRole = 'document'): Promise<Float32Array[]> {
      const prompt = spec.prompts[role];
      const out: Float32Array[] = [];
      for (let i = 0; i < texts.length; i += config.batchSize) {
        const batch = texts.slice(i, i + config.batchSize).map((t) => prompt + t);
        const { data, release } = await sentenceVectors(batch);
        for (let k = 0; k < batch.length; k++) {
          const v = Float32Array.from(data.subarray(k * dim, (k + 1) * dim));
          // mean pooling normalised already; the sentence_embedding graph does too, but a cut input is checked again
          out.push(spec.output === 'mean' ? v : normalise(v));
        }
        release();
      }
      return out;
    },
    async embedTokens(text: string): Promise<Float32Array[]> {
      if (spec.output !== 'mean')
        throw new ModelLoadError(`Token embeddings (late interaction) are not available from "${config.modelId}": its graph outputs only the sentence vector.`);
      const { hidden: t } = await encode([text]);
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
