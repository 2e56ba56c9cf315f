/** The evidence gate's thresholds belong to the models they were calibrated with. */
import { createHash } from 'node:crypto';
import { readFileSync } from 'node:fs';
import path from 'node:path';
import { describe, expect, it } from 'vitest';
import GATE_CALIBRATION from '../../src/core/retrieval/gate-calibration.json';
import { DEFAULT_RETRIEVAL_CONFIG, gateForEmbedder, gateForIndexModel, preferredGateScore } from '../../src/core/retrieval/config.js';
import { DEFAULT_EMBEDDER_ID } from '../../src/core/embedding/embedder.js';
import { RERANKER_ID } from '../../src/core/retrieval/reranker-id.js';
import { repoRoot } from '../support/paths.js';

const sha = (rel: string) =>
  createHash('sha256')
    .update(readFileSync(path.join(repoRoot, rel)))
    .digest('hex');

describe('gate calibration', () => {
  it('was made with the shipped embedder and reranker (recalibrate with npm run calibrate:gate after retraining)', () => {
    expect(GATE_CALIBRATION.embedder.file).toBe(`public/models/${DEFAULT_EMBEDDER_ID}/onnx/model_quantized.onnx`);
    expect(sha(GATE_CALIBRATION.embedder.file)).toBe(GATE_CALIBRATION.embedder.sha256);
    expect(GATE_CALIBRATION.reranker?.file).toBe(`public/models/${RERANKER_ID}/onnx/model_quantized.onnx`);
    expect(sha(GATE_CALIBRATION.reranker!.file)).toBe(GATE_CALIBRATION.reranker!.sha256);
  });

  it('the defaults take the calibrated thresholds and the score that refuses more unanswerable questions', () => {
    expect(DEFAULT_RETRIEVAL_CONFIG.gate.minDense).toBe(GATE_CALIBRATION.dense.threshold);
    expect(DEFAULT_RETRIEVAL_CONFIG.gate.minRerank).toBe(GATE_CALIBRATION.rerank!.threshold);
    expect(DEFAULT_RETRIEVAL_CONFIG.gate.by).toBe(preferredGateScore(GATE_CALIBRATION));
  });

  it('prefers the reranker only when it refuses the larger share of unanswerable questions', () => {
    const side = (a: number, b: number) => ({ unanswerable: { offTopic: { n: 10, refused: a }, ownPassageLeftOut: { n: 10, refused: b } } });
    expect(preferredGateScore({ dense: side(0.3, 0.05), rerank: side(0.02, 0.04) })).toBe('dense');
    expect(preferredGateScore({ dense: side(0.1, 0.05), rerank: side(0.4, 0.1) })).toBe('rerank');
    expect(preferredGateScore({ dense: side(0.1, 0.05), rerank: null })).toBe('dense');
  });

  it('refuses the threshold of another build of a calibrated model, naming the file, both SHA-256s and the command', () => {
    const other = 'f'.repeat(64);
    expect(() => gateForIndexModel({ id: DEFAULT_EMBEDDER_ID, sha256: other })).toThrow(
      new RegExp(`${GATE_CALIBRATION.embedder.file}.*${GATE_CALIBRATION.embedder.sha256}.*${other}.*npm run calibrate:gate -- --all-offtopic`),
    );
    expect(() => gateForEmbedder('test/uncalibrated')).toThrow(
      /No calibrated evidence gate for test\/uncalibrated: run `npm run calibrate:gate -- --embedder test\/uncalibrated/,
    );
  });

  it('gives the build it was calibrated on its own thresholds, and a model no calibration names the default', () => {
    expect(gateForIndexModel({ id: DEFAULT_EMBEDDER_ID, sha256: GATE_CALIBRATION.embedder.sha256 })).toEqual(DEFAULT_RETRIEVAL_CONFIG.gate);
    expect(gateForIndexModel({ id: 'test/fake-embedder', sha256: 'x' })).toEqual(DEFAULT_RETRIEVAL_CONFIG.gate);
  });
});
