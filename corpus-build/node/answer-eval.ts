/**
 * The answer-evaluation harness behind `npm run eval:answers`: for each question, the app's own
 * Ask turn (src/core/ask/turn.ts: route, model-assisted retrieval, retrieval with the context budget
 * of the model's window, the answer stage, the grounding check and attribution) over an in-process
 * index (core/ask/retrieve.ts) and a `ChatEngine` — node-llama-cpp in Node, WebLLM in a browser.
 *
 * Records are plain JSON (one per question) so a long run can be resumed and the grounding
 * measures recomputed with other thresholds without generating again (`outcomeOf`).
 */
import type { AnswerConfig } from '../../src/core/answer/config.js';
import { DEFAULT_ANSWER_CONFIG } from '../../src/core/answer/config.js';
import type { AnswerResult } from '../../src/core/answer/generation.js';
import type { ChatEngine } from '../../src/core/llm/engine.js';
import { attributeResult } from '../../src/core/answer/attribution.js';
import { checkGrounding, type AnswerClaim, type GroundingReport } from '../../src/core/answer/grounding.js';
import type { QueryAssistance } from '../../src/core/answer/query-assist.js';
import { runTurn, type AnswerContextSource, type TurnEvent } from '../../src/core/ask/turn.js';
import type { AskRetrieval } from '../../src/core/ask/types.js';
import type { Embedder } from '../../src/core/embedding/embedder.js';
import { isRefusal, judgeClaims, type AnswerOutcome } from '../../src/core/evaluation/answer-metrics.js';
import { stripCitations } from '../../src/core/answer/citations.js';
import { groundingTexts, leadClaims, unitId } from '../../src/core/answer/quotes.js';
import { gridForChunk } from '../../src/core/sora/tables/grid.js';
import { isHit, type RetrievalQuestion } from '../../src/core/evaluation/retrieval-metrics.js';
import { assembleContext } from '../../src/core/retrieval/context.js';
import type { LoadedIndex } from '../../src/core/index/load.js';
import type { Chunk } from '../../src/core/model/chunk.js';

/** The committed hand labels of (claim, passage) pairs (docs/labelling-guide.md). */
export const CLAIM_LABELS = 'corpus-build/calibration/claim-labels.jsonl';

export interface AnswerRecord {
  id: string;
  /** The GGUF file that answered (written by eval:answers since 2026-11-28; older replies lack it). */
  model?: string;
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
  /** Structured answers: the model's JSON, its claims with the ids it cited, what it said is missing, whether it declined. */
  structured?: { raw: string; modelClaims: AnswerClaim[]; notInPassages: string | null; refused: boolean; problem: string | null; malformedClaims: number };
  /**
   * Quoted answers: the quotations (the evidence-only answer's), the lead as written (unit markers) and whether it
   * was dropped, whether the ranker said the passages do not state the answer.
   */
  quoted?: {
    quotes: { chunkId: string; n: number; text: string; header: string | null; score: number }[];
    unitIds: string[];
    lead: string | null;
    leadDropped: string | null;
    leadTrimmed: number;
    gap: boolean;
  };
  /** With --condense: per kept document, whether the model's notes or the extractive fallback were used, and why. */
  condensed?: { documentId: string; mode: 'model' | 'extractive'; kept: number; dropped: number; reason: string }[];
}

export interface AnswerEvalDeps {
  /** The turn's retrieval port over the loaded index (core/ask/retrieve.ts createLocalRetrieval). */
  retrieval: AskRetrieval;
  chat: ChatEngine;
  modelId: string;
  /** The model's context window in tokens (the turn sizes the context budget to it). */
  contextWindow: number;
  /** Model-assisted retrieval, as the app does with a model loaded. */
  assist: boolean;
  /** Only this document's passages (the question file's corpus). */
  corpus?: string;
  config?: AnswerConfig;
  /**
   * The context the answer is written from: the flat retrieval's passages (the app's default), the
   * kept documents' condensed contexts (the app's "Answer from the consulted documents"), or their
   * extractive refined contexts (an evaluation variant).
   */
  answerContext?: AnswerContextSource;
  /** Every turn event, for --verbose. */
  onEvent?: (e: TurnEvent) => void;
  /** Take every gold passage out of the retrieval (the honest-gap measure: the answer should say what the passages do not cover). */
  removeGold?: boolean;
}

/** The retrieval port with the question's gold passages taken out of every result (evidence, chunks, context). */
export function withoutGold(retrieval: AskRetrieval, q: RetrievalQuestion): AskRetrieval {
  return {
    ...retrieval,
    async retrieve(query, request) {
      const r = await retrieval.retrieve(query, request);
      const keep = r.chunks.filter((c) => !isHit(q, c));
      const ids = new Set(keep.map((c) => c.id));
      const evidence = r.retrieval.evidence.filter((e) => ids.has(e.id));
      const context = assembleContext(keep, r.config.contextChars).context;
      return { ...r, chunks: keep, retrieval: { ...r.retrieval, evidence, context, noEvidence: r.retrieval.noEvidence || evidence.length === 0 } };
    },
  };
}

/** Run the app's Ask turn for one question. */
export async function answerOne(q: RetrievalQuestion, deps: AnswerEvalDeps): Promise<AnswerRecord> {
  const t0 = performance.now();
  // the record keeps the model's answer as written (before the grounding check's attribution): outcomeOf checks and attributes it again
  let raw: AnswerResult | null = null;
  const turn = await runTurn(
    {
      question: q.question,
      settings: {
        ...(deps.config ? { answerConfig: deps.config } : {}),
        assist: deps.assist,
        // the router's model only settles the calculator's part of ambiguous messages; the answer measured here does not depend on it
        routerModel: false,
        answerContext: deps.answerContext ?? 'passages',
        ...(deps.corpus ? { filters: { docIds: [deps.corpus] } } : {}),
      },
      index: { manifestSha: '' },
    },
    {
      retrieval: deps.removeGold ? withoutGold(deps.retrieval, q) : deps.retrieval,
      model: { engine: deps.chat, contextWindow: deps.contextWindow, modelId: deps.modelId },
    },
    (e) => {
      if (e.type === 'answer') raw = e.answer;
      deps.onEvent?.(e);
    },
  );
  const result = raw as AnswerResult | null;
  const u = result?.usage ?? null;
  const ttft = u?.extra?.time_to_first_token_s ?? 0;
  const e2e = u?.extra?.e2e_latency_s ?? 0;
  const assistance = turn.assistance;
  return {
    id: q.id,
    corpus: q.corpus,
    variant: q.variant,
    answerable: q.answerable,
    question: q.question,
    assistance: assistance
      ? { parsed: assistance.parsed, rewritten: assistance.rewritten, hypothetical: assistance.hypothetical, subQuestions: assistance.subQuestions }
      : null,
    noEvidence: turn.noEvidence !== null || result?.status === 'no-context',
    evidenceIds: turn.ask?.retrieval.evidence.map((e) => e.id) ?? [],
    contextIds: result?.contextIds ?? [],
    modelCalled: (result?.attempts ?? 0) > 0,
    status: result?.status ?? 'no-context',
    answer: result?.answer ?? '',
    citations: result?.citations ?? [],
    removedCitations: result?.removedCitations.map((r) => r.id) ?? [],
    finishReason: result?.finishReason ?? null,
    attempts: result?.attempts ?? 0,
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
    ...(result?.structured
      ? {
          structured: {
            raw: result.structured.raw,
            modelClaims: result.structured.modelClaims,
            notInPassages: result.structured.notInPassages,
            refused: result.structured.refused,
            problem: result.structured.problem,
            malformedClaims: result.structured.malformedClaims,
          },
        }
      : {}),
    ...(turn.evidence?.quoted
      ? {
          quoted: {
            quotes: turn.evidence.quoted.quotes.map((x) => ({ chunkId: x.chunkId, n: x.n, text: x.text, header: x.header, score: x.score })),
            unitIds: turn.evidence.quoted.quotes.map((x) => unitId(x.chunkId, x.n)),
            // the lead as the model wrote it (before the check dropped any sentence): outcomeOf checks it again
            lead: result?.quoted?.lead ?? null,
            leadDropped: result?.quoted?.leadDropped ?? null,
            leadTrimmed: result?.quoted?.leadTrimmed ?? 0,
            gap: turn.evidence.quoted.gap,
          },
        }
      : {}),
    ...(turn.condensed
      ? {
          condensed: turn.condensed.map((d) => ({
            documentId: d.documentId,
            mode: d.mode,
            kept: d.statements.length,
            dropped: d.dropped.length,
            reason: d.reason,
          })),
        }
      : {}),
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
  const incomplete = record.status !== 'complete';
  if (record.quoted) return quotedOutcome(record, record.quoted, q, chunkOf, q.answerable ? index.chunks.filter((c) => isHit(q, c)) : [], embedder, config);
  const s = record.structured;
  // the claims as the model cited them: structured claims, or the free answer's sentences
  const subject = s ? s.modelClaims : record.answer;
  const checked =
    record.modelCalled && (s ? s.modelClaims.length > 0 : record.answer.trim())
      ? await checkGrounding({ answer: subject, chunks: contextChunks, embedder, config: config.grounding, incomplete })
      : null;
  // the turn's one attribution (attribution.ts attributeResult), on the answer as the model wrote it
  const a = checked
    ? attributeResult(
        {
          answer: record.answer,
          status: record.status,
          citations: record.citations,
          structured: s ? { claims: s.modelClaims, notInPassages: s.notInPassages } : null,
        },
        checked,
        config.attribution,
      )
    : null;
  const report = a?.report ?? checked;
  const answer = a?.answer ?? record.answer;
  const citations = a?.citations ?? record.citations;
  if (a?.problem) console.warn(`${record.id}: ${a.problem}`);
  const refused = !record.modelCalled || (s ? s.refused : isRefusal(record.answer));
  // correctness: a claim the gold passage supports (the same judge, the gold passage the only candidate)
  const gold = q.answerable ? index.chunks.filter((c) => isHit(q, c)) : [];
  let correct: boolean | null = null;
  if (q.answerable && gold.length) {
    const claimTexts = s ? s.modelClaims.map((c) => c.text) : (checked?.sentences ?? []).filter((x) => x.kind === 'claim').map((x) => stripCitations(x.text));
    if (refused || !claimTexts.length) correct = false;
    else {
      const g = await checkGrounding({ answer: claimTexts.map((text) => ({ text, sources: [] })), chunks: gold, embedder, config: config.grounding });
      correct = g.sentences.some((x) => x.kind === 'claim' && x.supported === true);
    }
  }
  return {
    claims: checked ? judgeClaims(checked) : [],
    outsideCitations: record.removedCitations.length,
    refused,
    correct,
    answerable: record.answerable,
    modelCalled: record.modelCalled,
    answer,
    citations,
    citationAttributed: citations.map((id) => !record.citations.includes(id)),
    citationHits: citations.map((id) => {
      const c = chunkOf(id);
      return c ? isHit(q, c) : false;
    }),
    goldInContext: contextChunks.some((c) => isHit(q, c)),
    context: contextChunks.map((c) => ({ id: c.id, relevant: isHit(q, c) })),
    grounding: report,
    usage: record.usage
      ? {
          promptTokens: record.usage.evaluatedPromptTokens,
          completionTokens: Math.max(0, record.usage.completionTokens - 1),
          prefillSeconds: record.usage.prefillSeconds,
          decodeSeconds: record.usage.decodeSeconds,
        }
      : null,
    report,
  };
}

/**
 * A quoted answer's outcome: its claims are the quotations (each citing its passage) and the lead's
 * sentences (each citing the quoted units it names), judged ALCE's way by the same check; correct when
 * a quotation or a kept lead sentence is supported by a gold passage and the ranker did not say "not
 * stated"; a refusal when it did (or nothing was found). Repeats are counted over all claims.
 */
async function quotedOutcome(
  record: AnswerRecord,
  quoted: NonNullable<AnswerRecord['quoted']>,
  q: RetrievalQuestion,
  chunkOf: (id: string) => Chunk | undefined,
  gold: Chunk[],
  embedder: Pick<Embedder, 'embed' | 'modelId'>,
  config: AnswerConfig,
): Promise<AnswerOutcome & { report: GroundingReport | null }> {
  const quoteClaims = quoted.quotes.map((x) => ({ text: x.header ? `${x.header}: ${x.text}` : x.text, sources: [x.chunkId] }));
  const passages = [...new Set(quoted.quotes.map((x) => x.chunkId))].map(chunkOf).filter((c): c is Chunk => !!c);
  const quoteReport = quoteClaims.length ? await checkGrounding({ answer: quoteClaims, chunks: passages, embedder, config: config.grounding }) : null;
  const lead = leadClaims(quoted.lead, quoted.unitIds);
  const leadReport = lead.length
    ? await checkGrounding({
        answer: lead,
        chunks: groundingTexts(quoted.unitIds, chunkOf, gridForChunk),
        embedder,
        config: config.grounding,
        incomplete: record.status !== 'complete',
      })
    : null;
  // what the turn shows of the lead: the one attribution (attribution.ts), as in the app
  const shown = leadReport
    ? attributeResult(
        { answer: record.answer, status: record.status, citations: [], structured: null, quoted: { lead: quoted.lead, unitIds: quoted.unitIds } },
        leadReport,
      )
    : null;
  if (shown?.problem) console.error(`eval:answers: ${record.id}: ${shown.problem}`);
  const leadKept = lead.filter((_, i) => shown !== null && !shown.problem && leadReport!.sentences[i]!.supported === true);
  const refused = quoted.gap || record.noEvidence || !quoted.quotes.length;
  let correct: boolean | null = null;
  if (q.answerable) {
    const texts = [...quoteClaims.map((c) => c.text), ...(shown?.lead?.text ? [stripCitations(shown.lead.text)] : [])];
    if (refused || !texts.length || !gold.length) correct = refused || !texts.length ? false : null;
    else {
      const g = await checkGrounding({ answer: texts.map((text) => ({ text, sources: [] })), chunks: gold, embedder, config: config.grounding });
      correct = g.sentences.some((x) => x.kind === 'claim' && x.supported === true);
    }
  }
  const claims = [...(quoteReport ? judgeClaims(quoteReport) : []), ...(leadReport ? judgeClaims(leadReport) : [])];
  const keys = [...quoteClaims.map((c) => c.text), ...lead.map((c) => stripCitations(c.text))].map((t) => t.toLowerCase().replace(/\W+/g, ' ').trim());
  const distinct = new Set(keys).size;
  const citations = [...new Set(quoted.quotes.map((x) => x.chunkId))];
  const contextIds = record.contextIds.length ? record.contextIds : citations;
  return {
    claims,
    outsideCitations: 0,
    refused,
    correct,
    answerable: record.answerable,
    modelCalled: quoted.quotes.length > 0,
    answer: record.answer,
    citations,
    citationAttributed: citations.map(() => false),
    citationHits: citations.map((id) => {
      const c = chunkOf(id);
      return c ? isHit(q, c) : false;
    }),
    goldInContext: record.evidenceIds.some((id) => {
      const c = chunkOf(id);
      return c ? isHit(q, c) : false;
    }),
    context: contextIds.map((id) => ({
      id,
      relevant: (() => {
        const c = chunkOf(id);
        return c ? isHit(q, c) : false;
      })(),
    })),
    grounding: quoteReport,
    usage: record.usage
      ? {
          promptTokens: record.usage.evaluatedPromptTokens,
          completionTokens: Math.max(0, record.usage.completionTokens - 1),
          prefillSeconds: record.usage.prefillSeconds,
          decodeSeconds: record.usage.decodeSeconds,
        }
      : null,
    forms: {
      quoted: quoteClaims.length,
      written: lead.length,
      distinct,
      repeated: keys.length - distinct,
      lead:
        quoted.lead === null
          ? quoted.leadDropped
            ? 'declined'
            : 'none'
          : leadKept.length === lead.length
            ? 'supported'
            : leadKept.length
              ? 'partly'
              : 'dropped',
    },
    report: quoteReport,
  };
}
