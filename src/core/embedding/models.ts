/**
 * The embedding models SkyCite knows how to run, and what each needs: how its
 * sentence vector is read (mean pooling of the token states, or the model's own
 * `sentence_embedding` output), the prompts it was trained with, its input length,
 * size and licence. The static index names the model it was built with; an
 * optional second vector set (static-index/vectors/, `npm run index:vectors`)
 * names a larger one that the app downloads only with the user's consent.
 */
import type { EmbedRole } from './embedder.js';

export interface EmbedderSpec {
  id: string;
  /** Short name for the UI. */
  label: string;
  dimension: number;
  /** 'mean': mean pooling over last_hidden_state; 'sentence_embedding': the ONNX graph pools and projects itself. */
  output: 'mean' | 'sentence_embedding';
  /** Text put before the input for each role (empty for models trained without prompts). */
  prompts: Record<EmbedRole, string>;
  /** Longest input in tokens (longer inputs are cut). null: the tokenizer's own limit. */
  maxTokens: number | null;
  /** Bytes of the files the browser downloads (model + tokenizer), for the consent prompt. */
  downloadBytes: number;
  licence: { name: string; url: string; notice: string };
  /** Files under the model folder the app fetches (the dtype's ONNX file and the tokenizer). */
  files: readonly string[];
}

const TOKENIZER_FILES = ['config.json', 'tokenizer.json', 'tokenizer_config.json'] as const;

const MINILM_LICENCE = {
  name: 'Apache-2.0',
  url: 'https://www.apache.org/licenses/LICENSE-2.0',
  notice: 'all-MiniLM-L6-v2 (sentence-transformers), Apache-2.0.',
};

/**
 * EmbeddingGemma-300m: the strongest embedder measured here (docs/retrieval.md), fetched
 * later because it is 6× the first load's model (4-bit weights, vocabulary trimmed: docs/models.md). Its prompts are those of its
 * sentence-transformers configuration; inputs are cut at 512 tokens (93 % of the passages fit;
 * the passage windows cover the rest).
 */
export const EMBEDDING_GEMMA_ID = 'google/embeddinggemma-300m';

/** MiniLM-L6 and its tuned copy: mean pooling, no prompts, 384 dimensions, ≈ 23.8 MB. */
function miniLm(id: string, label: string): EmbedderSpec {
  return {
    id,
    label,
    dimension: 384,
    output: 'mean',
    prompts: { query: '', document: '' },
    maxTokens: null,
    downloadBytes: 23_800_000,
    licence: MINILM_LICENCE,
    files: [...TOKENIZER_FILES, 'onnx/model_quantized.onnx'],
  };
}

export const EMBEDDER_SPECS: Record<string, EmbedderSpec> = {
  'sentence-transformers/all-MiniLM-L6-v2': miniLm('sentence-transformers/all-MiniLM-L6-v2', 'MiniLM-L6 (base)'),
  'skycite/minilm-skycite': miniLm('skycite/minilm-skycite', 'MiniLM-L6 tuned on the corpus'),
  [EMBEDDING_GEMMA_ID]: {
    id: EMBEDDING_GEMMA_ID,
    label: 'EmbeddingGemma-300m',
    dimension: 768,
    output: 'sentence_embedding',
    prompts: { query: 'task: search result | query: ', document: 'title: none | text: ' },
    maxTokens: 512,
    // the default build of `npm run models:prepare -- --embedder` (4-bit weights, 89,548-token vocabulary):
    // onnx/model_quantized.onnx 141,357,532 B + tokenizer.json 6,062,311 + tokenizer_config.json 7,791 + config.json 1,486.
    // The app shows the size from the served folder's manifest.json when it has one (retrieval-models.ts).
    downloadBytes: 147_429_120,
    licence: {
      name: 'Gemma Terms of Use',
      url: 'https://ai.google.dev/gemma/terms',
      notice: 'Gemma is provided under and subject to the Gemma Terms of Use found at ai.google.dev/gemma/terms.',
    },
    files: [...TOKENIZER_FILES, 'onnx/model_quantized.onnx'],
  },
};

/** The spec of a model id; unknown ids are MiniLM-like (mean pooling, no prompts), as every index before this registry. */
export function embedderSpec(id: string): EmbedderSpec {
  return (
    EMBEDDER_SPECS[id] ?? {
      ...EMBEDDER_SPECS['sentence-transformers/all-MiniLM-L6-v2']!,
      id,
      label: id,
    }
  );
}
