/** Test doubles for the indicator workflow: a canned retrieval engine and a scripted model. */
import type { Chunk } from '../../../src/core/model/chunk.js';
import { assembleContext } from '../../../src/core/retrieval/context.js';
import type { IndicatorRetrieval, RetrievedEvidence } from '../../../src/core/indicators/sources.js';
import type { ChatMessage } from '../../../src/core/llm/engine.js';
import type { CompletionOptions, CompletionModel } from '../../../src/core/llm/complete.js';

export function chunk(id: string, title: string, text: string, page: number | null = 24, docId = id.split('/')[0] ?? 'doc'): Chunk {
  return {
    id,
    docId,
    kind: 'section',
    title,
    sectionPath: [title],
    pageStart: page,
    pageEnd: page,
    text,
    summary: text.slice(0, 80),
    keywords: [],
    jurisdiction: 'EU',
    edition: 'test edition',
    language: 'en',
    links: [],
    retrieval: `${title} ${title} ${text}`,
  };
}

export const CHUNKS = {
  table1: chunk(
    'easa-amc-gm-2019-947/amc1-art11/s4.2.3/table-1',
    'Table 1 — Intrinsic ground risk class (GRC) determination',
    'Maximum iGRC population density (people/km2) … Controlled ground area 1 1 2 3 3 …',
    24,
  ),
  before: chunk(
    'easa-amc-gm-2019-947/amc1-art11/s3.2',
    'S.3.2 Before starting the SORA process',
    'Before starting the SORA process, the following should be verified: whether the intended UAS operation falls under the ‘open’ category; whether it is covered by a standard scenario (STS); whether it is covered by one of the PDRAs.',
    19,
  ),
  pdraS01: chunk(
    'skysafe-sora-curated/99',
    'PDRA-S01 Scope and Operational Conditions under AMC4 Article 11',
    'VLOS over a controlled ground area, maximum characteristic dimension up to 3 m.',
    null,
  ),
  atypical: chunk(
    'easa-amc-gm-2019-947/amc1-art11/s4.4.4',
    'S.4.4.4 Instructions',
    'An atypical air environment (leading to ARC-a classification) is defined as airspace where …',
    32,
  ),
} as const;

export interface FakeRetrieval extends IndicatorRetrieval {
  readonly queries: string[];
}

/** Returns the same chunks (context assembled by the real assembler) for every query; [] = no evidence. */
export function fakeRetrieval(chunks: readonly Chunk[] | ((query: string) => readonly Chunk[])): FakeRetrieval {
  const queries: string[] = [];
  return {
    queries,
    async retrieve(query): Promise<RetrievedEvidence> {
      queries.push(query);
      const list = typeof chunks === 'function' ? chunks(query) : chunks;
      const ctx = assembleContext([...list], 12_000);
      return { evidence: list.map((c) => ({ id: c.id })), context: ctx.context, noEvidence: list.length === 0 };
    },
  };
}

export type Script = string | Error | ((messages: readonly ChatMessage[], call: number) => string);

export interface ScriptedModel extends CompletionModel {
  readonly calls: { messages: readonly ChatMessage[]; options: CompletionOptions }[];
}

/**
 * A model double. `script(indicator)` gives the outputs for successive calls about that indicator
 * (an Error is thrown; the last entry repeats).
 */
export function scriptedModel(script: (indicator: string) => readonly Script[], id = 'test-double'): ScriptedModel {
  const calls: ScriptedModel['calls'] = [];
  const perIndicator = new Map<string, number>();
  return {
    id,
    calls,
    async complete(messages, options) {
      calls.push({ messages, options });
      const request = messages.find((m) => m.role === 'user')?.content ?? '';
      const indicator = /Requested indicator: (\S+)/.exec(request)?.[1] ?? '?';
      const n = perIndicator.get(indicator) ?? 0;
      perIndicator.set(indicator, n + 1);
      const list = script(indicator);
      const step = list[Math.min(n, list.length - 1)];
      if (step === undefined) throw new Error(`no script for ${indicator}`);
      if (step instanceof Error) throw step;
      return typeof step === 'function' ? step(messages, n) : step;
    },
  };
}

export const out = (name: string, value: string | number, explanation = `Because of [${CHUNKS.before.id}].`) => JSON.stringify({ name, value, explanation });

export const BASE_INPUT = {
  mtom_category: 'below_4kg',
  visual_mode: 'VLOS',
  ground_environment: 'sparsely_populated',
  airspace_type: 'uncontrolled',
  max_altitude_category: 'up_to_120m',
} as const;

export const FIXED_NOW = () => new Date('2025-01-02T03:04:05.000Z');
