/**
 * The tunable choices of the retrieval pipeline that `npm run eval -- --cv K`
 * cross-validates. The first value of each is the current default. Thresholds of
 * the evidence gate are not here: they are calibrated on synthetic questions,
 * never chosen on evaluation questions.
 */
import type { RetrievalConfigOverrides } from '../../src/core/retrieval/config.js';
import type { AgentConfig } from '../../src/core/agents/agents.js';

export interface KnobValue {
  label: string;
  over: RetrievalConfigOverrides;
  /** Overrides of the document agents' configuration (agent knobs only). */
  agent?: Partial<AgentConfig>;
}
export interface Knob {
  name: string;
  values: KnobValue[];
}

export const KNOBS: Knob[] = [
  {
    name: 'ranked lists',
    values: [
      { label: 'dense + windows + BM25', over: {} },
      { label: 'dense + windows', over: { bm25: { enabled: false } } },
      { label: 'BM25 only', over: { dense_enabled: false } },
    ],
  },
  {
    name: 'passage windows',
    values: [
      { label: 'on', over: {} },
      { label: 'off', over: { windows: { enabled: false } } },
    ],
  },
  {
    name: 'identifiers as the documents write them',
    values: [
      { label: 'on', over: {} },
      { label: 'off', over: { identifiers: { enabled: false } } },
    ],
  },
  {
    name: 'abbreviation expansion',
    values: [
      { label: 'off', over: {} },
      { label: 'on', over: { expansion: { enabled: true } } },
    ],
  },
  {
    name: 'BM25 k1',
    values: [
      { label: '1.5', over: {} },
      { label: '0.9', over: { bm25: { k1: 0.9 } } },
      { label: '1.2', over: { bm25: { k1: 1.2 } } },
      { label: '2.0', over: { bm25: { k1: 2 } } },
    ],
  },
  {
    name: 'BM25 b',
    values: [
      { label: '0.75', over: {} },
      { label: '0.5', over: { bm25: { b: 0.5 } } },
      { label: '0.9', over: { bm25: { b: 0.9 } } },
    ],
  },
  {
    name: 'RRF k',
    values: [
      { label: '10', over: {} },
      { label: '60', over: { rrf: { k: 60 } } },
      { label: '30', over: { rrf: { k: 30 } } },
      { label: '100', over: { rrf: { k: 100 } } },
    ],
  },
  {
    name: 'fusion: BM25 weight',
    values: [
      { label: '1', over: {} },
      { label: '0.5', over: { rrf: { weights: { bm25: 0.5 } } } },
      { label: '0.25', over: { rrf: { weights: { bm25: 0.25 } } } },
      { label: '0', over: { rrf: { weights: { bm25: 0 } } } },
    ],
  },
  {
    name: 'fusion: windows weight',
    values: [
      { label: '1', over: {} },
      { label: '0.5', over: { rrf: { weights: { windows: 0.5 } } } },
      { label: '0', over: { rrf: { weights: { windows: 0 } } } },
    ],
  },
  {
    name: 'fusion: dense weight',
    values: [
      { label: '1', over: {} },
      { label: '1.5', over: { rrf: { weights: { dense: 1.5 } } } },
      { label: '2', over: { rrf: { weights: { dense: 2 } } } },
    ],
  },
  {
    name: 'fusion: indexed-questions weight',
    values: [
      { label: '1', over: {} },
      { label: '0.5', over: { rrf: { weights: { questions: 0.5 } } } },
      { label: '2', over: { rrf: { weights: { questions: 2 } } } },
    ],
  },
  {
    name: 'MMR',
    values: [
      { label: 'off', over: {} },
      { label: 'λ=0.6', over: { mmr: { enabled: true } } },
    ],
  },
  {
    name: 'post-scoring',
    values: [
      { label: 'off', over: {} },
      { label: 'on', over: { postScore: { enabled: true } } },
    ],
  },
  {
    name: 'current edition first',
    values: [
      { label: 'off', over: {} },
      { label: 'within 0.9', over: { editionOrder: { enabled: true, ratio: 0.9 } } },
      { label: 'within 0.75', over: { editionOrder: { enabled: true, ratio: 0.75 } } },
      { label: 'always', over: { editionOrder: { enabled: true, ratio: 0 } } },
    ],
  },
];

/**
 * The document agents' tunable choices, cross-validated by `npm run eval -- --agents --cv K`
 * (with `--knobs agents` to skip the retrieval knobs). The first value of each is the
 * default of DEFAULT_AGENT_CONFIG.
 */
export const AGENT_KNOBS: Knob[] = [
  {
    name: 'agents: selection weights',
    values: [
      { label: 'hits only', over: {}, agent: {} },
      { label: 'summary .25 / hits .75', over: {}, agent: { summaryWeight: 0.25, hitsWeight: 0.75 } },
      { label: 'summary .5 / hits .5', over: {}, agent: { summaryWeight: 0.5, hitsWeight: 0.5 } },
      { label: 'summary only', over: {}, agent: { summaryWeight: 1, hitsWeight: 0 } },
    ],
  },
  {
    name: 'agents: hit rank constant',
    values: [
      { label: 'k 60', over: {}, agent: {} },
      { label: 'k 10', over: {}, agent: { k: 10 } },
      { label: 'k 1', over: {}, agent: { k: 1 } },
    ],
  },
  {
    name: 'agents: hit pool',
    values: [
      // the default: top 20, or the embedder's cross-validated choice (agents.ts EMBEDDER_AGENT_CHOICES)
      { label: 'default', over: {}, agent: {} },
      { label: 'top 10', over: {}, agent: { hitPool: 10 } },
      { label: 'top 20', over: {}, agent: { hitPool: 20 } },
      { label: 'top 40', over: {}, agent: { hitPool: 40 } },
    ],
  },
  {
    name: 'agents: flat top passage',
    values: [
      { label: 'its document kept', over: {}, agent: {} },
      { label: 'not forced', over: {}, agent: { keepFlatTop: false } },
    ],
  },
  {
    name: 'agents: flat evidence',
    values: [
      { label: 'in-document only', over: {}, agent: {} },
      { label: 'kept in its document', over: {}, agent: { keepFlatEvidence: true } },
    ],
  },
  {
    name: 'agents: in-document lists',
    values: [
      { label: 'dense + windows', over: {}, agent: {} },
      { label: 'as the flat run', over: {}, agent: { inDocument: {} } },
    ],
  },
  {
    name: 'agents: gate-dropped place',
    values: [
      { label: 'left empty', over: {}, agent: {} },
      { label: 'next document', over: {}, agent: { backfill: true } },
    ],
  },
  {
    name: 'agents: merge',
    values: [
      { label: 'global', over: {}, agent: {} },
      { label: 'weighted-rrf', over: {}, agent: { merge: 'weighted-rrf' } },
    ],
  },
];
