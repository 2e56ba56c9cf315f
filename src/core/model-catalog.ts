/**
 * The language models SkyCite offers from Hugging Face (a copy of entries of WebLLM 0.2.79's
 * `prebuiltAppConfig.model_list`; tests/llm/models.test.ts fails when it drifts) and the model ids
 * Settings accepts. Plain data with no imports, so both the WebLLM side (src/llm/models.ts: the
 * recommendation, the AppConfig) and the settings store (src/storage/settings-store.ts, which
 * validates a stored model id) read it without the storage layer depending on src/llm.
 */

/**
 * web-llm's `modelVersion` for the prebuilt model libraries of 0.2.79. web-llm is pinned
 * to 0.2.79 because its `v0_2_48` libraries are the ones that can be obtained here (a
 * stored copy of binary-mlc-llm-libs; compiling libraries needs mlc-llm, which is not on
 * PyPI); 0.2.80+ need `v0_2_80` libraries.
 */
export const WEBLLM_MODEL_VERSION = 'v0_2_48';
/** web-llm's `modelLibURLPrefix`. */
export const WEBLLM_LIB_PREFIX = 'https://raw.githubusercontent.com/mlc-ai/binary-mlc-llm-libs/main/web-llm-models/';
const HF_PREFIX = 'https://huggingface.co/';

export type Quantization = 'q4f16_1' | 'q4f32_1';

export interface ModelFile {
  /** Path relative to the base URL (the manifest's layout). */
  path: string;
  size: number;
  sha256: string;
}

export interface CuratedModel {
  /** WebLLM model_id. */
  id: string;
  /** Where the files come from: the app's base URL / an import (verified), or Hugging Face. */
  source: 'self-hosted' | 'remote';
  /** Human label. */
  label: string;
  family: string;
  /** Parameters in billions, from the model card (for the size estimate and ranking). */
  paramsB: number;
  quantization: Quantization;
  /** True for q4f16_1: the WGSL kernels use f16, which needs the `shader-f16` feature. */
  needsShaderF16: boolean;
  /** web-llm's `required_features` (declared only for some models). */
  requiredFeatures: string[];
  /** web-llm's `vram_required_MB`. */
  vramMB: number;
  /** web-llm's `low_resource_required` (true: meant to run on limited devices). */
  lowResource: boolean;
  contextWindow: number;
  /** remote: web-llm's `model` URL (Hugging Face); self-hosted: the model folder relative to the base URL. */
  modelUrl: string;
  /** remote: web-llm's `model_lib` relative to WEBLLM_LIB_PREFIX; self-hosted: relative to the base URL. */
  modelLibPath: string;
  /** Exact download size in bytes (self-hosted, from the manifest); null when unknown (remote). */
  totalBytes: number | null;
  /** Every file with size and SHA-256 (self-hosted); null for remote models. */
  files: ModelFile[] | null;
}

interface Row {
  id: string;
  label: string;
  family: string;
  paramsB: number;
  vramMB: number;
  lowResource: boolean;
  requiredFeatures?: string[];
  lib: string;
}

const ROWS: Row[] = [
  {
    id: 'Qwen2.5-0.5B-Instruct-q4f16_1-MLC',
    label: 'Qwen2.5 0.5B Instruct',
    family: 'Qwen2.5',
    paramsB: 0.49,
    vramMB: 944.62,
    lowResource: true,
    lib: 'Qwen2-0.5B-Instruct-q4f16_1-ctx4k_cs1k-webgpu.wasm',
  },
  {
    id: 'Qwen2.5-0.5B-Instruct-q4f32_1-MLC',
    label: 'Qwen2.5 0.5B Instruct',
    family: 'Qwen2.5',
    paramsB: 0.49,
    vramMB: 1060.2,
    lowResource: true,
    lib: 'Qwen2-0.5B-Instruct-q4f32_1-ctx4k_cs1k-webgpu.wasm',
  },
  {
    id: 'Llama-3.2-1B-Instruct-q4f16_1-MLC',
    label: 'Llama 3.2 1B Instruct',
    family: 'Llama-3.2',
    paramsB: 1.24,
    vramMB: 879.04,
    lowResource: true,
    lib: 'Llama-3.2-1B-Instruct-q4f16_1-ctx4k_cs1k-webgpu.wasm',
  },
  {
    id: 'Llama-3.2-1B-Instruct-q4f32_1-MLC',
    label: 'Llama 3.2 1B Instruct',
    family: 'Llama-3.2',
    paramsB: 1.24,
    vramMB: 1128.82,
    lowResource: true,
    lib: 'Llama-3.2-1B-Instruct-q4f32_1-ctx4k_cs1k-webgpu.wasm',
  },
  {
    id: 'Qwen2.5-1.5B-Instruct-q4f16_1-MLC',
    label: 'Qwen2.5 1.5B Instruct',
    family: 'Qwen2.5',
    paramsB: 1.54,
    vramMB: 1629.75,
    lowResource: true,
    lib: 'Qwen2-1.5B-Instruct-q4f16_1-ctx4k_cs1k-webgpu.wasm',
  },
  {
    id: 'Qwen2.5-1.5B-Instruct-q4f32_1-MLC',
    label: 'Qwen2.5 1.5B Instruct',
    family: 'Qwen2.5',
    paramsB: 1.54,
    vramMB: 1888.97,
    lowResource: true,
    lib: 'Qwen2-1.5B-Instruct-q4f32_1-ctx4k_cs1k-webgpu.wasm',
  },
  {
    id: 'SmolLM2-1.7B-Instruct-q4f16_1-MLC',
    label: 'SmolLM2 1.7B Instruct',
    family: 'SmolLM2',
    paramsB: 1.71,
    vramMB: 1774.19,
    lowResource: true,
    requiredFeatures: ['shader-f16'],
    lib: 'SmolLM2-1.7B-Instruct-q4f16_1-ctx4k_cs1k-webgpu.wasm',
  },
  {
    id: 'SmolLM2-1.7B-Instruct-q4f32_1-MLC',
    label: 'SmolLM2 1.7B Instruct',
    family: 'SmolLM2',
    paramsB: 1.71,
    vramMB: 2692.38,
    lowResource: true,
    lib: 'SmolLM2-1.7B-Instruct-q4f32_1-ctx4k_cs1k-webgpu.wasm',
  },
  {
    id: 'gemma-2-2b-it-q4f16_1-MLC',
    label: 'Gemma 2 2B IT',
    family: 'gemma-2',
    paramsB: 2.61,
    vramMB: 1895.3,
    lowResource: false,
    requiredFeatures: ['shader-f16'],
    lib: 'gemma-2-2b-it-q4f16_1-ctx4k_cs1k-webgpu.wasm',
  },
  {
    id: 'gemma-2-2b-it-q4f32_1-MLC',
    label: 'Gemma 2 2B IT',
    family: 'gemma-2',
    paramsB: 2.61,
    vramMB: 2508.75,
    lowResource: false,
    lib: 'gemma-2-2b-it-q4f32_1-ctx4k_cs1k-webgpu.wasm',
  },
  {
    id: 'Qwen2.5-3B-Instruct-q4f16_1-MLC',
    label: 'Qwen2.5 3B Instruct',
    family: 'Qwen2.5',
    paramsB: 3.09,
    vramMB: 2504.76,
    lowResource: true,
    lib: 'Qwen2.5-3B-Instruct-q4f16_1-ctx4k_cs1k-webgpu.wasm',
  },
  {
    id: 'Qwen2.5-3B-Instruct-q4f32_1-MLC',
    label: 'Qwen2.5 3B Instruct',
    family: 'Qwen2.5',
    paramsB: 3.09,
    vramMB: 2893.64,
    lowResource: true,
    lib: 'Qwen2.5-3B-Instruct-q4f32_1-ctx4k_cs1k-webgpu.wasm',
  },
  {
    id: 'Llama-3.2-3B-Instruct-q4f16_1-MLC',
    label: 'Llama 3.2 3B Instruct',
    family: 'Llama-3.2',
    paramsB: 3.21,
    vramMB: 2263.69,
    lowResource: true,
    lib: 'Llama-3.2-3B-Instruct-q4f16_1-ctx4k_cs1k-webgpu.wasm',
  },
  {
    id: 'Llama-3.2-3B-Instruct-q4f32_1-MLC',
    label: 'Llama 3.2 3B Instruct',
    family: 'Llama-3.2',
    paramsB: 3.21,
    vramMB: 2951.51,
    lowResource: true,
    lib: 'Llama-3.2-3B-Instruct-q4f32_1-ctx4k_cs1k-webgpu.wasm',
  },
];

function toModel(r: Row): CuratedModel {
  const quantization: Quantization = r.id.includes('q4f16_1') ? 'q4f16_1' : 'q4f32_1';
  return {
    id: r.id,
    source: 'remote',
    label: r.label,
    family: r.family,
    paramsB: r.paramsB,
    quantization,
    needsShaderF16: quantization === 'q4f16_1',
    requiredFeatures: r.requiredFeatures ?? [],
    vramMB: r.vramMB,
    lowResource: r.lowResource,
    contextWindow: 4096,
    modelUrl: `${HF_PREFIX}mlc-ai/${r.id}`,
    modelLibPath: `${WEBLLM_MODEL_VERSION}/${r.lib}`,
    totalBytes: null,
    files: null,
  };
}

/** The remote (Hugging Face) models, smallest first. */
export const CURATED_MODELS: readonly CuratedModel[] = Object.freeze(ROWS.map(toModel));
export const CURATED_MODEL_IDS: readonly string[] = Object.freeze(CURATED_MODELS.map((m) => m.id));

export function findModel(id: string, models: readonly CuratedModel[] = CURATED_MODELS): CuratedModel | undefined {
  return models.find((m) => m.id === id);
}

/** A model id as Settings accepts it (self-hosted ids come from a manifest at run time). */
export const MODEL_ID_PATTERN = /^[A-Za-z0-9][A-Za-z0-9._-]{0,127}$/;

/** The suffix `npm run models:prepare` gives the models it writes (tools/models). */
export const SELF_HOSTED_SUFFIX = '-SkyCite';

/**
 * Whether Settings may keep this model id: one of the remote list, or a self-hosted id
 * as models:prepare names them (whether it is served is only known from the catalog).
 */
export function isOfferableModelId(id: string): boolean {
  return CURATED_MODEL_IDS.includes(id) || (MODEL_ID_PATTERN.test(id) && id.endsWith(SELF_HOSTED_SUFFIX));
}
