/**
 * The ablation flags of `npm run eval` (corpus-build/cli/eval.ts) as retrieval-config overrides:
 * one table, applied in its order with the one configuration merge (src/core/config/merge.ts), so
 * two flags that touch one stage both take effect. Flags that ask for opposite things are refused
 * instead of letting the later one win silently.
 */
import { deepMerge } from '../../src/core/config/merge.js';
import type { RetrievalConfigOverrides } from '../../src/core/retrieval/config.js';

export const ABLATION_FLAGS = {
  'dense-only': { bm25: { enabled: false } },
  'bm25-only': { dense_enabled: false, mmr: { enabled: false } },
  post: { postScore: { enabled: true } },
  rerank: { rerank: { enabled: true } },
  'no-rerank': { rerank: { enabled: false } },
  'no-threshold': { gate: { enabled: false } },
  mmr: { mmr: { enabled: true } },
  elbow: { elbow: { enabled: true } },
  'no-windows': { windows: { enabled: false } },
  'no-questions': { questions: { enabled: false } },
  expansion: { expansion: { enabled: true } },
  voy: { dense: { pool: 50, backend: 'voy' } },
  // the fusion constant before the bank's CV picked k = 10 (60: Cormack et al.'s value), for comparing on held-out questions
  'rrf-k60': { rrf: { k: 60 } },
} as const satisfies Record<string, RetrievalConfigOverrides>;

export type AblationFlag = keyof typeof ABLATION_FLAGS;

/** Pairs that cannot both hold: reranking on and off; no ranked list left at all. */
export const CONTRADICTORY_FLAGS: readonly (readonly [AblationFlag, AblationFlag])[] = [
  ['rerank', 'no-rerank'],
  ['dense-only', 'bm25-only'],
];

export type AblationResult = { ok: true; over: RetrievalConfigOverrides } | { ok: false; message: string };

/**
 * The overrides the set flags ask for (`flags`: parsed options, a flag is set when its value is
 * `true`), or why they cannot be combined. `table` is for tests; the CLI uses ABLATION_FLAGS.
 */
export function ablationOverrides(
  flags: Readonly<Record<string, unknown>>,
  table: Readonly<Record<string, RetrievalConfigOverrides>> = ABLATION_FLAGS,
  contradictions: readonly (readonly [string, string])[] = CONTRADICTORY_FLAGS,
): AblationResult {
  const clash = contradictions.find(([a, b]) => flags[a] === true && flags[b] === true);
  if (clash) return { ok: false, message: `--${clash[0]} and --${clash[1]} contradict each other: choose one.` };
  let over: RetrievalConfigOverrides = {};
  for (const [flag, o] of Object.entries(table)) if (flags[flag] === true) over = deepMerge(over, o);
  return { ok: true, over };
}
