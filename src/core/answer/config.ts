/**
 * The one answer-stage configuration: generation parameters, message assembly,
 * retry policy, grounding thresholds and evidence-only composition. Defaults follow the SKYSAFE paper (§2.7) where it gives a
 * value; the rest are ours and each default says why it was chosen.
 */
import { DEFAULT_GENERATION, type GenerationParams } from '../llm/engine.js';
import { type DeepPartial, deepMerge } from '../config/merge.js';
import type { CitationMarkers } from './prompts.js';

/**
 * How the SKYSAFE developer prompt is delivered.
 * - 'merge' (default): appended to the system prompt under a "Developer
 *   instructions" heading, in one system message. Required by WebLLM, which
 *   throws SystemMessageOrderError for a system message that is not the first
 *   message and UnsupportedRoleError for a 'developer' role
 *   (checked in @mlc-ai/web-llm 0.2.86, lib/index.js).
 * - 'system': a second system-role message right after the first, for
 *   OpenAI-compatible back ends that accept several system messages.
 */
export type DeveloperMessageMode = 'merge' | 'system';

/**
 * The answer form (docs/answers.md): 'quoted' (default) — quotations chosen by the unit ranker
 * (quotes.ts), with a model only a short lead checked against them; 'structured' — JSON claims that
 * cite passage numbers (structured.ts); 'free' — free text with markers. The last two are kept for
 * measurement.
 */
export type AnswerForm = 'quoted' | 'structured' | 'free';

/** The lead a model writes over the quotations (quoted answers). */
export interface LeadLimits {
  /** Tokens of the lead. Ours: 96, two short sentences with their markers. */
  maxTokens: number;
  /** Sentences kept; the rest is dropped and said. Ours: 2 (the "one or two sentences"). */
  maxSentences: number;
  /** Frequency penalty while writing it (both runtimes), against a sentence repeated. Ours: 0.5. */
  frequencyPenalty: number;
  /** A lead sentence sharing this share of its words with a quotation copies it (a repeat, dropped). Ours: 0.7 (the quotes' own duplicate rule is 0.8; a copy with a word changed stays above 0.7). */
  copyJaccard: number;
}

/** Limits of structured answers, written into the schema (structured.ts `answerSchema`). */
export interface StructuredLimits {
  /**
   * Claims the schema requires (0 or 1). With 0 an empty list is the model's refusal; with 1 the model
   * must state a claim, and questions the passages do not answer are left to the evidence gate, the
   * scope decision and the source check.
   */
  minClaims: number;
  maxClaims: number;
  maxClaimChars: number;
  maxSourcesPerClaim: number;
  maxNotInPassagesChars: number;
}

export interface AnswerConfig {
  generation: GenerationParams;
  developerMessageMode: DeveloperMessageMode;
  /**
   * 'full' (default): the SKYSAFE system and developer prompts. 'minimal': one short
   * system line and no acknowledgement — only for the diagnostic smoke profile
   * (SMOKE_ANSWER_CONFIG), which proves a model runs where generation is very slow
   * (a software WebGPU adapter); never for answers shown as such.
   */
  instructions: 'full' | 'minimal';
  /**
   * How the model cites passages: 'number' (default) shows the passages as [1], [2]…
   * and turns the model's numbers back into chunk ids as the answer streams; 'id'
   * shows and expects the SKYSAFE `[chunk-id]` markers. Chosen by measurement on real
   * output (docs/answers.md): with the 0.5B and 1.5B models the ids were copied in
   * none of the answers.
   */
  citationMarkers: CitationMarkers;
  /**
   * 'quoted' (default): the answer is the quotations the unit ranker chose (quotes.ts), the model
   * writes a lead of one or two sentences over them; 'structured': a JSON object of claims citing
   * passage numbers (structured.ts); 'free': the SKYSAFE sectioned prose with `[n]` markers. Chosen
   * by a strict reading of real answers of both models (docs/answers.md): the small models spliced,
   * echoed and repeated text as claims, and picked sources by position.
   */
  answerForm: AnswerForm;
  /** The lead of quoted answers. */
  lead: LeadLimits;
  /** Limits of structured answers, written into the schema (docs/answers.md gives the measurements behind them). */
  structured: StructuredLimits;
  /**
   * After the grounding check, a supported claim the model left uncited gets the
   * marker of the chunk that supports it, shown and recorded as added by the check
   * (attribution.ts). Default true: small models often omit markers on faithful
   * sentences (docs/answers.md); unsupported claims are never given one.
   */
  attribution: boolean;
  /** Cut the context block to this many characters before it is sent (null = as retrieved). Smoke profile only. */
  contextMaxChars: number | null;
  /** The assistant acknowledgement message (SKYSAFE Appendix A.2.5, step 4). */
  acknowledgement: string;
  history: {
    /**
     * Most recent previous turns kept (a turn = question + answer). Ours: 4 keeps
     * a short follow-up chain (SKYSAFE §4.1 notes follow-ups benefit from
     * preserved context) without crowding out the retrieved context.
     */
    maxTurns: number;
    /**
     * Character budget for all kept history (oldest turns are dropped first;
     * whole turns only). Ours: 4,000 characters (~1,000 tokens), a third of the
     * 12,000-character context budget.
     */
    maxChars: number;
  };
  retry: {
    /** Extra attempts after a transient engine failure (brief: retry once). */
    attempts: number;
    /** Pause before a retry in milliseconds. Ours: 300 ms, long enough for a worker hiccup to settle. */
    delayMs: number;
  };
  grounding: {
    /**
     * Minimum cosine between the answer sentence and the best-matching sentence
     * window of the supporting chunk. Default 0.65 (with overlap 0.7), from an
     * earlier calibration whose pairs were not kept. The reproducible one,
     * `npm run calibrate:grounding` (pairs and measures committed in
     * corpus-build/calibration/grounding-pairs.jsonl; MiniLM q8, 313 pairs from 80
     * chunks: shortened or framed chunk sentences against their own chunk;
     * sentences of the nearest other chunk and of an unrelated chunk against it),
     * measures false support 7.8 % and support recall 99.4 % at these defaults,
     * above the 5 % target; `calibrate()` picks 0.667 / 0.840 there (false support
     * 3.3 %, recall 92.5 %). Real model paraphrases stray further from the source
     * wording than these positives, so recalibrate on labelled real answers when
     * available.
     */
    similarity: number;
    /** Minimum share of the sentence's content tokens found in the chunk (title + text). Default 0.7 (see `similarity`). */
    overlap: number;
    /** Largest sentence window (in chunk sentences) compared with an answer sentence; windows of 1..N are tried. Ours: 2. */
    windowSentences: number;
    /** Cap on windows embedded per chunk (very long chunks). Ours: 80. */
    maxWindowsPerChunk: number;
    /** Every number in a sentence must appear in the supporting chunk. Default true. */
    requireNumbers: boolean;
    /** Sentences with fewer content tokens are not treated as claims (e.g. "See below."). Ours: 3. */
    minClaimTokens: number;
  };
  evidenceOnly: {
    /** Passages shown (brief: up to 5). */
    maxPassages: number;
    /** Highlighted sentences per passage. Ours: 2, enough to point at the governing sentence without marking the whole passage. */
    highlightsPerPassage: number;
    /** With an embedder: a sentence is highlighted only at or above this cosine to the question. Ours: 0.2 (MiniLM's unrelated-text floor). */
    minHighlightSimilarity: number;
  };
}

export const DEFAULT_ANSWER_CONFIG: AnswerConfig = {
  generation: { ...DEFAULT_GENERATION },
  developerMessageMode: 'merge',
  instructions: 'full',
  citationMarkers: 'number',
  answerForm: 'quoted',
  lead: { maxTokens: 96, maxSentences: 2, frequencyPenalty: 0.5, copyJaccard: 0.7 },
  // 6 claims of ≤ 300 characters and the keys fit the 512-token reply (≈ 4.3 characters per token);
  // 3 sources per claim is the bound; a sentence of what is missing, ≤ 300 characters
  structured: { minClaims: 1, maxClaims: 6, maxClaimChars: 300, maxSourcesPerClaim: 3, maxNotInPassagesChars: 300 },
  attribution: true,
  contextMaxChars: null,
  acknowledgement: 'Understood. Send the context section and I will answer using only that context, citing each claim.',
  history: { maxTurns: 4, maxChars: 4000 },
  retry: { attempts: 1, delayMs: 300 },
  grounding: {
    similarity: 0.65,
    overlap: 0.7,
    windowSentences: 2,
    maxWindowsPerChunk: 80,
    requireNumbers: true,
    minClaimTokens: 3,
  },
  evidenceOnly: { maxPassages: 5, highlightsPerPassage: 2, minHighlightSimilarity: 0.2 },
};

export type AnswerConfigOverrides = DeepPartial<AnswerConfig>;

/**
 * The diagnostic smoke profile (`?generation=smoke`): minimal instructions, the first
 * 240 characters of the context (the first passage's marker and the start of its
 * text), a structured answer of one claim and at most 20 tokens, greedy. It exercises the whole path — the worker, the
 * model, streaming, stop, citations filtered to the context — with a prompt of about a
 * hundred tokens, which SwiftShader (≈ 12 s per decoded token) can run in a test.
 */
export const SMOKE_ANSWER_CONFIG: AnswerConfig = {
  ...DEFAULT_ANSWER_CONFIG,
  // the structured form as the app answers, cut to one short claim: 20 tokens reach the claim's text
  // (`{"claims": [{"text": "` takes 8 compact, about 12 with the newlines and indentation WebLLM's
  // grammar lets the model write), so the streamed tokens form a partial claim under the schema
  generation: { ...DEFAULT_ANSWER_CONFIG.generation, max_tokens: 20, temperature: 0, top_p: 1 },
  // a quoted answer's lead of at most 20 tokens over the first quotation, cut to 240 characters
  lead: { ...DEFAULT_ANSWER_CONFIG.lead, maxTokens: 20 },
  structured: { ...DEFAULT_ANSWER_CONFIG.structured, maxClaims: 1, maxClaimChars: 120 },
  instructions: 'minimal',
  contextMaxChars: 240,
};

/**
 * Tokens the instructions take besides the context: the merged system prompt
 * (1,096 tokens with Qwen2.5's tokenizer), the acknowledgement, the context
 * wrapper and the chat template's role markers (1,203 together, measured), plus
 * 100 for the question.
 */
export const INSTRUCTION_TOKENS = 1300;
/**
 * Characters per token assumed for context blocks: 4.35 was measured over every
 * 7th chunk of the index with Qwen2.5's tokenizer; 3.5 leaves room for denser
 * blocks (tables, identifiers, numbers).
 */
export const CONTEXT_CHARS_PER_TOKEN = 3.5;

/**
 * The context budget in characters for a model with a `windowTokens` context
 * window: what is left after the instructions and `max_tokens` of answer, capped
 * at `cap` (the retrieval default, 12,000). WebLLM refuses a prompt longer than
 * the window and stops the answer where the window ends, so a 4,096-token model
 * given the full 12,000-character context (≈ 3,850 prompt tokens, measured) could
 * write about 240 tokens of answer; with this budget (7,994 characters at the
 * defaults) it keeps room for `max_tokens`.
 */
export function contextCharsFor(
  windowTokens: number,
  generation: Pick<GenerationParams, 'max_tokens'> = DEFAULT_ANSWER_CONFIG.generation,
  cap = 12_000,
): number {
  const tokens = windowTokens - generation.max_tokens - INSTRUCTION_TOKENS;
  return Math.max(0, Math.min(cap, Math.floor(tokens * CONTEXT_CHARS_PER_TOKEN)));
}

/** Defaults with overrides applied at any depth (the same merge as the retrieval config). */
export function answerConfig(over: AnswerConfigOverrides = {}, base: AnswerConfig = DEFAULT_ANSWER_CONFIG): AnswerConfig {
  return deepMerge(base, over);
}
