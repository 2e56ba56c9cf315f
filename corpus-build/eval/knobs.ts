/**
 * The tunable choices of the retrieval pipeline that `npm run eval -- --cv K`
 * cross-validates. The first value of each is the current default. Thresholds of
 * the evidence gate are not here: they are calibrated on synthetic questions,
 * never chosen on evaluation questions.
 */
import type { RetrievalConfigOverrides } from '../../src/core/retrieval/config.js';

export interface KnobValue {
  label: string;
  over: RetrievalConfigOverrides;
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
  { name: 'passage windows', values: [{ label: 'on', over: {} }, { label: 'off', over: { windows: { enabled: false } } }] },
  { name: 'abbreviation expansion', values: [{ label: 'off', over: {} }, { label: 'on', over: { expansion: { enabled: true } } }] },
  {
    name: 'BM25 k1',
    values: [{ label: '1.5', over: {} }, { label: '0.9', over: { bm25: { k1: 0.9 } } }, { label: '1.2', over: { bm25: { k1: 1.2 } } }, { label: '2.0', over: { bm25: { k1: 2 } } }],
  },
  { name: 'BM25 b', values: [{ label: '0.75', over: {} }, { label: '0.5', over: { bm25: { b: 0.5 } } }, { label: '0.9', over: { bm25: { b: 0.9 } } }] },
  {
    name: 'RRF k',
    values: [{ label: '60', over: {} }, { label: '10', over: { rrf: { k: 10 } } }, { label: '30', over: { rrf: { k: 30 } } }, { label: '100', over: { rrf: { k: 100 } } }],
  },
  { name: 'MMR', values: [{ label: 'off', over: {} }, { label: 'λ=0.6', over: { mmr: { enabled: true } } }] },
  { name: 'post-scoring', values: [{ label: 'off', over: {} }, { label: 'on', over: { postScore: { enabled: true } } }] },
];
