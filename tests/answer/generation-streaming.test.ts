import { describe, expect, it } from 'vitest';
import { answerConfig } from '../../src/core/answer/config.js';
import { ContextTooLongError, GenerationError, GpuMemoryError } from '../../src/core/llm/errors.js';
import { answerQuestion } from '../../src/core/answer/generation.js';
import { delta, engineDouble, makeChunk, retrievalOf } from './helpers.js';

const C1 = makeChunk(
  'skysafe-sora-curated/17',
  'Intrinsic ground risk',
  'The iGRC is determined from the UA characteristic dimension and the population density.',
);
const retrieval = retrievalOf([C1]);
// these tests check the free-form answer path (the test double streams prose with markers)
const config = answerConfig({ answerForm: 'free', retry: { delayMs: 0 } });

const ANSWER_CHUNKS = [
  delta('## Answer\n'),
  delta('The iGRC is determined from the UA characteristic '),
  delta('dimension and the population density [skysafe-sora-'),
  delta('curated/17].'),
  delta('', 'stop'),
];

describe('answerQuestion streams from a WebLLM-shaped engine', () => {
  it('streams answer tokens, sends SKYSAFE generation parameters and records the audit fields', async () => {
    const engine = engineDouble({ streams: [ANSWER_CHUNKS] });
    const tokens: string[] = [];
    const r = await answerQuestion({
      question: 'How is the iGRC determined?',
      retrieval,
      engine,
      config,
      onToken: (t, ch) => ch === 'answer' && tokens.push(t),
    });
    expect(tokens.join('')).toBe(ANSWER_CHUNKS.map((c) => c.choices[0]!.delta.content).join(''));
    expect(r.status).toBe('complete');
    expect(r.answer).toBe('## Answer\nThe iGRC is determined from the UA characteristic dimension and the population density [skysafe-sora-curated/17].');
    expect(r.citations).toEqual(['skysafe-sora-curated/17']);
    expect(r.display.text).toContain('population density [1].');
    expect(r.modelId).toBe('Qwen3-1.7B-q4f16_1-MLC');
    expect(r.attempts).toBe(1);
    expect(r.contextIds).toEqual(['skysafe-sora-curated/17']);
    const req = engine.requests[0]!;
    expect(req).toMatchObject({ stream: true, temperature: 0.2, top_p: 0.9, presence_penalty: 0, frequency_penalty: 0 });
    expect(req.messages).toEqual(r.messages);
    expect(r.params).toMatchObject({ temperature: 0.2, top_p: 0.9 });
    expect(JSON.parse(JSON.stringify(r))).toMatchObject({ answer: r.answer, modelId: r.modelId });
  });

  it('marks a generation cut by max_tokens as truncated', async () => {
    const engine = engineDouble({ streams: [[delta('Partial'), delta(' text', 'length')]] });
    const r = await answerQuestion({ question: 'q', retrieval, engine, config });
    expect(r.status).toBe('truncated');
  });
});

describe('abort (stop button)', () => {
  it('interrupts the engine mid-stream and returns the partial answer marked as stopped', async () => {
    const engine = engineDouble({ streams: [[delta('The iGRC is '), delta('determined from')]], hangAfterChunks: true });
    const controller = new AbortController();
    const seen: string[] = [];
    const r = await answerQuestion({
      question: 'q',
      retrieval,
      engine,
      config,
      signal: controller.signal,
      onToken: (t) => {
        seen.push(t);
        if (seen.join('').includes('determined')) controller.abort();
      },
    });
    expect(r.status).toBe('stopped');
    expect(r.stopped).toBe(true);
    expect(r.answer).toBe('The iGRC is determined from');
    expect(engine.interrupts).toBe(1);
    expect(r.attempts).toBe(1);
  });

  it('stops even if the engine never yields again after the abort', async () => {
    const engine = engineDouble({ streams: [[delta('Start')]], hangAfterChunks: true });
    engine.interruptGenerate = () => {
      engine.interrupts++; // an engine that ignores the interrupt
    };
    const controller = new AbortController();
    setTimeout(() => controller.abort(), 20);
    const r = await answerQuestion({ question: 'q', retrieval, engine, config, signal: controller.signal });
    expect(r).toMatchObject({ status: 'stopped', answer: 'Start' });
    expect(engine.interrupts).toBe(1);
  });

  it('does not call the engine when already aborted', async () => {
    const engine = engineDouble();
    const controller = new AbortController();
    controller.abort();
    const r = await answerQuestion({ question: 'q', retrieval, engine, config, signal: controller.signal });
    expect(r.status).toBe('stopped');
    expect(engine.requests).toHaveLength(0);
  });
});

describe('engine failure → retry once → typed error', () => {
  it('retries a transient failure once and succeeds, telling the UI to discard the partial text', async () => {
    const engine = engineDouble({
      streams: [[delta('Half an ans'), delta('wer')], ANSWER_CHUNKS],
      streamError: { afterChunks: 1, error: new Error('Worker message channel closed unexpectedly') },
    });
    const retries: string[] = [];
    const r = await answerQuestion({ question: 'q', retrieval, engine, config, onRetry: ({ error }) => retries.push(error.name) });
    expect(r.attempts).toBe(2);
    expect(retries).toEqual(['GenerationError']);
    expect(r.answer).toContain('[skysafe-sora-curated/17]');
    expect(engine.requests).toHaveLength(2);
  });

  it('throws a typed GenerationError after the retry also fails', async () => {
    const engine = engineDouble({ createErrors: [new Error('boom 1'), new Error('boom 2')] });
    const p = answerQuestion({ question: 'q', retrieval, engine, config });
    await expect(p).rejects.toBeInstanceOf(GenerationError);
    await expect(p).rejects.toMatchObject({ code: 'generation', retryable: true, detail: expect.stringContaining('boom 2') });
    expect(engine.requests).toHaveLength(2);
  });

  it('does not retry a non-transient failure (device lost → GpuMemoryError, as the worker forwards it: a string)', async () => {
    const engine = engineDouble({
      createErrors: ['DeviceLostError: The WebGPU device was lost while loading the model. This issue often occurs due to running out of memory (OOM).'],
    });
    await expect(answerQuestion({ question: 'q', retrieval, engine, config })).rejects.toBeInstanceOf(GpuMemoryError);
    expect(engine.requests).toHaveLength(1);
  });

  it('retries a context-window overflow once without the conversation history', async () => {
    const overflow = new Error('Prompt tokens exceed context window size: number of prompt tokens: 5000; context window size: 4096');
    overflow.name = 'ContextWindowSizeExceededError';
    const engine = engineDouble({ createErrors: [overflow], streams: [ANSWER_CHUNKS] });
    const history = [{ question: 'earlier', answer: 'earlier answer' }];
    const r = await answerQuestion({ question: 'q', history, retrieval, engine, config });
    expect(r.attempts).toBe(2);
    expect(engine.requests[0]!.messages.some((m) => m.content === 'earlier')).toBe(true);
    expect(engine.requests[1]!.messages.some((m) => m.content === 'earlier')).toBe(false);
    const engine2 = engineDouble({ createErrors: [overflow] });
    await expect(answerQuestion({ question: 'q', retrieval, engine: engine2, config })).rejects.toBeInstanceOf(ContextTooLongError);
  });
});
