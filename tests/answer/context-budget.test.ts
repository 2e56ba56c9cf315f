/**
 * The context budget for a model's window (contextCharsFor), the smoke profile that cuts the
 * prompt to a few hundred characters, and the closing instructions that name the first
 * passage's own marker as the citation form.
 */
import { describe, expect, it } from 'vitest';
import {
  answerConfig,
  CONTEXT_CHARS_PER_TOKEN,
  contextCharsFor,
  DEFAULT_ANSWER_CONFIG,
  INSTRUCTION_TOKENS,
  SMOKE_ANSWER_CONFIG,
} from '../../src/core/answer/config.js';
import { answerQuestion } from '../../src/core/answer/generation.js';
import { buildChatMessages, MINIMAL_STRUCTURED_PROMPT, MINIMAL_SYSTEM_PROMPT_NUMBERED } from '../../src/core/answer/messages.js';
import { contextMessage } from '../../src/core/answer/prompts.js';
import { delta, engineDouble, makeChunk, retrievalOf } from './helpers.js';

describe('context budget', () => {
  it('leaves the instructions and max_tokens of answer inside the window, capped at the retrieval default', () => {
    const chars = contextCharsFor(4096);
    expect(chars).toBe(Math.floor((4096 - DEFAULT_ANSWER_CONFIG.generation.max_tokens - INSTRUCTION_TOKENS) * CONTEXT_CHARS_PER_TOKEN));
    // prompt tokens at the assumed density + answer fit the window
    expect(chars / CONTEXT_CHARS_PER_TOKEN + INSTRUCTION_TOKENS + DEFAULT_ANSWER_CONFIG.generation.max_tokens).toBeLessThanOrEqual(4096);
    expect(contextCharsFor(32_768)).toBe(12_000);
    expect(contextCharsFor(1024)).toBe(0);
    expect(contextCharsFor(4096, { max_tokens: 1024 })).toBeLessThan(chars);
  });
});

describe('closing instructions', () => {
  it("show the first passage's own marker as the form to copy; no example without a marker", () => {
    const block = '[easa-amc-gm-2019-947/amc1-art11/s2.4/part-1] Robustness — p. 12\nText.';
    expect(contextMessage(block)).toContain('for example [easa-amc-gm-2019-947/amc1-art11/s2.4/part-1]');
    expect(contextMessage('plain text without markers')).not.toContain('for example');
  });
});

describe('smoke profile', () => {
  it('one short system line, the question and the first 240 characters of the context; a few greedy tokens', async () => {
    const a = makeChunk('doc/a', 'Training', 'Remote pilots shall complete online training. '.repeat(20));
    const b = makeChunk('doc/b', 'Age', 'The minimum age of remote pilots is 16 years.');
    const retrieval = retrievalOf([a, b]);
    const engine = engineDouble({ streams: [[delta('{"claims": [{"text": "Remote pilots shall complete online training.", "sources": [1]}', 'length')]] });
    const r = await answerQuestion({ question: 'Training?', retrieval, engine, config: SMOKE_ANSWER_CONFIG });
    const req = engine.requests[0]!;
    expect(req.max_tokens).toBe(20);
    expect(req.temperature).toBe(0);
    expect(req.messages).toHaveLength(2);
    expect(req.messages[0]).toEqual({ role: 'system', content: MINIMAL_STRUCTURED_PROMPT });
    expect(req.messages[1]!.content).toContain('[1] Training');
    expect(req.messages[1]!.content.length).toBeLessThan('Training?'.length + 20 + 240);
    // only passages whose marker survived the cut are citable: the schema offers passage 1 alone
    expect(JSON.parse(req.response_format!.schema!).properties.claims.items.properties.sources.items.enum).toEqual([1]);
    expect(r.contextIds).toEqual(['doc/a']);
    expect(r.status).toBe('truncated');
    expect(r.citations).toEqual(['doc/a']);
    // the minimal free-form line stays for answerForm 'free'
    const free = await answerQuestion({ question: 'Training?', retrieval, engine: engineDouble(), config: { ...SMOKE_ANSWER_CONFIG, answerForm: 'free' } });
    expect(free.messages[0]).toEqual({ role: 'system', content: MINIMAL_SYSTEM_PROMPT_NUMBERED });
    // the full profile sends the whole block with the SKYSAFE instructions
    const full = buildChatMessages({ question: 'Training?', context: retrieval.context, config: answerConfig({ citationMarkers: 'id' }) });
    expect(full.map((m) => m.content).join('\n')).toContain('[doc/b]');
  });
});
