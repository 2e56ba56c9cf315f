/**
 * The answer-evaluation harness behind `npm run eval:answers`: for each question,
 * the app's pipeline without the UI — (optional) model-assisted retrieval, the
 * retrieval engine with the context budget of the model's window, the answer stage
 * (`answerQuestion`: prompts, `[chunk-id]` citations filtered to the context, the
 * no-evidence rule) over a `ChatEngine` — node-llama-cpp in Node, WebLLM in a
 * browser — and afterwards the grounding check with the current thresholds.
 *
 * Records are plain JSON (one per question) so a long run can be resumed and the
 * grounding measures recomputed with other thresholds without generating again.
 */
import type { AnswerConfig } from '../../src/core/answer/config.js';
import { DEFAULT_ANSWER_CONFIG } from '../../src/core/answer/config.js';
import { answerQuestion, type ChatEngine } from '../../src/core/answer/generation.js';
import { attributeCitations } from '../../src/core/answer/attribution.js';
import { checkGrounding, type GroundingReport } from '../../src/core/answer/grounding.js';
import { alternativesFrom, assistQuery, type QueryAssistance } from '../../src/core/answer/query-assist.js';
import type { Embedder } from '../../src/core/embedding/embedder.js';
import type { AnswerOutcome } from '../../src/core/evaluation/answer-metrics.js';
import { isHit, type RetrievalQuestion } from '../../src/core/evaluation/retrieval-metrics.js';
import type { LoadedIndex } from '../../src/core/index/load.js';
import type { Chunk } from '../../src/core/model/chunk.js';
import type { DocumentAgents } from '../../src/core/retrieval/agents.js';
import { condenseConsulted, type CondenseDeps } from '../../src/core/answer/condense.js';
import type { RetrievalEngine } from '../../src/core/retrieval/engine.js';
import { questionFilters } from './question-filters.js';

export interface AnswerRecord {
  id: string;
  corpus: string;
  variant: string;
  answerable: boolean;
  question: string;
  /** Model-assisted retrieval's reply (null when not used). */
  assistance: Pick<QueryAssistance, 'parsed' | 'rewritten' | 'hypothetical' | 'subQuestions'> | null;
  noEvidence: boolean;
  evidenceIds: string[];
  contextIds: string[];
  modelCalled: boolean;
  status: string;
  answer: string;
  citations: string[];
  removedCitations: string[];
  finishReason: string | null;
  attempts: number;
  /** Prompt and completion tokens; seconds to the first token (prefill) and after it (decode); prompt tokens actually evaluated. */
  usage: { promptTokens: number; completionTokens: number; evaluatedPromptTokens: number; prefillSeconds: number; decodeSeconds: number } | null;
  seconds: number;
  /** With --condense: per kept document, whether the model's notes or the extractive fallback were used, and why. */
  condensed?: { documentId: string; mode: 'model' | 'extractive'; kept: number; dropped: number; reason: string }[];
}

export interface AnswerEvalDeps {
  engine: RetrievalEngine;
  index: Pick<LoadedIndex, 'chunks' | 'rowOf'>;
  chat: ChatEngine;
  modelId: string;
  /** Context budget in characters (contextCharsFor(window)). */
  contextChars: number;
  /** Model-assisted retrieval, as the app does with a model loaded. */
  assist: boolean;
  corpus?: string;
  config?: AnswerConfig;
  /**
   * The agent-based RAG paper's context instead of the flat one: the top-3 documents' refined
   * contexts (their best passage windows, with a header naming document and edition). Needs the
   * embedder for the question's vector.
   */
  agents?: { agents: DocumentAgents; embedder: Pick<Embedder, 'embed'> };
  /**
   * With `agents`: each kept document's refined context is condensed by the same model
   * (src/core/answer/condense.ts), each note held to its passages by this source check.
   */
  condense?: { check: CondenseDeps['check'] };
}

/** Run the pipeline for one question. */
export async function answerOne(q: RetrievalQuestion, deps: AnswerEvalDeps): Promise<AnswerRecord> {
  const t0 = performance.now();
  const assistance = deps.assist ? await assistQuery(q.question, deps.chat, deps.config) : null;
  const options = {
    filters: questionFilters(q.question, deps.corpus),
    config: { contextChars: deps.contextChars },
    ...(assistance ? { alternatives: alternativesFrom(assistance) } : {}),
  };
  let retrieval = await deps.engine.retrieve(q.question, options);
  let condensed: AnswerRecord['condensed'];
  if (deps.agents) {
    const [qv] = await deps.agents.embedder.embed([q.question], 'query');
    const alt = options.alternatives?.length ? await deps.agents.embedder.embed(deps.engine.alternativesOf(q.question, options), 'query') : [];
    const a = await deps.agents.agents.run(q.question, qv!, options, alt);
    let context = a.context;
    if (deps.condense && !a.noEvidence) {
      const chunkOf = (id: string) => {
        const row = deps.index.rowOf.get(id);
        return row === undefined ? undefined : deps.index.chunks[row];
      };
      const consulted = a.consulted.map((c) => ({ ...c, evidenceIds: c.evidence.map((e) => e.id) }));
      const c = await condenseConsulted(q.question, consulted, chunkOf, deps.contextChars, { engine: deps.chat, check: deps.condense.check });
      context = c.context;
      condensed = c.documents.map((d) => ({ documentId: d.documentId, mode: d.mode, kept: d.statements.length, dropped: d.dropped.length, reason: d.reason }));
    }
    // the refined contexts, cut to the same budget
    retrieval = { ...a.flat, evidence: a.evidence, noEvidence: a.noEvidence, context: context.slice(0, deps.contextChars) };
  }
  const result = await answerQuestion({ question: q.question, retrieval, engine: deps.chat, modelId: deps.modelId, ...(deps.config ? { config: deps.config } : {}) });
  const u = result.usage;
  const ttft = u?.extra?.time_to_first_token_s ?? 0;
  const e2e = u?.extra?.e2e_latency_s ?? 0;
  return {
    id: q.id,
    corpus: q.corpus,
    variant: q.variant,
    answerable: q.answerable,
    question: q.question,
    assistance: assistance ? { parsed: assistance.parsed, rewritten: assistance.rewritten, hypothetical: assistance.hypothetical, subQuestions: assistance.subQuestions } : null,
    noEvidence: result.status === 'no-context',
    evidenceIds: retrieval.evidence.map((e) => e.id),
    contextIds: result.contextIds,
    modelCalled: result.attempts > 0,
    status: result.status,
    answer: result.answer,
    citations: result.citations,
    removedCitations: result.removedCitations.map((r) => r.id),
    finishReason: result.finishReason,
    attempts: result.attempts,
    usage: u
      ? {
          promptTokens: u.prompt_tokens ?? 0,
          completionTokens: u.completion_tokens ?? 0,
          evaluatedPromptTokens: Math.round((u.extra?.prefill_tokens_per_s ?? 0) * ttft),
          prefillSeconds: ttft,
          decodeSeconds: Math.max(0, e2e - ttft),
        }
      : null,
    seconds: (performance.now() - t0) / 1000,
    ...(condensed ? { condensed } : {}),
  };
}

/** Score a record: citation hits against the question's gold, and the grounding check over its context chunks. */
export async function outcomeOf(
  record: AnswerRecord,
  q: RetrievalQuestion,
  index: Pick<LoadedIndex, 'chunks' | 'rowOf'>,
  embedder: Pick<Embedder, 'embed' | 'modelId'>,
  config: AnswerConfig = DEFAULT_ANSWER_CONFIG,
): Promise<AnswerOutcome & { report: GroundingReport | null }> {
  const chunkOf = (id: string): Chunk | undefined => {
    const row = index.rowOf.get(id);
    return row === undefined ? undefined : index.chunks[row];
  };
  const contextChunks = record.contextIds.map(chunkOf).filter((c): c is Chunk => !!c);
  const checked =
    record.modelCalled && record.answer.trim()
      ? await checkGrounding({ answer: record.answer, chunks: contextChunks, embedder, config: config.grounding, incomplete: record.status !== 'complete' })
      : null;
  // as the app does: supported claims the model left uncited get the supporting chunk's marker, recorded as attributed
  const attribution = checked && config.attribution ? attributeCitations(record.answer, checked, { incomplete: record.status !== 'complete' }) : null;
  const report = attribution ? attribution.report : checked;
  const attributedIds = [...new Set((attribution?.attributed ?? []).map((a) => a.id))].filter((id) => !record.citations.includes(id));
  const citations = [...record.citations, ...attributedIds];
  return {
    answerable: record.answerable,
    modelCalled: record.modelCalled,
    answer: attribution ? attribution.answer : record.answer,
    citations,
    citationAttributed: citations.map((_, i) => i >= record.citations.length),
    citationHits: citations.map((id) => {
      const c = chunkOf(id);
      return c ? isHit(q, c) : false;
    }),
    goldInContext: contextChunks.some((c) => isHit(q, c)),
    context: contextChunks.map((c) => ({ id: c.id, relevant: isHit(q, c) })),
    grounding: report,
    usage: record.usage
      ? { promptTokens: record.usage.evaluatedPromptTokens, completionTokens: Math.max(0, record.usage.completionTokens - 1), prefillSeconds: record.usage.prefillSeconds, decodeSeconds: record.usage.decodeSeconds }
      : null,
    report,
  };
}
