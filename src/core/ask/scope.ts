/**
 * "Not in these documents": the coverage knowledge (src/core/coverage: the instruments the documents
 * reference without holding them, and the decision fitted on synthetic questions) applied to one
 * question and its retrieval. Bound to the index it was built from: with a stale binding it decides
 * nothing (and says so), never on ids that moved.
 */
import { absentInstruments, coverageBinding, parseCoverage } from '../coverage/load.js';
import { decideAnswerability, evidenceSignal, instrumentText, nearestInstrument, notInDocumentsMessage, type DecisionModel } from '../coverage/decide.js';
import type { CoverageData } from '../coverage/types.js';
import type { Embedder } from '../embedding/embedder.js';
import type { IndexManifest } from '../index/manifest.js';
import type { RetrievalResult } from '../retrieval/types.js';
import type { ScopeVerdict } from './types.js';

export interface Scope {
  /** 'stale': the coverage data was built from other chunks; no verdict is given. */
  readonly binding: 'current' | 'same-chunks' | 'stale';
  /** The embedder the decision reads query vectors from (a caller holding its vector of the question passes it). */
  readonly embedder: Pick<Embedder, 'embed'>;
  /** The verdict for a question and its retrieval (null: it may be answered here); `queryVector`: the question's vector by `embedder`, when already computed. */
  decide(question: string, retrieval: RetrievalResult, queryVector?: Float32Array): Promise<ScopeVerdict | null>;
}

/**
 * `embedder`: the model the decision was fitted with (the index's built-in one) for the
 * nearest-instrument feature; its instrument vectors are computed on first use.
 */
export function createScope(
  coverageJson: unknown,
  model: DecisionModel,
  manifest: Pick<IndexManifest, 'artifacts'> & { sha256?: string },
  manifestSha: string,
  embedder: Pick<Embedder, 'embed'>,
): Scope {
  const data: CoverageData = parseCoverage(coverageJson);
  const binding = coverageBinding(data, {
    manifestSha256: manifestSha,
    ...(manifest.artifacts['chunks.json'] ? { chunksSha256: manifest.artifacts['chunks.json'].sha256 } : {}),
  });
  let vectors: Promise<{ id: string; vector: Float32Array }[]> | null = null;
  const instrumentVectors = () =>
    (vectors ??= (async () => {
      const absent = absentInstruments(data);
      const vs = await embedder.embed(absent.map(instrumentText), 'document');
      return absent.map((i, k) => ({ id: i.id, vector: vs[k]! }));
    })());
  return {
    binding,
    embedder,
    async decide(question, retrieval, queryVector) {
      if (binding === 'stale') return null;
      const near = model.similarity ? nearestInstrument(queryVector ?? (await embedder.embed([question], 'query'))[0]!, await instrumentVectors()) : null;
      const a = decideAnswerability(question, data, evidenceSignal(retrieval), model, near);
      if (a.verdict !== 'not-in-documents') return null;
      return { message: notInDocumentsMessage(a.hit), instrument: a.hit.instrument.label, location: a.hit.instrument.location };
    },
  };
}
