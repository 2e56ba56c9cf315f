/**
 * "Not in these documents" in the one retrieval the app, the CLIs and the evals share: the shipped
 * coverage data decides only for the index it was built from, and a verdict reaches the turn's result.
 */
import { readFileSync } from 'node:fs';
import { describe, expect, it } from 'vitest';
import { createScope } from '../../src/core/ask/scope';
import { DECISION_FEATURES, type DecisionModel } from '../../src/core/coverage/decide';
import type { RetrievalResult } from '../../src/core/retrieval/types';
import { fakeEmbedder } from '../support/fake-embedder';

const COVERAGE = JSON.parse(readFileSync('src/core/coverage/coverage.json', 'utf8')) as { index: { manifestSha256: string; chunksSha256: string } };
/** A decision that refuses whenever the question names an absent instrument (feature "named"), for the wiring. */
const NAMED_REFUSES: DecisionModel = {
  version: 1,
  features: DECISION_FEATURES,
  mean: DECISION_FEATURES.map(() => 0),
  std: DECISION_FEATURES.map(() => 1),
  weights: DECISION_FEATURES.map((f) => (f === 'named' ? 10 : 0)),
  bias: -5,
  threshold: 0.5,
  provenance: {},
};
const EMPTY: RetrievalResult = {
  query: 'q',
  evidence: [],
  noEvidence: true,
  context: '',
  filters: {},
  broadened: false,
  ranked: [],
  gates: [],
  trace: [],
  totalMs: 0,
};
const manifest = (chunksSha256: string) => ({ artifacts: { 'chunks.json': { sha256: chunksSha256, bytes: 1 } } });

describe('not in these documents, bound to its index', () => {
  it('names where the rule lives for a question about an instrument the documents do not hold', async () => {
    const scope = createScope(COVERAGE, NAMED_REFUSES, manifest(COVERAGE.index.chunksSha256), 'other-manifest', fakeEmbedder());
    expect(scope.binding).toBe('same-chunks');
    const v = await scope.decide('How high may I fly in the open category?', EMPTY);
    expect(v?.message).toMatch(/UAS\.OPEN.*not included in these documents/);
    expect(await scope.decide('Which robustness does OSO #08 need at SAIL IV?', EMPTY)).toBeNull();
  });

  it('gives no verdict when the coverage data was built from other chunks (ids and counts may have moved)', async () => {
    const scope = createScope(COVERAGE, NAMED_REFUSES, manifest('0'.repeat(64)), 'other-manifest', fakeEmbedder());
    expect(scope.binding).toBe('stale');
    expect(await scope.decide('How high may I fly in the open category?', EMPTY)).toBeNull();
  });
});
