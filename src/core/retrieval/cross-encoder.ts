/**
 * The cross-encoder reranker: a small BERT (MiniLM layers, trained by
 * tools/train/train_crossencoder.py on synthetic questions) reads the question and
 * a candidate's passage window together and returns P(the window answers the
 * question) = sigmoid(logit). Loaded through @huggingface/transformers from local
 * files only (the app's origin in the browser, public/models in Node); run on WASM
 * in the browser (transformers.js issue 1181: WebGPU gives identical scores for
 * this model type).
 */
import { AutoModelForSequenceClassification, AutoTokenizer, env, type PreTrainedModel, type PreTrainedTokenizer, type Tensor } from '@huggingface/transformers';
import { restoreFinalSep } from '../embedding/transformers-embedder.js';
import { RerankerLoadError, type Reranker } from './rerank.js';

export { RERANKER_ID } from './reranker-id.js';

export interface CrossEncoderConfig {
  /** Model folder under `localModelPath`, e.g. 'skycite/reranker-minilm-l3'. */
  modelId: string;
  localModelPath: string;
  dtype: 'q8' | 'fp32';
  device: 'cpu' | 'wasm';
  /** Pairs per model call. Default 32. */
  batchSize?: number;
  ortWasmPaths?: { mjs: string; wasm: string };
}

const sigmoid = (x: number) => 1 / (1 + Math.exp(-x));

export async function createCrossEncoderReranker(config: CrossEncoderConfig): Promise<Reranker & { dispose(): Promise<void> }> {
  env.allowRemoteModels = false;
  env.allowLocalModels = true;
  env.localModelPath = config.localModelPath;
  const onnx = env.backends.onnx as { wasm?: { wasmPaths?: unknown } } | undefined;
  if (config.ortWasmPaths && onnx?.wasm) onnx.wasm.wasmPaths = { ...config.ortWasmPaths };
  let tokenizer: PreTrainedTokenizer;
  let model: PreTrainedModel;
  try {
    tokenizer = await AutoTokenizer.from_pretrained(config.modelId);
    model = await AutoModelForSequenceClassification.from_pretrained(config.modelId, { dtype: config.dtype, device: config.device });
  } catch (e) {
    throw new RerankerLoadError(
      `Could not load the reranker "${config.modelId}" from ${config.localModelPath}: ${(e as Error).message}. ` +
        `It ships in public/models/${config.modelId}/; restore it with \`git checkout -- public/models\` or retrain it (docs/reranker.md). ` +
        'Retrieval falls back to the unreranked order.',
    );
  }
  const sepId = BigInt((tokenizer as unknown as { sep_token_id?: number }).sep_token_id ?? 102);
  const batchSize = config.batchSize ?? 32;
  return {
    name: `cross-encoder ${config.modelId}`,
    async score(query, candidates) {
      const out: number[] = [];
      for (let i = 0; i < candidates.length; i += batchSize) {
        const batch = candidates.slice(i, i + batchSize);
        const inputs = tokenizer(
          batch.map(() => query),
          { text_pair: batch.map((c) => c.text), padding: true, truncation: true },
        ) as unknown as Record<string, Tensor> & { input_ids: Tensor; attention_mask: Tensor };
        const [rows, cols] = inputs.input_ids.dims as [number, number];
        restoreFinalSep(inputs.input_ids.data as BigInt64Array, inputs.attention_mask.data as BigInt64Array, rows, cols, sepId);
        const { logits } = (await model(inputs)) as { logits: Tensor };
        const data = logits.data as Float32Array;
        for (let k = 0; k < batch.length; k++) out.push(sigmoid(data[k]!));
        logits.dispose?.();
      }
      return out;
    },
    async dispose() {
      await model.dispose();
    },
  };
}
