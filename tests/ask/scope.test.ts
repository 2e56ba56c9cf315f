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
/** A decision that refuses every candidate (named, subject or nearest instrument): what a notice says, and whom it names, is then the coverage data's alone. */
const ALWAYS_REFUSES: DecisionModel = { ...NAMED_REFUSES, weights: DECISION_FEATURES.map(() => 0), bias: 5, similarity: true };
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

describe('coverage notices point right (category and subject; subjects the documents do not cover)', () => {
  const scope = () => createScope(COVERAGE, ALWAYS_REFUSES, manifest(COVERAGE.index.chunksSha256), 'other-manifest', fakeEmbedder());
  const NAMES_AN_INSTRUMENT = /Regulation \(E[UC]\)|Directive|Article \d|UAS\.|ICAO|CFR/;

  it('the specific-category competence question gets no UAS.OPEN notice', async () => {
    for (const q of [
      'What competence does the remote pilot need in the specific category?',
      'Does a remote pilot in the specific category need a certificate?',
      'What training does the remote pilot need for a PDRA-S01 operation?',
    ]) {
      const v = await scope().decide(q, EMPTY);
      expect(v?.location ?? '', q).not.toMatch(/UAS\.OPEN|Part A of the Annex|Article 4\b/);
    }
    // the same subject in the 'open' category is sent there
    expect((await scope().decide('What does the A2 certificate of competency require in the open category?', EMPTY))?.location).toMatch(/UAS\.OPEN/);
  });

  it('an insurance question gets a "not covered" notice naming no instrument without a source', async () => {
    const v = await scope().decide('Do I need insurance to fly my drone?', EMPTY);
    expect(v?.message).toMatch(/^These documents do not cover insurance: /);
    // where the documents say it: the SORA's scope and the application and authorisation forms
    expect(v?.message).toContain('AMC1 Article 11, S.1.3');
    expect(v?.message).toContain('EASA Form 208');
    const said = v!.message.replace(/\([^()]*(?:\([^()]*\)[^()]*)*\)/g, ''); // the sources' own names aside
    expect(said).not.toMatch(NAMES_AN_INSTRUMENT);
    expect(v?.location).not.toMatch(NAMES_AN_INSTRUMENT);
  });

  it('a geographical-zone question names Article 15 of 2019/947 with its source', async () => {
    for (const q of ['Which geographical zones restrict drone flights?', 'Can I fly my drone near an airport?']) {
      const v = await scope().decide(q, EMPTY);
      expect(v?.message, q).toMatch(/^These documents do not cover geographical zones.*Article 15 of Regulation \(EU\) 2019\/947/);
      expect(v?.message, q).toMatch(/\(AMC1 Article 11, S\.2\.4 \(p\. \d+\); AMC1 Article 11, Annex I, I\.7 \(p\. \d+\)\)/);
    }
  });
});
