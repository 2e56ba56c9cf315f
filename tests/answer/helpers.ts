/**
 * Test helpers for the answer stage: chunk and retrieval fixtures, a
 * deterministic fake embedder and a WebLLM-like chat engine double.
 */
import type { ChatCompletionChunkLike, ChatEngine, StreamingChatRequest } from '../../src/core/llm/engine.js';
import type { Embedder } from '../../src/core/embedding/embedder.js';
import type { Chunk } from '../../src/core/model/chunk.js';
import { assembleContext } from '../../src/core/retrieval/context.js';
import type { Evidence, RetrievalResult } from '../../src/core/retrieval/types.js';
import { tokenize } from '../../src/core/text/tokenize.js';

export function makeChunk(id: string, title: string, text: string, page: number | null = 12): Chunk {
  return {
    id,
    docId: id.split('/')[0]!,
    kind: 'section',
    title,
    sectionPath: [title],
    pageStart: page,
    pageEnd: page,
    text,
    summary: '',
    keywords: [],
    jurisdiction: 'EU',
    edition: 'test',
    language: 'en',
    links: [],
    retrieval: `${title} ${title} ${text}`,
  };
}

/** A retrieval result over `chunks` in the given order (scores descending). */
export function retrievalOf(chunks: Chunk[], query = 'q'): RetrievalResult {
  const block = assembleContext(chunks, 12_000);
  return {
    query,
    evidence: chunks.map((c, i) => ({
      id: c.id,
      row: i,
      score: 1 - i * 0.1,
      // score components are irrelevant here (and their shape belongs to retrieval)
      parts: { dense: 0, summary: 0, fused: 0, keywordHits: 0, rerank: null } as unknown as Evidence['parts'],
    })),
    ranked: chunks.map((c, i) => ({ id: c.id, row: i, score: 1 - i * 0.1, kept: true })),
    gates: [],
    noEvidence: chunks.length === 0,
    context: block.context,
    filters: {},
    broadened: false,
    trace: [],
    totalMs: 0,
  };
}

export const EMPTY_RETRIEVAL: RetrievalResult = retrievalOf([]);

/**
 * Deterministic fake embedder: a hashed bag of lower-cased word tokens
 * (unigrams, dimension 256), L2-normalised, so cosine ≈ shared-word overlap.
 * Counts its calls.
 */
export function bagOfWordsEmbedder(dim = 256): Embedder & { calls: number } {
  const vec = (text: string): Float32Array => {
    const v = new Float32Array(dim);
    for (const t of tokenize(text)) {
      let h = 2166136261;
      for (let i = 0; i < t.length; i++) h = Math.imul(h ^ t.charCodeAt(i), 16777619);
      v[(h >>> 0) % dim]! += 1;
    }
    let n = 0;
    for (const x of v) n += x * x;
    n = Math.sqrt(n) || 1;
    return v.map((x) => x / n);
  };
  const e = {
    modelId: 'test/bag-of-words',
    dimension: dim,
    calls: 0,
    async embed(texts: string[]) {
      e.calls++;
      return texts.map(vec);
    },
    async embedTokens(text: string) {
      return tokenize(text).map(vec);
    },
  };
  return e;
}

/** A streamed chunk the way WebLLM yields it. */
export const delta = (content: string, finish: string | null = null, extra: Partial<ChatCompletionChunkLike> = {}): ChatCompletionChunkLike => ({
  choices: [{ delta: { content }, finish_reason: finish }],
  model: 'Qwen3-1.7B-q4f16_1-MLC',
  ...extra,
});

export interface EngineScript {
  /** Chunks of each call, in order; a call without a script repeats the last one. */
  streams?: ChatCompletionChunkLike[][];
  /** Errors thrown by `create()` on the first calls (one per call, then success). */
  createErrors?: unknown[];
  /** Error thrown from the stream after `failAfterChunks` chunks on the first call. */
  streamError?: { afterChunks: number; error: unknown };
  /** After the scripted chunks, wait until interruptGenerate() (a long generation). */
  hangAfterChunks?: boolean;
}

/**
 * A ChatEngine test double shaped like WebLLM's engine: `chat.completions.create`
 * resolves to an async iterable of chunks; `interruptGenerate()` ends a hanging
 * stream with finish_reason "abort". Records every request.
 */
export function engineDouble(script: EngineScript = {}): ChatEngine & { requests: StreamingChatRequest[]; interrupts: number } {
  const createErrors = [...(script.createErrors ?? [])];
  let interrupted: (() => void) | null = null;
  const engine = {
    requests: [] as StreamingChatRequest[],
    interrupts: 0,
    interruptGenerate() {
      engine.interrupts++;
      interrupted?.();
    },
    chat: {
      completions: {
        async create(request: StreamingChatRequest): Promise<AsyncIterable<ChatCompletionChunkLike>> {
          const call = engine.requests.length;
          engine.requests.push(structuredClone(request));
          const err = createErrors.shift();
          if (err !== undefined) throw err;
          const streams = script.streams ?? [[delta('ok', 'stop')]];
          const chunks = streams[Math.min(call, streams.length - 1)]!;
          async function* gen(): AsyncGenerator<ChatCompletionChunkLike> {
            let i = 0;
            for (const c of chunks) {
              if (call === 0 && script.streamError && i === script.streamError.afterChunks) throw script.streamError.error;
              await new Promise((r) => setTimeout(r, 1));
              yield c;
              i++;
            }
            if (call === 0 && script.streamError && i === script.streamError.afterChunks) throw script.streamError.error;
            if (script.hangAfterChunks) {
              await new Promise<void>((r) => (interrupted = r));
              yield { choices: [{ delta: { content: '' }, finish_reason: 'abort' }] };
            }
          }
          return gen();
        },
      },
    },
  };
  return engine;
}
