/**
 * A fake SkyCiteRuntime for UI unit tests: a handful of chunks, keyword retrieval by
 * shared words, the real evidence-only composer, context assembler and grounding check
 * (with a bag-of-words embedder). No worker, no model.
 */
import { composeEvidenceOnlyAnswer } from '../../src/core/answer/evidence-only';
import { draftFromPassages } from '../../src/core/agents/requirements';
import { checkGrounding, type GroundingReport } from '../../src/core/answer/grounding';
import { DEFAULT_RETRIEVAL_CONFIG, withConfig } from '../../src/core/retrieval/config';
import { fakeEmbedder } from '../support/fake-embedder';
import type { IndexManifest } from '../../src/core/index/manifest';
import type { Chunk } from '../../src/core/model/chunk';
import { assembleContext } from '../../src/core/retrieval/context';
import type { Filters, RetrievalResult } from '../../src/core/retrieval/types';
import { contentTokens } from '../../src/core/text/tokenize';
import type { AskResult, RetrievalModelStatus, SkyCiteRuntime } from '../../src/runtime/types';
import type { ScopeVerdict } from '../../src/core/ask/types';
import { groundingTexts, quoteAnswer, type QuotedAnswer } from '../../src/core/answer/quotes';
import { documentFrequencies, type UnitCandidate, type UnitRankerModel } from '../../src/core/answer/unit-ranker';
import { quotableUnits, segmentUnits, unitQuote } from '../../src/core/text/units';
import UNIT_RANKER from '../../src/core/answer/unit-ranker.json';

export function chunk(id: string, title: string, text: string, extra: Partial<Chunk> = {}): Chunk {
  return {
    id,
    docId: id.split('/')[0]!,
    kind: 'section',
    title,
    sectionPath: ['AMC1 Article 11', title],
    pageStart: 24,
    pageEnd: 25,
    text,
    summary: text.slice(0, 80),
    keywords: [],
    jurisdiction: 'EU',
    edition: 'Issue 1, Amendment 3',
    language: 'en',
    links: [],
    retrieval: `${title} ${title} ${text}`,
    ...extra,
  };
}

export const CHUNKS: Chunk[] = [
  chunk(
    'easa-amc-gm-2019-947/amc1-art11/s4.2',
    'Step #2 — Determination of the intrinsic ground risk class',
    'The intrinsic ground risk class is determined with Table 1. The UA characteristic dimension and the maximum speed select the column. The population density selects the row.',
  ),
  chunk(
    'easa-amc-gm-2019-947/amc1-art11/s4.7',
    'Step #7 — SAIL determination',
    'The SAIL is determined from the final GRC and the residual ARC. The SAIL represents the level of confidence that the operation will stay under control.',
  ),
  chunk(
    'easa-amc-gm-2019-947/gm1-art2',
    'Operational authorisation',
    'An operational authorisation is issued by the competent authority for operations in the specific category. The operator applies with a risk assessment.',
  ),
];

export const BUILT_IN_MODEL = {
  id: 'skycite/minilm-skycite',
  label: 'MiniLM-L6 tuned on the corpus',
  state: 'default',
  loadMs: 1,
  device: 'wasm',
} as const satisfies RetrievalModelStatus;

/** The fake runtime's manifest hash, as init() reports it. */
export const FAKE_MANIFEST_SHA = 'c'.repeat(64);

export const MANIFEST = {
  formatVersion: 2,
  builtAt: '2025-01-01T00:00:00.000Z',
  builderFingerprint: 'test',
  sources: [
    {
      id: 'easa-amc-gm-2019-947',
      title: 'EASA AMC & GM to Regulation (EU) 2019/947',
      edition: 'Issue 1, Amendment 3',
      jurisdiction: 'EU',
      sha256: '0'.repeat(64),
      via: 'test',
      verbatim: true,
      chunkCount: CHUNKS.length,
      reuseNotice: '© EASA',
      editionNote: 'Amendment document.',
    },
  ],
  model: { id: 'test-model', dtype: 'q8', sha256: '0'.repeat(64), pooling: 'mean', normalized: true },
  chunkCount: CHUNKS.length,
  dimension: 3,
  endianness: 'little',
  artifacts: {},
  parameters: {},
} satisfies IndexManifest;

export interface FakeRuntime extends SkyCiteRuntime {
  /** Every retrieval query, in order. */
  queries: string[];
  /** The filters of every retrieval, in order. */
  filters: (Filters | undefined)[];
  /** Every question the coverage door was asked, in order. */
  coverageQueries: string[];
  /** Make the next calls of a method fail with this error (failure paths). */
  failNext: Partial<Record<'retrieve' | 'evidenceOnly' | 'checkGrounding' | 'useRetrievalModel', Error>>;
}

/**
 * `documents`: retrieve also reports document agents' results, as the real runtime does — a document
 * is a chunk id's first two segments, kept when it owns a retrieved chunk, its refined context the
 * chunks' texts under a header.
 */
/** Quotations as the runtime composes them, over the first passages' units with the stand-in embedder's cosines. */
export async function fakeQuotes(
  question: string,
  passages: readonly Chunk[],
  all: readonly Chunk[],
  embedder: ReturnType<typeof fakeEmbedder>,
): Promise<QuotedAnswer> {
  const [q] = await embedder.embed([question]);
  const candidates: UnitCandidate[] = [];
  for (const [p, chunk] of passages.slice(0, 5).entries()) {
    const units = quotableUnits(segmentUnits(chunk));
    const vs = units.length ? await embedder.embed(units.map(unitQuote)) : [];
    units.forEach((unit, position) =>
      candidates.push({
        chunkId: chunk.id,
        unit,
        passageRank: p + 1,
        passageShare: 1 - p * 0.1,
        passageDense: 0.5,
        passageWindow: 0.5,
        cosine: vs[position]!.reduce((s, v, k) => s + v * q![k]!, 0),
        unitsInPassage: units.length,
        position,
      }),
    );
  }
  return quoteAnswer(question, candidates, documentFrequencies(all.map((c) => c.text)), UNIT_RANKER as unknown as UnitRankerModel);
}

export function createFakeRuntime(chunks: Chunk[] = CHUNKS, options: { documents?: boolean; scope?: ScopeVerdict; quotes?: boolean } = {}): FakeRuntime {
  const queries: string[] = [];
  const coverageQueries: string[] = [];
  const filterLog: (Filters | undefined)[] = [];
  const failNext: FakeRuntime['failNext'] = {};
  const fail = (method: keyof FakeRuntime['failNext']) => {
    const e = failNext[method];
    if (e) {
      delete failNext[method];
      throw e;
    }
  };
  const embedder = fakeEmbedder(64);
  const withDocuments = options.documents === true;
  let activeModel: string = BUILT_IN_MODEL.id;
  const retrieveSync = (query: string, options: Parameters<SkyCiteRuntime['retrieve']>[1]): AskResult => {
    const q = new Set(contentTokens(query));
    const scored = chunks
      .map((c, row) => ({ c, row, score: contentTokens(`${c.title} ${c.text}`).filter((t) => q.has(t)).length }))
      .filter((x) => x.score >= 2)
      .sort((a, b) => b.score - a.score);
    const ctx = assembleContext(
      scored.map((s) => s.c),
      12_000,
    );
    const retrieval: RetrievalResult = {
      query,
      evidence: scored.map((s) => ({
        id: s.c.id,
        row: s.row,
        score: s.score / 10,
        parts: { dense: 0, window: 0, summary: 0, fused: 0, keywordHits: s.score, rerank: null },
      })),
      noEvidence: scored.length === 0,
      context: ctx.context,
      filters: {},
      broadened: false,
      trace: [
        {
          stage: 'shared words',
          ms: 0,
          candidates: scored.map((x) => ({ id: x.c.id, score: x.score })),
          note: scored.length ? 'ok' : 'best dense cosine 0.100 < 0.35: no evidence',
        },
      ],
      ranked: scored.map((s) => ({ id: s.c.id, row: s.row, score: s.score / 10, kept: true })),
      gates: [
        scored.length
          ? { passed: true, source: 'dense', score: 0.5, threshold: 0.35, note: 'best dense cosine 0.500 ≥ 0.35' }
          : { passed: false, source: 'dense', score: 0.1, threshold: 0.35, note: 'best dense cosine 0.100 < 0.35' },
      ],
      totalMs: 0,
    };
    const result: AskResult = { retrieval, config: withConfig(DEFAULT_RETRIEVAL_CONFIG, options?.config), chunks: scored.map((s) => s.c) };
    if (!withDocuments || !scored.length) return result;
    const docOf = (c: Chunk) => c.id.split('/').slice(0, 2).join('/');
    const docIds = [...new Set(scored.map((s) => docOf(s.c)))];
    const consulted = docIds.map((id, i) => {
      const own = scored.filter((s) => docOf(s.c) === id);
      return {
        id,
        title: own[0]!.c.sectionPath[0]!,
        edition: own[0]!.c.edition,
        pages: 'pp. 24–25',
        rank: i + 1,
        reason: `owns ${own.length} of the top passages`,
        kept: true,
        evidenceIds: own.map((s) => s.c.id),
        refined: [`[Document: ${id}]`, ...own.map((s) => `[${s.c.id}] ${s.c.title}: ${s.c.text}`)].join('\n'),
      };
    });
    return {
      ...result,
      documents: {
        mode: 'fact',
        editionNote: null,
        consulted,
        evidence: retrieval.evidence,
        chunks: result.chunks,
        context: consulted.map((c) => c.refined).join('\n\n'),
      },
    };
  };
  return {
    queries,
    coverageQueries,
    filters: filterLog,
    failNext,
    async init() {
      return {
        manifest: MANIFEST,
        manifestSha: FAKE_MANIFEST_SHA,
        scope: 'unavailable',
        device: 'wasm',
        deviceChoice: { device: 'wasm', forced: false, reason: 'no WebGPU adapter', detail: 'WASM: no WebGPU adapter.', adapter: null },
        chunkCount: chunks.length,
        loadMs: { index: 1, model: 1 },
        dense: { backend: 'exact', buildMs: null },
        reranker: { state: 'off', loadMs: null },
        retrievalModel: BUILT_IN_MODEL,
        threads: { threads: 1, isolated: false, forced: false, line: 'single-threaded — not cross-origin isolated (test runtime)' },
      };
    },
    async retrieve(query, options) {
      queries.push(query);
      filterLog.push(options?.filters);
      fail('retrieve');
      return retrieveSync(query, options);
    },
    async coverage(query) {
      coverageQueries.push(query);
      return options.scope ?? null;
    },
    async evidenceOnly(question, result) {
      fail('evidenceOnly');
      // the app's quoted answer: the committed unit ranker over the passages' units (cosine from the stand-in embedder)
      const quoted = options.quotes === false || result.retrieval.noEvidence ? null : await fakeQuotes(question, result.chunks, chunks, embedder);
      return composeEvidenceOnlyAnswer({ question, retrieval: result.retrieval, chunks: result.chunks, quoted });
    },
    async checkGrounding(answer, ids): Promise<GroundingReport> {
      fail('checkGrounding');
      return checkGrounding({ answer, chunks: groundingTexts(ids, (id) => chunks.find((c) => c.id === id)), embedder });
    },
    async draftRequirements(description) {
      // the shared-words stand-in's passages, one document
      const r = retrieveSync(description, undefined);
      return draftFromPassages(
        description,
        r.chunks.map((chunk, i) => ({ chunk, documentTitle: chunk.docId, documentEdition: chunk.edition, rank: i + 1, sourceVerbatim: true })),
        [],
      );
    },
    async getChunk(id) {
      return chunks.find((c) => c.id === id) ?? null;
    },
    async outline() {
      return [];
    },
    async keywordSearch() {
      return [];
    },
    async retrievalModels() {
      return [
        {
          id: BUILT_IN_MODEL.id,
          label: BUILT_IN_MODEL.label,
          builtIn: true,
          active: activeModel === BUILT_IN_MODEL.id,
          downloadBytes: 0,
          licence: { name: 'Apache-2.0', url: 'https://www.apache.org/licenses/LICENSE-2.0', notice: 'MiniLM.' },
        },
        {
          id: 'test/large-model',
          label: 'Large test model',
          builtIn: false,
          active: activeModel === 'test/large-model',
          downloadBytes: 2_000_000,
          licence: { name: 'Test Terms', url: 'https://example.invalid/terms', notice: 'Test model notice.' },
        },
      ];
    },
    async useRetrievalModel(id, onProgress) {
      fail('useRetrievalModel');
      if (id === null || id === BUILT_IN_MODEL.id) {
        activeModel = BUILT_IN_MODEL.id;
        return BUILT_IN_MODEL;
      }
      for (const loaded of [500_000, 1_000_000, 2_000_000]) onProgress?.({ file: 'onnx/model_quantized.onnx', loaded, total: 2_000_000 });
      activeModel = id;
      return { id, label: 'Large test model', state: 'on', loadMs: 5, device: 'wasm' };
    },
    // the user's documents: none in this stand-in (tests/runtime/user-documents.test.ts runs the real ones)
    async loadUserDocuments() {
      return { documents: [], problems: [] };
    },
    async listUserDocuments() {
      return [];
    },
    async syncUserDocuments() {
      return { documents: [], problems: [] };
    },
    async addUserDocument() {
      throw new Error('not supported by the stand-in runtime');
    },
    async removeUserDocument() {},
    async reindexUserDocument() {
      throw new Error('not supported by the stand-in runtime');
    },
    async exportUserDocument() {
      throw new Error('not supported by the stand-in runtime');
    },
    async cancelUserDocumentImport() {
      return false;
    },
    dispose() {},
  };
}
