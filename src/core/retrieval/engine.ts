/**
 * The hybrid retrieval engine: dense (exact | voy) → MMR → BM25 → RRF →
 * post-score → rerank → elbow → no-evidence rule → context. Filters with one
 * broadening fallback. Every call returns a full trace with per-stage timings.
 * Pure TypeScript: the same engine runs in Node (CLI, eval, bench) and in the
 * browser worker; the embedder, dense backend and reranker are injected.
 */
import type { Embedder } from '../embedding/embedder.js';
import type { LoadedIndex } from '../index/load.js';
import { bm25Search } from './bm25-search.js';
import { type RetrievalConfig, DEFAULT_RETRIEVAL_CONFIG, type RetrievalConfigOverrides, RetrievalConfigError, withConfig } from './config.js';
import { assembleContext } from './context.js';
import type { Chunk } from '../model/chunk.js';
import { editionNote, shortEdition } from '../text/edition.js';
import { type DenseBackend, exactBackend } from './dense.js';
import { elbowCut } from './elbow.js';
import { allowedRows, hasFilters, isEasaJurisdiction } from './filters.js';
import { mmr } from './mmr.js';
import { postScore, type PostScored } from './post-score.js';
import type { Reranker } from './rerank.js';
import { rrf } from './rrf.js';
import { abbreviationLexicon, abbreviationsFromChunks } from './abbreviations.js';
import { windowScorer } from './windows.js';
import type { Evidence, Filters, GateVerdict, RerankStatus, RetrievalResult, Scored, StageTrace } from './types.js';
import { rerankText } from './rerank-input.js';
import { identifierFormsFromTexts, normaliseIdentifiers } from '../text/identifiers.js';
import { embedQuery, withQueryEmbedding } from './query-vectors.js';

export interface RetrieveOptions {
  filters?: Filters;
  config?: RetrievalConfigOverrides;
  /**
   * Other formulations of the same question (an LLM's rewrite into the documents'
   * terms, a hypothetical answer passage, sub-questions): each adds its ranked
   * lists to the fusion; the reranker and the gate still read the question itself.
   */
  alternatives?: { text: string; label: string }[];
}

export interface RetrievalEngineDeps {
  index: LoadedIndex;
  embedder: Pick<Embedder, 'embed'>;
  config?: RetrievalConfig;
  /** Dense backends by name (default: exact). */
  backends?: Partial<Record<'exact' | 'voy', DenseBackend>>;
  reranker?: Reranker;
  now?: () => number;
}

export interface RetrievalEngine {
  retrieve(query: string, options?: RetrieveOptions): Promise<RetrievalResult>;
  /** Retrieval with a query vector already computed (bench, decomposition). */
  retrieveWithVector(query: string, vector: Float32Array, options?: RetrieveOptions, alternativeVectors?: Float32Array[]): Promise<RetrievalResult>;
  /** The alternative formulations a query is searched with besides itself (their vectors go to retrieveWithVector, in order). */
  alternativesOf(query: string, options?: RetrieveOptions): string[];
  readonly config: RetrievalConfig;
}

export function createRetrievalEngine(deps: RetrievalEngineDeps): RetrievalEngine {
  const { index } = deps;
  const baseConfig = deps.config ?? DEFAULT_RETRIEVAL_CONFIG;
  const dim = index.manifest.dimension;
  const backends = { exact: exactBackend(index.vectors, dim), ...deps.backends };
  const now = deps.now ?? (() => performance.now());
  const ids = index.chunks.map((c) => c.id);
  const keywordsOf = (row: number): string[] => index.chunks[row]!.keywords;
  const windows = windowScorer(index.windows, dim, index.chunks.length);
  const questions = windowScorer(index.questions, dim, index.chunks.length);
  const lexicon = abbreviationLexicon(abbreviationsFromChunks(index.chunks));
  const identifierForms = identifierFormsFromTexts(index.chunks.map((c) => `${c.title}\n${c.text}`));
  const IDENTIFIERS = 'identifiers as the documents write them';
  // a passage's edition is its logical document's (an Annex prints its entry's SORA edition), else its source's
  const documentEditions = new Map(index.documents.units.map((d) => [d.id, { full: d.edition, short: shortEdition(d.edition) }] as const));
  const editionOf = (c: Chunk) =>
    (c.documentId !== undefined ? documentEditions.get(c.documentId) : undefined) ?? { full: c.edition, short: shortEdition(c.edition) };

  // the newest SORA edition the index holds: its passages go first when an older restatement also answers
  const currentEra = Math.max(0, ...index.chunks.map(eraOf));
  const traceOf = (stage: string, ms: number, list: Scored[], note?: string): StageTrace => ({
    stage,
    ms,
    candidates: list.map((c) => ({ id: ids[c.row]!, score: c.score })),
    ...(note ? { note } : {}),
  });

  /** One formulation of the question: the question itself, or an alternative (abbreviations expanded, an LLM rewrite, a hypothetical answer, a sub-question). */
  interface Formulation {
    text: string;
    vector: Float32Array;
    label: string;
    replacesQuery?: true;
  }

  async function runOnce(
    query: string,
    qv: Float32Array,
    filters: Filters,
    cfg: RetrievalConfig,
    poolFactor: number,
    trace: StageTrace[],
    alternatives: Formulation[],
  ) {
    let t = now();
    const allowed = allowedRows(index.chunks, filters);
    const pool = cfg.dense.pool * poolFactor;
    const denseOf = (v: Float32Array): Scored[] => {
      if (!cfg.dense_enabled) return [];
      const backend = backends[cfg.dense.backend];
      if (!backend) throw new RetrievalConfigError(`Dense backend "${cfg.dense.backend}" is not available here; use "exact".`);
      return backend.search(v, pool, allowed);
    };
    const dense = denseOf(qv);
    trace.push(traceOf(`dense (${cfg.dense.backend})`, now() - t, dense));
    t = now();
    const diversified = cfg.mmr.enabled && dense.length ? mmr(dense, index.vectors, dim, cfg.mmr.lambda) : dense;
    trace.push(traceOf('mmr', now() - t, diversified, cfg.mmr.enabled ? `λ=${cfg.mmr.lambda}` : 'off'));
    t = now();
    const windowsOf = (v: Float32Array) => (cfg.windows.enabled && cfg.dense_enabled ? windows.search(v, cfg.windows.pool * poolFactor, allowed) : []);
    const byWindow = windowsOf(qv);
    trace.push(traceOf('windows', now() - t, byWindow, cfg.windows.enabled ? undefined : 'off'));
    t = now();
    const questionsOf = (v: Float32Array) =>
      cfg.questions.enabled && cfg.dense_enabled && index.questions.count ? questions.search(v, cfg.questions.pool * poolFactor, allowed) : [];
    const byQuestion = questionsOf(qv);
    trace.push(traceOf('indexed questions', now() - t, byQuestion, !cfg.questions.enabled ? 'off' : index.questions.count ? undefined : 'none in this index'));
    t = now();
    const lexicalOf = (text: string) => (cfg.bm25.enabled ? bm25Search(index.bm25, text, index.rowOf, allowed, cfg.bm25.pool * poolFactor, cfg.bm25) : []);
    const lexical = lexicalOf(query);
    trace.push(traceOf('bm25', now() - t, lexical, cfg.bm25.enabled ? undefined : 'off'));
    // every alternative formulation adds its own ranked lists to the fusion
    const w = cfg.rrf.weights;
    const listWeights = [w.dense, w.windows, w.questions, w.bm25];
    const extra: Scored[][] = [];
    for (const alt of alternatives) {
      t = now();
      const lists = [denseOf(alt.vector), windowsOf(alt.vector), questionsOf(alt.vector), lexicalOf(alt.text)];
      extra.push(...lists);
      const fusedAlt = rrf(lists, cfg.rrf.k, cfg.rrf.pool, listWeights);
      trace.push(traceOf(`alternative: ${alt.label}`, now() - t, fusedAlt, alt.text.length > 160 ? `${alt.text.slice(0, 157)}…` : alt.text));
    }
    t = now();
    // each list keeps its kind's weight (the alternatives' lists come in the same order: dense, windows, questions, BM25)
    const fused = rrf([diversified, byWindow, byQuestion, lexical, ...extra], cfg.rrf.k, cfg.rrf.pool * poolFactor, [
      ...listWeights,
      ...extra.map((_, i) => listWeights[i % 4]!),
    ]);
    trace.push(traceOf('rrf', now() - t, fused, `k=${cfg.rrf.k}, weights ${listWeights.join('/')}, ${1 + alternatives.length} formulation(s)`));
    t = now();
    const post = fused.length
      ? postScore(
          fused,
          {
            query: qv,
            queryLower: query.toLowerCase(),
            vectors: index.vectors,
            summaryVectors: index.summaryVectors,
            dim,
            keywordsOf,
            windowScore: (row) => windows.best(qv, row).score,
          },
          cfg.postScore,
          cfg.postScore.enabled,
        )
      : [];
    trace.push(traceOf('post-score', now() - t, post, cfg.postScore.enabled ? undefined : 'off (fused order)'));
    return post;
  }

  async function rerankStage(query: string, qv: Float32Array, post: PostScored[], cfg: RetrievalConfig, trace: StageTrace[], status: { rerank: RerankStatus }) {
    const t = now();
    let scored = post.map((p) => ({ ...p, rerank: null as number | null, final: p.score }));
    let note = 'off';
    if (cfg.rerank.enabled && !deps.reranker) {
      note = 'unavailable (no reranker model loaded): unreranked order';
      status.rerank = { state: 'unavailable', note };
    } else if (cfg.rerank.enabled && deps.reranker && scored.length) {
      const head = scored.slice(0, cfg.rerank.top);
      try {
        const rs = await deps.reranker.score(
          query,
          head.map((p) => ({ key: ids[p.row]!, text: rerankText(index, p.row, windows.best(qv, p.row).window, cfg.rerank.input) })),
        );
        // blend on one scale: the ranking score rescaled to [0, 1] within the reranked head
        const hi = Math.max(...head.map((p) => p.score));
        const lo = Math.min(...head.map((p) => p.score));
        const unit = (x: number) => (hi > lo ? (x - lo) / (hi - lo) : 1);
        const reranked = head
          .map((p, i) => ({ ...p, rerank: rs[i]!, final: (1 - cfg.rerank.weight) * unit(p.score) + cfg.rerank.weight * rs[i]! }))
          .sort((a, b) => b.final - a.final || a.row - b.row);
        // candidates beyond the reranked head follow in their fused order, below every reranked one
        const floor = Math.min(0, ...reranked.map((p) => p.final));
        scored = [...reranked, ...scored.slice(cfg.rerank.top).map((p, i) => ({ ...p, final: floor - 1 - i }))];
        note = `${deps.reranker.name}, top ${head.length}, ${cfg.rerank.input}`;
        status.rerank = { state: 'on', note };
      } catch (e) {
        note = `failed (${(e as Error).message}): unreranked order`;
        status.rerank = { state: 'failed', note };
      }
    }
    trace.push({ stage: 'rerank', ms: now() - t, candidates: scored.map((p) => ({ id: ids[p.row]!, score: p.final })), note });
    return scored;
  }

  /** What is decided from the text alone, once per query: configuration and alternative formulations. */
  interface Prepared {
    cfg: RetrievalConfig;
    filters: Filters;
    /**
     * Alternative formulations to embed and search with: the question with its identifiers as printed
     * (`replacesQuery`: searched instead of the question), abbreviations expanded, then the caller's (LLM rewrites…).
     */
    alternatives: { text: string; label: string; replacesQuery?: true }[];
  }
  function prepare(query: string, options: RetrieveOptions = {}): Prepared {
    const cfg = withConfig(baseConfig, options.config);
    const terms = cfg.expansion.enabled ? lexicon.expand(query) : [];
    // the question with its identifiers as printed replaces the question itself in search(): embedded as the first alternative
    const written = cfg.identifiers.enabled ? normaliseIdentifiers(query, identifierForms) : query;
    const alternatives = [
      ...(written !== query ? [{ text: written, label: IDENTIFIERS, replacesQuery: true as const }] : []),
      ...(terms.length ? [{ text: `${query} ${terms.join('; ')}`, label: 'abbreviations expanded' }] : []),
      ...(options.alternatives ?? []).filter((a) => a.text.trim() && a.text.trim() !== query.trim()).map((a) => ({ text: a.text, label: a.label })),
    ];
    return { cfg, filters: options.filters ?? {}, alternatives };
  }

  async function retrieveWithVector(
    query: string,
    qv: Float32Array,
    options: RetrieveOptions = {},
    alternativeVectors: Float32Array[] = [],
  ): Promise<RetrievalResult> {
    const t0 = now();
    const prep = prepare(query, options);
    if (alternativeVectors.length !== prep.alternatives.length) {
      throw new RangeError(`retrieveWithVector: ${prep.alternatives.length} alternative formulation(s) need as many vectors, got ${alternativeVectors.length}`);
    }
    return search(query, qv, prep, alternativeVectors, t0);
  }

  async function search(query: string, qv: Float32Array, prep: Prepared, alternativeVectors: Float32Array[], t0: number): Promise<RetrievalResult> {
    const { cfg, filters } = prep;
    let alternatives: Formulation[] = prep.alternatives.map((a, i) => ({ ...a, vector: alternativeVectors[i]! }));
    const asked = query;
    const trace: StageTrace[] = [];
    if (alternatives[0]?.replacesQuery) {
      ({ text: query, vector: qv } = alternatives[0]);
      alternatives = alternatives.slice(1);
      trace.push({ stage: IDENTIFIERS, ms: 0, candidates: [], note: query });
    }
    let broadened = false;
    let gate: GateVerdict | null = null;
    const gates: GateVerdict[] = [];
    let lastRanked: { row: number; final: number }[] = [];
    const status: { rerank: RerankStatus } = { rerank: { state: cfg.rerank.enabled ? 'on' : 'off', note: cfg.rerank.enabled ? '' : 'off' } };

    const attempt = async (f: Filters, factor: number) => {
      const post = await runOnce(query, qv, f, cfg, factor, trace, alternatives);
      const ranked = await rerankStage(query, qv, post, cfg, trace, status);
      const t = now();
      const verdict = evidenceGate(ranked, cfg, status.rerank.state === 'on');
      gate = verdict;
      gates.push(verdict);
      lastRanked = ranked;
      let kept = verdict.passed ? ranked : [];
      if (kept.length && cfg.elbow.enabled) {
        const top = kept[0]!.final || 1;
        kept = kept.slice(
          0,
          elbowCut(
            kept.map((r) => r.final / top),
            cfg.elbow.threshold,
          ),
        );
      }
      kept = kept.slice(0, cfg.keep);
      trace.push({
        stage: 'filter',
        ms: now() - t,
        candidates: kept.map((p) => ({ id: ids[p.row]!, score: p.final })),
        note: verdict.passed
          ? `gate ${verdict.note}; elbow ${cfg.elbow.enabled ? cfg.elbow.threshold : 'off'}, keep ≤ ${cfg.keep}`
          : `gate ${verdict.note}: no evidence`,
      });
      return kept;
    };

    let kept = await attempt(filters, 1);
    if (!kept.length && hasFilters(filters)) {
      broadened = true;
      const broader: Filters = broaden(filters);
      trace.push({
        stage: 'broaden',
        ms: 0,
        candidates: [],
        note: `filters ${JSON.stringify(filters)} → ${JSON.stringify(broader)}, pool ×${cfg.broadenPoolFactor}`,
      });
      kept = await attempt(broader, cfg.broadenPoolFactor);
    }
    if (cfg.editionOrder.enabled) kept = currentEditionFirst(kept, (row) => eraOf(index.chunks[row]!), currentEra, cfg.editionOrder.ratio);
    const t = now();
    const evidence: Evidence[] = kept.map((p) => ({
      id: ids[p.row]!,
      row: p.row,
      score: p.final,
      parts: { dense: p.dense, window: p.window, summary: p.summary, fused: p.fused, keywordHits: p.keywordHits, rerank: p.rerank },
    }));
    const ctx = assembleContext(
      evidence.map((e) => index.chunks[e.row]!),
      cfg.contextChars,
      (c) => editionOf(c).short,
    );
    // over all the evidence shown, not only what fits the context: the view lists every passage kept
    const note = editionNote(evidence.map((e) => editionOf(index.chunks[e.row]!).full));
    trace.push({
      stage: 'context',
      ms: now() - t,
      candidates: ctx.included.map((id) => ({ id, score: 0 })),
      note: `${ctx.context.length} chars; omitted ${ctx.omitted.length}${ctx.cut ? `; [${ctx.cut}] alone exceeds the budget: cut to fit` : ''}`,
    });
    return {
      query: asked,
      evidence,
      noEvidence: evidence.length === 0,
      context: ctx.context,
      ...(note ? { editionNote: note } : {}),
      filters,
      broadened,
      ...(gate ? { gate } : {}),
      ranked: lastRanked.map((p) => ({ id: ids[p.row]!, row: p.row, score: p.final, kept: kept.some((k) => k.row === p.row) })),
      gates,
      rerank: status.rerank,
      trace,
      totalMs: now() - t0,
    };
  }

  return {
    config: baseConfig,
    retrieveWithVector,
    alternativesOf: (query, options) => prepare(query, options).alternatives.map((a) => a.text),
    async retrieve(query, options) {
      const prep = prepare(query, options);
      const q = await embedQuery(
        deps.embedder,
        query,
        prep.alternatives.map((a) => a.text),
        now,
      );
      return withQueryEmbedding(await search(query, q.vector, prep, q.alternatives, now()), q);
    },
  };
}

/**
 * The broadening fallback: document (source) and edition filters are dropped; a
 * jurisdiction filter is widened to include the EU-level rules (which apply in
 * every member state), but a non-EU country is not widened to EU rules, which
 * do not apply there.
 */
export function broaden(f: Filters): Filters {
  // a document agent's restriction to its document is never relaxed
  const keep: Filters = { ...(f.excludeIds?.length ? { excludeIds: f.excludeIds } : {}), ...(f.documentIds?.length ? { documentIds: f.documentIds } : {}) };
  if (!f.jurisdictions?.length) return keep;
  const j = new Set(f.jurisdictions);
  if (f.jurisdictions.some(isEasaJurisdiction)) j.add('EU');
  return { ...keep, jurisdictions: [...j] };
}

/**
 * The evidence gate: "no evidence" unless the best candidate is relevant enough.
 * With the reranker on, its score decides (a relevance score calibrated on
 * synthetic questions: each passage's own questions against questions written for
 * other passages and off-topic questions — never on evaluation questions);
 * without it, the best dense cosine (query vs retrieval string or passage window).
 */
export function evidenceGate(
  ranked: readonly { dense: number; window: number; rerank: number | null }[],
  cfg: Pick<RetrievalConfig, 'gate'>,
  reranked: boolean,
): GateVerdict {
  if (!cfg.gate.enabled) return { passed: ranked.length > 0, source: 'off', score: NaN, threshold: NaN, note: 'off' };
  if (!ranked.length) return { passed: false, source: 'dense', score: NaN, threshold: cfg.gate.minDense, note: 'no candidates' };
  if (cfg.gate.by === 'rerank' && reranked && ranked.some((r) => r.rerank !== null)) {
    const best = Math.max(...ranked.map((r) => r.rerank ?? -Infinity));
    const passed = best >= cfg.gate.minRerank;
    return {
      passed,
      source: 'rerank',
      score: best,
      threshold: cfg.gate.minRerank,
      note: `best relevance ${best.toFixed(3)} ${passed ? '≥' : '<'} ${cfg.gate.minRerank}`,
    };
  }
  const best = Math.max(...ranked.map((r) => Math.max(r.dense, r.window)));
  const passed = best >= cfg.gate.minDense;
  return {
    passed,
    source: 'dense',
    score: best,
    threshold: cfg.gate.minDense,
    note: `best dense cosine ${best.toFixed(3)} ${passed ? '≥' : '<'} ${cfg.gate.minDense}`,
  };
}

/** The SORA edition a passage prints (2.5, 2.0), or 0 when its edition names none (user documents, other texts). */
export function eraOf(c: Pick<Chunk, 'edition'>): number {
  const m = /\bSORA (\d+\.\d+)/.exec(c.edition);
  return m ? Number(m[1]) : 0;
}

/**
 * Current edition first (RetrievalConfig.editionOrder): each kept passage of an older SORA edition is
 * preceded by the later-ranked passages of the current edition that score at least `ratio` × its
 * score; everything else keeps its order. Pure.
 */
export function currentEditionFirst<T extends { row: number; final: number }>(
  kept: readonly T[],
  era: (row: number) => number,
  current: number,
  ratio: number,
): T[] {
  let out = [...kept];
  for (let i = 0; i < out.length; i++) {
    const e = era(out[i]!.row);
    if (e === 0 || e >= current) continue;
    const floor = ratio * out[i]!.final;
    const promote = out.slice(i + 1).filter((p) => era(p.row) === current && p.final >= floor);
    if (!promote.length) continue;
    out = [...out.slice(0, i), ...promote, ...out.slice(i).filter((p) => !promote.includes(p))];
    i += promote.length;
  }
  return out;
}
