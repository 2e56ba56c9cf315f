import { describe, expect, it } from 'vitest';
import { answerQuestion } from '../../src/core/answer/generation.js';
import { NO_ANSWER_TEXT } from '../../src/core/answer/prompts.js';
import { EMPTY_RETRIEVAL, engineDouble, makeChunk, retrievalOf } from './helpers.js';

describe('the no-context rule', () => {
  it('answers exactly "I cannot provide an answer for this question" without calling the engine', async () => {
    const engine = engineDouble();
    const tokens: string[] = [];
    const r = await answerQuestion({ question: 'What is the capital of France?', retrieval: EMPTY_RETRIEVAL, engine, onToken: (t) => tokens.push(t) });
    expect(r.answer).toBe(NO_ANSWER_TEXT);
    expect(r.answer).toBe('I cannot provide an answer for this question');
    expect(r.status).toBe('no-context');
    expect(engine.requests).toHaveLength(0);
    expect(engine.interrupts).toBe(0);
    expect(r.attempts).toBe(0);
    expect(r.messages).toEqual([]);
    expect(tokens).toEqual([]);
  });

  it('also applies when retrieval flags noEvidence even if a stale context string is present', async () => {
    const engine = engineDouble();
    const retrieval = { ...retrievalOf([makeChunk('skysafe-sora-curated/1', 't', 'x')]), noEvidence: true };
    const r = await answerQuestion({ question: 'q', retrieval, engine });
    expect(r.answer).toBe(NO_ANSWER_TEXT);
    expect(engine.requests).toHaveLength(0);
  });
});
