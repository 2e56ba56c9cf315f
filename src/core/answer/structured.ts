/**
 * Structured answers: the model writes a JSON object under a schema both runtimes enforce
 * (WebLLM's `response_format` in the browser, a node-llama-cpp grammar in Node):
 *
 *   {"claims": [{"text": "…", "sources": [2]}, …], "notInPassages": "…"}
 *
 * Every claim carries 1–`maxSourcesPerClaim` passage numbers from an enum of the numbers
 * given, so an answer cites every claim by construction. An empty claim list with
 * `notInPassages` is the refusal. Claims are read as they complete while the JSON streams
 * (@streamparser/json emits a claim once its closing brace arrives), so a stop or a cut-off
 * keeps the complete claims and reports the rest. Pure: no engine here (generation.ts).
 */
import { JSONParser } from '@streamparser/json';
import { parseReplyJson } from '../llm/json.js';
import type { AnswerClaim } from './grounding.js';
import type { StructuredLimits } from './config.js';
import type { RemovedCitation } from './citations.js';
import { citedIds, claimLine, outOfContextId } from './citations.js';
import type { GroundingReport } from './grounding.js';
import type { SectionLabel } from './prompts.js';

/** A claim as the model wrote it: passage numbers, not ids. */
export interface ModelClaim {
  text: string;
  sources: number[];
}

/** The JSON schema of an answer over `passages` numbered passages. */
export function answerSchema(passages: number, limits: StructuredLimits): object {
  const numbers = Array.from({ length: Math.max(1, passages) }, (_, i) => i + 1);
  return {
    type: 'object',
    properties: {
      claims: {
        type: 'array',
        ...(limits.minClaims > 0 ? { minItems: limits.minClaims } : {}),
        maxItems: limits.maxClaims,
        items: {
          type: 'object',
          properties: {
            text: { type: 'string', minLength: 1, maxLength: limits.maxClaimChars },
            sources: { type: 'array', minItems: 1, maxItems: limits.maxSourcesPerClaim, items: { type: 'integer', enum: numbers } },
          },
          required: ['text', 'sources'],
        },
      },
      notInPassages: { type: 'string', maxLength: limits.maxNotInPassagesChars },
    },
    required: ['claims', 'notInPassages'],
  };
}

/** A model claim when it has the schema's shape (text and integer sources), else null. */
export function asModelClaim(value: unknown): ModelClaim | null {
  if (typeof value !== 'object' || value === null) return null;
  const v = value as Record<string, unknown>;
  if (typeof v.text !== 'string' || !v.text.trim() || !Array.isArray(v.sources)) return null;
  const sources = v.sources.filter((n): n is number => typeof n === 'number' && Number.isInteger(n));
  return { text: v.text.trim(), sources };
}

/**
 * Complete claims out of a streamed JSON reply. `push` returns the claims completed by a delta;
 * `end` says whether the reply was a complete object, and why not.
 */
export class ClaimStream {
  private readonly parser = new JSONParser({ paths: ['$.claims.*', '$.notInPassages'], keepStack: false });
  private readonly ready: ModelClaim[] = [];
  private readonly all: ModelClaim[] = [];
  private notIn: string | null = null;
  private failure: string | null = null;
  private ended = false;
  /** Claims that did not have the schema's shape (possible only without constrained decoding). */
  malformedClaims = 0;

  constructor() {
    this.parser.onValue = ({ value, key }) => {
      if (key === 'notInPassages') {
        if (typeof value === 'string') this.notIn = value.trim();
        return;
      }
      const claim = asModelClaim(value);
      if (!claim) {
        this.malformedClaims++;
        return;
      }
      this.ready.push(claim);
      this.all.push(claim);
    };
    this.parser.onError = (e: Error) => {
      this.failure ??= e.message;
    };
    this.parser.onEnd = () => {
      this.ended = true;
    };
  }

  /** Feed a delta of the reply; the claims it completed. */
  push(delta: string): ModelClaim[] {
    if (delta && this.failure === null && !this.ended) {
      try {
        this.parser.write(delta);
      } catch (e) {
        this.failure ??= (e as Error).message;
      }
    }
    return this.ready.splice(0);
  }

  /** Every complete claim so far. */
  get claims(): readonly ModelClaim[] {
    return this.all;
  }

  /** What the model said the passages do not cover (null until that field completed). */
  get notInPassages(): string | null {
    return this.notIn;
  }

  /** True when a whole JSON object was read. */
  get complete(): boolean {
    return this.ended && this.failure === null;
  }

  /** Why the reply is not a complete object (null when it is). */
  get problem(): string | null {
    if (this.failure) return `the reply is not valid JSON: ${this.failure}`;
    if (!this.ended) return 'the reply ended before its JSON object was complete';
    return null;
  }
}

export interface ResolvedClaims {
  /** Claims with chunk ids (sources outside the context dropped, duplicates merged). */
  claims: AnswerClaim[];
  /** Source numbers outside the context, as `outOfContextId(n)` (reported like an invented id). */
  removed: RemovedCitation[];
}

/** Passage numbers → chunk ids (`ids[n - 1]`); numbers outside the context are dropped and reported. */
export function resolveClaims(claims: readonly ModelClaim[], ids: readonly string[], maxSources = Infinity): ResolvedClaims {
  const removed: RemovedCitation[] = [];
  const out = claims.map((c, i) => {
    const sources: string[] = [];
    for (const n of c.sources) {
      const id = ids[n - 1];
      if (!id) removed.push({ id: outOfContextId(n), at: i });
      else if (!sources.includes(id) && sources.length < maxSources) sources.push(id);
    }
    return { text: c.text, sources };
  });
  return { claims: out, removed };
}

/** Heading of the model's own statement of what the passages do not cover: the answer's "Missing information" section. */
export const NOT_IN_PASSAGES_LABEL: SectionLabel = 'Missing information';

/** The answer text: one claim per list item with its `[chunk-id]` marker, then what the passages do not cover. */
export function renderClaims(claims: readonly AnswerClaim[], notInPassages: string | null): string {
  const lines = claims.map((c) => `- ${claimLine(c.text, c.sources)}`);
  const gap = notInPassages?.trim();
  if (gap) lines.push(`${lines.length ? '\n' : ''}${NOT_IN_PASSAGES_LABEL}: ${gap}`);
  return lines.join('\n');
}

/**
 * The text of the claim being written after `completed` complete claims, read from the partial reply
 * (''  when none has begun). Only for showing progress: it is never checked, cited or kept.
 */
export function draftClaim(partialReply: string, completed: number): string {
  const claims = parseReplyJson(partialReply, { partialStrings: true })?.value.claims;
  if (!Array.isArray(claims) || claims.length <= completed) return '';
  const c = claims[completed] as unknown;
  return typeof c === 'object' && c !== null && typeof (c as { text?: unknown }).text === 'string' ? (c as { text: string }).text : '';
}
