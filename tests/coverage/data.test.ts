/** The committed coverage data and template questions are valid and current. */
import { existsSync, readFileSync } from 'node:fs';
import { createHash } from 'node:crypto';
import { describe, expect, it } from 'vitest';
import coverageJson from '../../src/core/coverage/coverage.json';
import { absentInstruments, parseCoverage } from '../../src/core/coverage/load.js';
import { coverageOf } from '../../src/core/coverage/match.js';
import { INSTRUMENTS } from '../../corpus-build/coverage/instruments.js';
import { templateQuestions } from '../../corpus-build/coverage/templates.js';
import { DECISION_FEATURES, decideAnswerability, type DecisionModel } from '../../src/core/coverage/decide.js';

const data = parseCoverage(coverageJson);
const sha = (b: Buffer | string) => createHash('sha256').update(b).digest('hex');

describe('committed coverage.json', () => {
  it('holds every instrument of corpus-build/coverage/instruments.ts and no unclaimed reference', () => {
    expect(data.instruments.map((i) => i.id)).toEqual(INSTRUMENTS.map((i) => i.id));
    expect(data.unclaimed).toEqual([]);
  });

  it('names the Regulation’s Articles, Part-UAS points and Regulation 2019/945 as absent, and the SORA’s own Article 11 as covered', () => {
    const status = Object.fromEntries(data.instruments.map((i) => [i.id, i.status]));
    expect(status).toMatchObject({
      'r947-art14': 'absent',
      'r947-open': 'absent',
      'uas-spec-050': 'absent',
      r945: 'absent',
      'r947-art11': 'guidance-present',
      'uas-spec-030': 'guidance-present',
    });
  });

  it('every absent instrument the corpus mentions lists its mentioning chunks', () => {
    for (const i of absentInstruments(data)) expect(i.mentions.chunks.length > 0 || i.mentions.count === 0).toBe(true);
  });

  it.skipIf(!existsSync('static-index/manifest.json'))('is bound to the static index’s chunks (rebuild with npm run coverage:build when this fails)', () => {
    const manifest = JSON.parse(readFileSync('static-index/manifest.json', 'utf8')) as { artifacts: Record<string, { sha256: string }> };
    expect(data.index.chunksSha256).toBe(manifest.artifacts['chunks.json']!.sha256);
  });
});

describe('template questions', () => {
  it('the committed file is what the templates write, with the SHA-256 in its meta file', () => {
    const file = readFileSync('corpus-build/data/coverage-template-questions.jsonl', 'utf8');
    const meta = JSON.parse(readFileSync('corpus-build/data/coverage-template-questions.meta.json', 'utf8')) as { sha256: string; questions: number };
    expect(sha(file)).toBe(meta.sha256);
    expect(file.trim().split('\n')).toHaveLength(templateQuestions(data.instruments).length);
  });

  it('a question that cites an absent instrument is recognised as that instrument', () => {
    const cited = templateQuestions(data.instruments).filter((q) => q.style === 'names_rule' && q.instrument === 'r947-art14');
    expect(cited.length).toBeGreaterThan(0);
    for (const q of cited) expect(coverageOf(q.q, data)?.instrument.id).toBe('r947-art14');
  });
});

describe('committed decision model', () => {
  const model = JSON.parse(readFileSync('src/core/coverage/decision-model.json', 'utf8')) as DecisionModel;
  it('uses known features with one weight, mean and spread each, and a threshold in (0, 1)', () => {
    for (const f of model.features) expect(DECISION_FEATURES).toContain(f);
    for (const a of [model.weights, model.mean, model.std]) expect(a).toHaveLength(model.features.length);
    expect(model.threshold).toBeGreaterThan(0);
    expect(model.threshold).toBeLessThan(1);
  });
  it('refuses a question citing an absent Article when the passages match weakly, and keeps a SORA question whose passages match closely', () => {
    const weak = { noEvidence: false, gateScore: 0.1, topDense: 0.3, topWindow: 0.3, topIds: [] };
    const strong = { noEvidence: false, gateScore: 0.95, topDense: 0.8, topWindow: 0.85, topIds: [] };
    const cited = decideAnswerability('What does Article 14 of Regulation (EU) 2019/947 require?', data, weak, model, { id: 'r947-art14', score: 0.7 });
    expect(cited.verdict === 'not-in-documents' && cited.hit.instrument.id).toBe('r947-art14');
    expect(
      decideAnswerability('How is the final ground risk class reduced by M1 mitigations?', data, strong, model, { id: 'r947-open', score: 0.2 }).verdict,
    ).toBe('answerable');
  });
});
