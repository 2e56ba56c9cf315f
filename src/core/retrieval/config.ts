/**
 * The one retrieval configuration. Defaults are the SKYSAFE paper's values
 * (§2.5–2.7) where it gives them; the others are ours, chosen with the ablation
 * in `npm run eval` (see docs/retrieval.md).
 */
import { type DeepPartial, deepMerge } from '../config/merge.js';
// the evidence gate's calibrations: data written by `npm run calibrate:gate` (corpus-build/cli/calibrate-gate.ts), never edited by hand
import GATE_CALIBRATION from './gate-calibration.json';
import GEMMA_GATE from './gate-calibration.google--embeddinggemma-300m.json';
import BASE_MINILM_GATE from './gate-calibration.sentence-transformers--all-MiniLM-L6-v2.json';
import { SkyCiteError } from '../errors.js';

/** A retrieval configuration this runtime cannot run: a model without its calibrated gate, a dense backend not loaded here. */
export class RetrievalConfigError extends SkyCiteError {
  override name = 'RetrievalConfigError';
  override readonly code = 'retrieval-config';
}

interface GateSide {
  unanswerable: Record<string, { n: number; refused: number }>;
}
/** The calibrated score that refuses the larger share of the synthetic unanswerable questions (mean over their kinds). */
export function preferredGateScore(cal: { dense: GateSide; rerank: GateSide | null }): 'dense' | 'rerank' {
  const share = (g: GateSide) => {
    const v = Object.values(g.unanswerable);
    return v.reduce((a, x) => a + x.refused, 0) / Math.max(v.length, 1);
  };
  return cal.rerank && share(cal.rerank) > share(cal.dense) ? 'rerank' : 'dense';
}

export interface RetrievalConfig {
  dense: {
    /** Dense candidate pool (SKYSAFE §2.5.1: 50). */
    pool: number;
    /** 'exact' flat inner product (deterministic baseline) or 'voy' (WASM k-d tree). */
    backend: 'exact' | 'voy';
  };
  mmr: {
    enabled: boolean;
    /** Relevance/diversity trade-off λ (SKYSAFE §2.5.1: 0.6). */
    lambda: number;
  };
  bm25: {
    enabled: boolean;
    /** BM25 candidate pool (ours: same as the dense pool). */
    pool: number;
    /** Okapi term-frequency saturation (rank_bm25, used by SKYSAFE: 1.5). */
    k1: number;
    /** Okapi length normalisation (rank_bm25: 0.75). */
    b: number;
  };
  dense_enabled: boolean;
  /** Dense retrieval over passage windows (best window per chunk) as a further ranked list for fusion. */
  windows: { enabled: boolean; pool: number };
  /**
   * Dense retrieval over each passage's synthetic questions (best question per
   * chunk; corpus-build/data, doc2query-style) as a further ranked list for fusion.
   */
  questions: { enabled: boolean; pool: number };
  /**
   * Expansion with the documents' own abbreviations (abbreviations.ts): "ERP" ↔
   * "emergency response plan" added to the BM25 query and to a second dense query.
   * Off by default: under 5-fold group cross-validation on the dev set it lowers
   * EASA MRR (held-out 0.574 off vs 0.563 on) and leaves curated unchanged.
   */
  expansion: { enabled: boolean };
  /**
   * Identifiers rewritten as the documents print them (src/core/text/identifiers.ts, learned
   * from the index's own text): "OSO #8" → "OSO #08", "M1A" → "M1(A)", "Step 2" → "Step #2".
   * The rewritten question replaces the question in the lexical and the dense query.
   */
  identifiers: { enabled: boolean };
  /**
   * Reciprocal rank fusion constant k (SKYSAFE §2.5.3: 60; ours 10: group-wise 5-fold CV on the question bank's training
   * part picked 10 on every fold, CV MRR 0.535 → 0.553, Hit@5 0.699 → 0.727, docs/retrieval.md) and fused pool size
   * (SKYSAFE: 10; ours 30, the reranker's input);
   * `weights`: each ranked list's weight in the fusion (weighted RRF; default 1 each, SKYSAFE's plain RRF), chosen per
   * embedder by group-wise CV on the question bank (EMBEDDER_CHOICES below, docs/retrieval.md).
   */
  rrf: { k: number; pool: number; weights: { dense: number; windows: number; questions: number; bm25: number } };
  postScore: {
    /**
     * Off by default: on the dev set it does not help (EASA MRR 0.609 without vs
     * 0.589 with; over all 113 questions it ranks the gold higher for 6 and lower
     * for 15). The components are still computed for the audit trail.
     */
    enabled: boolean;
    /** Weight of the fused score, rescaled to [0, 1] within the pool. */
    fused: number;
    /** Weight of cos(query, chunk summary) (SKYSAFE §2.6.1). */
    summary: number;
    /** Weight of cos(query, retrieval string). */
    dense: number;
    /** Weight of the best passage-window cosine. */
    window: number;
    /** Low weight per chunk keyword found in the lower-cased query (SKYSAFE §2.6.1). */
    keyword: number;
    /** At most this many keyword hits count. */
    keywordCap: number;
  };
  rerank: {
    /**
     * Rerank with the cross-encoder when one is loaded (without a model the fused order is kept and
     * the trace says so). Default false: on dev it moved EASA MRR 0.575 → 0.578 and curated 0.663 →
     * 0.658 with the calibrated gate, for ≈ 350 ms per query in Node (docs/retrieval.md).
     */
    enabled: boolean;
    /**
     * Weight of the reranker's relevance (0–1) in the final score of the reranked
     * head; the fused score, rescaled to [0, 1] within the head, gets 1 − weight.
     */
    weight: number;
    /** Fused candidates reranked (the rest follow in fused order). */
    top: number;
    /** What the cross-encoder reads per candidate: the best-matching passage window (default) or the whole retrieval string. */
    input: 'window' | 'passage';
  };
  elbow: {
    enabled: boolean;
    /**
     * Cut after the first drop between consecutive final scores larger than this
     * fraction of the top score. Scale: final score ÷ top final score (0–1), so the
     * same threshold works whether the final score is the RRF sum (about 0.01–0.07),
     * the post-score blend (about 0–1.5) or a rerank blend. SKYSAFE §2.6.3 uses 0.8
     * on its reranker's scale, which does not transfer to ours.
     */
    threshold: number;
  };
  /**
   * The evidence gate (engine.ts `evidenceGate`): "no evidence" — never padded with
   * weak passages — unless the best candidate reaches the threshold of the score
   * named by `by`: the best dense cosine, or the reranker's relevance (dense when the
   * reranker does not run). Thresholds and the choice come from `npm run calibrate:gate`
   * (gate-calibration.json): the score that refuses more synthetic unanswerable questions
   * at the same 5 % of answerable ones refused.
   */
  gate: {
    enabled: boolean;
    by: 'dense' | 'rerank';
    /** Minimum best cosine (query vs retrieval string or passage window) without the reranker. */
    minDense: number;
    /** Minimum best reranker score; calibrated on synthetic questions (docs/retrieval.md, "Evidence gate"). */
    minRerank: number;
  };
  /**
   * Current edition first: when a passage of the current SORA edition and one of an older edition
   * (the curated SORA 2.0 restatements) are both kept, the current one is moved above the older one
   * when its score is at least `ratio` × the older one's (0: always). Off by default until
   * cross-validation picks it (`npm run eval -- --cv 5`, knob "current edition first").
   */
  editionOrder: { enabled: boolean; ratio: number };
  /** Evidence kept after filtering (SKYSAFE §2.7: 10). */
  keep: number;
  /** Context budget in characters (SKYSAFE §2.7: 12,000). */
  contextChars: number;
  /** Broadening fallback: pool multiplier when filtered retrieval finds nothing. */
  broadenPoolFactor: number;
}

type GateCalibration = {
  embedder: { file: string; sha256: string };
  dense: GateSide & { threshold: number };
  rerank: (GateSide & { threshold: number }) | null;
};

/** A calibration's gate: its thresholds, and the score that refuses more unanswerable questions. */
const gateOf = (cal: GateCalibration): RetrievalConfig['gate'] => ({
  enabled: true,
  by: preferredGateScore(cal),
  minDense: cal.dense.threshold,
  minRerank: cal.rerank?.threshold ?? 0.5,
});

export const DEFAULT_RETRIEVAL_CONFIG: RetrievalConfig = {
  dense: { pool: 50, backend: 'exact' },
  dense_enabled: true,
  windows: { enabled: true, pool: 50 },
  questions: { enabled: true, pool: 50 },
  mmr: { enabled: false, lambda: 0.6 },
  bm25: { enabled: true, pool: 50, k1: 1.5, b: 0.75 },
  expansion: { enabled: false },
  identifiers: { enabled: true },
  rrf: { k: 10, pool: 30, weights: { dense: 1, windows: 1, questions: 1, bm25: 1 } },
  postScore: { enabled: false, fused: 0.5, summary: 0.3, dense: 0.7, window: 0.7, keyword: 0.02, keywordCap: 5 },
  rerank: { enabled: false, weight: 0.3, top: 20, input: 'window' },
  elbow: { enabled: false, threshold: 0.25 },
  gate: gateOf(GATE_CALIBRATION),
  editionOrder: { enabled: false, ratio: 0.75 },
  keep: 10,
  contextChars: 12_000,
  broadenPoolFactor: 2,
};

/**
 * Every calibrated gate, each naming the model build it was calibrated on: the built-in model's
 * (`npm run calibrate:gate -- --all-offtopic`, on the held-back questions of its training data) and those of the embedders
 * that have a vector set (`npm run calibrate:gate -- --embedder <id> --all-offtopic`).
 */
const CALIBRATIONS: readonly GateCalibration[] = [GATE_CALIBRATION, GEMMA_GATE, BASE_MINILM_GATE];
const calibratedModel = (cal: GateCalibration) => cal.embedder.file.replace(/^public\/models\//, '').replace(/\/onnx\/[^/]+$/, '');
const calibrateCommand = (modelId: string) =>
  calibratedModel(GATE_CALIBRATION) === modelId ? 'npm run calibrate:gate -- --all-offtopic' : `npm run calibrate:gate -- --embedder ${modelId} --all-offtopic`;

/**
 * The evidence gate of another embedder's vector set: a cosine threshold does not carry over
 * between models, so each has its own calibration. Throws, saying how to calibrate, for a model
 * without one (never the default's threshold by mistake). A downloaded model's build is checked
 * against its vector set (vector-set.ts), not here: `models:prepare` may make a build whose bytes
 * differ from the one calibrated.
 */
export function gateForEmbedder(modelId: string): RetrievalConfig['gate'] {
  const cal = CALIBRATIONS.find((c) => calibratedModel(c) === modelId);
  if (!cal) throw new RetrievalConfigError(`No calibrated evidence gate for ${modelId}: run \`${calibrateCommand(modelId)}\`.`);
  return gateOf(cal);
}

/**
 * The gate of the model a static index was built with. The built-in model ships in the repository,
 * so its calibration must be of that very build: an index made with another build of it is refused
 * with the file, both SHA-256s and the command. Another calibrated model gets its own gate; a model
 * no calibration names (a test model) keeps the default.
 */
export function gateForIndexModel(model: { id: string; sha256: string }): RetrievalConfig['gate'] {
  if (model.id === calibratedModel(GATE_CALIBRATION)) {
    if (model.sha256 !== GATE_CALIBRATION.embedder.sha256)
      throw new RetrievalConfigError(
        `The evidence gate was calibrated with ${GATE_CALIBRATION.embedder.file} SHA-256 ${GATE_CALIBRATION.embedder.sha256}, but the index was built with SHA-256 ${model.sha256}: ` +
          `run \`${calibrateCommand(model.id)}\` for this build, or rebuild the index with the model the gate was calibrated on (\`npm run index\`).`,
      );
    return gateOf(GATE_CALIBRATION);
  }
  const cal = CALIBRATIONS.find((c) => calibratedModel(c) === model.id);
  return cal ? gateOf(cal) : DEFAULT_RETRIEVAL_CONFIG.gate;
}

/**
 * Choices that differ with another embedder, each kept because group-wise 5-fold
 * cross-validation picked it on every fold (`npm run eval -- --questions … --cv 5 --embedder <id>`,
 * docs/retrieval.md): with EmbeddingGemma, RRF k = 10 (8-bit build: CV MRR 0.569 → 0.626, Hit@5
 * 0.667 → 0.741) and post-scoring (4-bit trimmed build: CV MRR 0.624 → 0.651, Hit@5 0.769 → 0.778).
 */
const EMBEDDER_CHOICES: Record<string, DeepPartial<RetrievalConfig>> = {
  'google/embeddinggemma-300m': { rrf: { k: 10 }, postScore: { enabled: true } },
};

/** The configuration overrides of retrieval with another embedder's vector set: its calibrated gate and its cross-validated choices. */
export function configForEmbedder(modelId: string, gate: (id: string) => RetrievalConfig['gate'] = gateForEmbedder): DeepPartial<RetrievalConfig> {
  return { ...(EMBEDDER_CHOICES[modelId] ?? {}), gate: gate(modelId) };
}

export type RetrievalConfigOverrides = DeepPartial<RetrievalConfig>;

/** The defaults (or another base) with overrides applied at any depth. */
export function withConfig(base: RetrievalConfig, over: RetrievalConfigOverrides = {}): RetrievalConfig {
  return deepMerge(base, over);
}
