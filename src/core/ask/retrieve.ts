/**
 * The turn's retrieval over a loaded index, in process: embeds a question and its alternative
 * formulations once (core/retrieval/query-vectors.ts, the one place a query is embedded), runs the
 * flat retrieval and the document agents on the same vectors, and shapes the result (AskResult). The runtime worker, the Node CLIs and every
 * evaluation serve the AskRetrieval port with this.
 */
import { composeEvidenceOnlyAnswer } from '../answer/evidence-only.js';
import { hasNoContext } from '../answer/no-context.js';
import { candidateUnits, groundingTexts, quoteAnswer, type QuotedAnswer } from '../answer/quotes.js';
import { documentFrequencies, type UnitRankerModel } from '../answer/unit-ranker.js';
import { gridForChunk } from '../sora/tables/grid.js';
import { checkGrounding } from '../answer/grounding.js';
import type { Embedder } from '../embedding/embedder.js';
import type { LoadedIndex } from '../index/load.js';
import type { Chunk } from '../model/chunk.js';
import type { AgentResult, DocumentAgents } from '../agents/agents.js';
import { withConfig } from '../retrieval/config.js';
import type { RetrievalEngine } from '../retrieval/engine.js';
import type { RetrievalResult } from '../retrieval/types.js';
import { splitSentenceSpans } from '../text/sentences.js';
import { draftFromAgents, type RequirementDraft } from '../agents/requirements.js';
import type { Filters } from '../retrieval/types.js';
import { embedQuery, withQueryEmbedding } from '../retrieval/query-vectors.js';
import type { AskResult, AskRetrieval, RetrieveRequest, ScopeVerdict } from './types.js';
import type { Scope } from './scope.js';

export interface LocalRetrievalDeps {
  index: LoadedIndex;
  /** The engine retrieval runs with (the built-in model's or a vector set's). */
  engine: RetrievalEngine;
  /** Its document agents; null runs the flat retrieval only. */
  agents: DocumentAgents | null;
  /** The embedder of the engine's vectors (query vectors). */
  queryEmbedder: Pick<Embedder, 'embed'>;
  /** The index's own embedder (evidence highlights and the grounding check are calibrated on it). */
  embedder: Pick<Embedder, 'embed'>;
  /** What the documents do not hold (scope.ts); absent: no scope verdicts. */
  scope?: Scope | null;
  /** The unit ranker's model (src/core/answer/unit-ranker.json); absent: evidence-only answers highlight sentences instead of quoting units. */
  unitRanker?: UnitRankerModel | null;
}

/** Flat retrieval, and with agents the documents that hold the evidence, on one embedding of the query (returned for reuse). */
export async function retrieveLocal(
  deps: Omit<LocalRetrievalDeps, 'embedder'>,
  query: string,
  request: RetrieveRequest,
): Promise<AskResult & { agentResult: AgentResult | null; queryVector: Float32Array }> {
  const { engine, index } = deps;
  const { agents: useAgents = true, ...options } = request;
  const config = withConfig(engine.config, options.config);
  // one embedding of the query for the flat search and the agents (core/retrieval/query-vectors.ts)
  const q = await embedQuery(deps.queryEmbedder, query, engine.alternativesOf(query, options));
  let consulted: AgentResult | null = null;
  let retrieval: RetrievalResult;
  if (deps.agents && useAgents) {
    consulted = await deps.agents.run(query, q.vector, options, q.alternatives);
    retrieval = consulted.flat;
  } else {
    retrieval = await engine.retrieveWithVector(query, q.vector, options, q.alternatives);
  }
  withQueryEmbedding(retrieval, q);
  const chunkAt = (row: number): Chunk => index.chunks[row]!;
  return {
    retrieval,
    config,
    chunks: retrieval.evidence.map((ev) => chunkAt(ev.row)),
    agentResult: consulted,
    queryVector: q.vector,
    ...(consulted
      ? {
          documents: {
            mode: consulted.mode,
            editionNote: consulted.editionNote,
            consulted: consulted.consulted.map(({ id, title, edition, pages, rank, reason, why, kept, evidence, refined }) => ({
              id,
              title,
              edition,
              pages,
              rank,
              reason,
              why,
              kept,
              evidenceIds: evidence.map((ev) => ev.id),
              refined,
            })),
            evidence: consulted.evidence,
            chunks: consulted.evidence.map((ev) => chunkAt(ev.row)),
            context: consulted.context,
          },
        }
      : {}),
  };
}

/**
 * Evidence-only candidate safety requirements for a hazard, function or operation: the document
 * agents on one embedding of the description, then each kept document's verbatim normative
 * statements (the app's Requirements view and `npm run draft` alike).
 */
export async function draftRequirementsLocal(
  deps: Omit<LocalRetrievalDeps, 'embedder'> & { agents: DocumentAgents },
  description: string,
  options: { filters?: Filters; perDocument?: number } = {},
): Promise<RequirementDraft> {
  const { agentResult } = await retrieveLocal(deps, description, options.filters ? { filters: options.filters } : {});
  // drafting never asks the coverage door: it has no question, and pays nothing for it
  const verbatim = new Map(deps.index.manifest.sources.map((s) => [s.id, s.verbatim]));
  return draftFromAgents(agentResult!, deps.index.chunks, (id) => verbatim.get(id) ?? false, options.perDocument ?? 5);
}

/**
 * THE coverage decision ("not in these documents"), on what was searched and its flat retrieval. The
 * turn asks it through `AskRetrieval.coverage`; `npm run eval` calls it directly on its cached vectors.
 * `known`: the query's vector by an embedder, reused when it is the decision's own embedder.
 */
export async function decideCoverage(
  scope: Scope | null | undefined,
  query: string,
  retrieval: RetrievalResult,
  known: { vector: Float32Array; embedder: Pick<Embedder, 'embed'> } | null = null,
): Promise<ScopeVerdict | null> {
  if (!scope) return null;
  return scope.decide(query, retrieval, known && known.embedder === scope.embedder ? known.vector : undefined);
}

/** The AskRetrieval port over a loaded index (the runtime's current engine is read on every call). */
export function createLocalRetrieval(current: () => LocalRetrievalDeps): AskRetrieval {
  // the built-in model's vector of the last question: the retrieval's own when that model searched; with another
  // retrieval model it is made once and shared by the coverage door and the quotations (it was made twice)
  let builtIn: { query: string; embedder: Pick<Embedder, 'embed'>; vector: Promise<Float32Array> } | null = null;
  const builtInVector = (query: string, embedder: Pick<Embedder, 'embed'>): Promise<Float32Array> => {
    if (builtIn?.query !== query || builtIn.embedder !== embedder) builtIn = { query, embedder, vector: embedder.embed([query], 'query').then((v) => v[0]!) };
    return builtIn.vector;
  };
  return {
    async retrieve(query, request) {
      const deps = current();
      const { agentResult: _agents, queryVector, ...result } = await retrieveLocal(deps, query, request ?? {});
      if (deps.queryEmbedder === deps.embedder) builtIn = { query, embedder: deps.embedder, vector: Promise.resolve(queryVector) };
      return result; // plain data: it crosses the worker boundary
    },
    async coverage(query, result) {
      const { scope } = current();
      const known = scope && scope.binding !== 'stale' ? { vector: await builtInVector(query, scope.embedder), embedder: scope.embedder } : null;
      return decideCoverage(scope, query, result.retrieval, known);
    },
    async evidenceOnly(question, result) {
      const { embedder, index, unitRanker } = current();
      const quoted =
        unitRanker && !hasNoContext(result.retrieval)
          ? await quoteUnits(question, result, index, embedder, unitRanker, await builtInVector(question, embedder))
          : null;
      // a quote from the next part of a retrieved passage brings that part along
      const continuing = (quoted?.quotes ?? [])
        .filter((q) => !result.chunks.some((c) => c.id === q.chunkId))
        .map((q) => index.chunks[index.rowOf.get(q.chunkId) ?? -1])
        .filter((c): c is Chunk => Boolean(c));
      return composeEvidenceOnlyAnswer({
        question,
        retrieval: result.retrieval,
        chunks: [...result.chunks, ...continuing],
        embedder: windowBackedEmbedder(embedder, index, result.chunks),
        quoted,
      });
    },
    async checkGrounding(answer, contextChunkIds) {
      const { embedder, index } = current();
      // a quoted unit's id resolves to the unit as quoted; a chunk id to its passage
      const chunks = groundingTexts(contextChunkIds, (id) => index.chunks[index.rowOf.get(id) ?? -1], gridForChunk);
      return checkGrounding({ answer, chunks, embedder });
    },
  };
}

/**
 * Sentence vectors for the evidence-only highlights without running the model
 * again: a sentence takes the precomputed embedding of the passage window that
 * contains it (windows are runs of whole sentences, see src/core/ingest/enrich/windows.ts).
 * Only texts not found that way (the question) are embedded.
 */
export function windowBackedEmbedder(
  emb: Pick<Embedder, 'embed'>,
  idx: Pick<LoadedIndex, 'windows' | 'rowOf' | 'manifest'>,
  chunks: readonly Chunk[],
): Pick<Embedder, 'embed'> {
  const dim = idx.manifest.dimension;
  const known = new Map<string, Float32Array>();
  for (const c of chunks) {
    const row = idx.rowOf.get(c.id);
    if (row === undefined) continue;
    const ws: number[] = [];
    for (let i = 0; i < idx.windows.count; i++) if (idx.windows.row[i] === row) ws.push(i);
    for (const span of splitSentenceSpans(c.text)) {
      const w = ws.find((i) => idx.windows.start[i]! <= span.start && span.start < idx.windows.end[i]!);
      if (w !== undefined && !known.has(span.text)) known.set(span.text, idx.windows.vectors.subarray(w * dim, (w + 1) * dim));
    }
  }
  return {
    async embed(texts) {
      const missing = texts.filter((t) => !known.has(t));
      const fresh = missing.length ? await emb.embed(missing) : [];
      const computed = new Map(missing.map((t, i) => [t, fresh[i]!]));
      return texts.map((t) => known.get(t) ?? computed.get(t)!);
    },
  };
}

/** Document frequencies of each index's passages, for the unit ranker's word-overlap feature (computed once). */
const frequencies = new WeakMap<LoadedIndex, ReturnType<typeof documentFrequencies>>();

/** The quotations of a retrieval: the units of its first passages ranked by the unit ranker, no two alike. */
export async function quoteUnits(
  question: string,
  result: AskResult,
  index: LoadedIndex,
  embedder: Pick<Embedder, 'embed'>,
  model: UnitRankerModel,
  /** The built-in model's vector of the question (the caller shares it with the coverage door). */
  queryVector: Float32Array,
): Promise<QuotedAnswer> {
  let freq = frequencies.get(index);
  if (!freq) frequencies.set(index, (freq = documentFrequencies(index.chunks.map((c) => c.text))));
  const candidates = await candidateUnits({
    queryVector,
    chunks: result.chunks,
    evidence: result.retrieval.evidence,
    index,
    embedder,
    gridOf: gridForChunk,
  });
  return quoteAnswer(question, candidates, freq, model);
}
