/**
 * Answers on real model output in Node: the app's Ask turn (src/core/ask/turn.ts) over the static
 * index with the 0.5B GGUF in node-llama-cpp (the model the app runs in WebLLM). The default quoted
 * form: the quotations first, then the model's lead over them, each lead sentence checked against the
 * quoted units it cites (an invented one is flagged). The structured form (kept for measurement): the
 * answer schema as a grammar, every claim cites passages of its context, an injected claim is flagged.
 * One question written for this test from the SORA 2.5 text (not an evaluation question); a question
 * the documents do not hold makes no model call.
 *
 * Runs when SKYCITE_E2E_LLM=1 (.ci/run prepares the model and sets it): about a minute on two cores.
 */
import { existsSync } from 'node:fs';
import { resolve } from 'node:path';
import { afterAll, beforeAll, describe, expect, it } from 'vitest';
import { runTurn } from '../../src/core/ask/turn.js';
import { answerConfig } from '../../src/core/answer/config.js';
import type { AnswerResult } from '../../src/core/answer/generation.js';
import { createLlamaEngine, type LlamaEngine } from '../../corpus-build/node/llama-engine.js';
import { nodeEngine, nodeRetrieval, type NodeEngine } from '../../corpus-build/node/engine.js';

const GGUF = resolve('.cache/models/_sources/qwen2.5-coder-0.5b-instruct-q4_k_m.gguf');
const wanted = process.env['SKYCITE_E2E_LLM'] === '1';

describe.skipIf(!wanted)('answers from the real 0.5B model in Node', () => {
  let loaded: NodeEngine;
  let chat: LlamaEngine;
  const model = () => ({ engine: chat, contextWindow: 4096, modelId: 'qwen2.5-coder-0.5b-instruct-q4_k_m' });

  beforeAll(async () => {
    if (!existsSync(GGUF))
      throw new Error(`SKYCITE_E2E_LLM=1 but ${GGUF} is missing: run npm run models:prepare -- --model qwen2.5-coder-0.5b --quant q4f32_1.`);
    loaded = await nodeEngine({ reranker: false });
    chat = await createLlamaEngine(GGUF, { threads: 2 });
  }, 300_000);
  afterAll(async () => {
    await chat?.dispose();
  });

  it('every claim cites passages that were in its context, and a claim nothing supports is flagged', { timeout: 600_000 }, async () => {
    let answer: AnswerResult | null = null;
    const turn = await runTurn(
      {
        question: 'What does the SORA say about the maximum height of the operational volume?',
        index: { manifestSha: '' },
        settings: { assist: false, routerModel: false, answerConfig: answerConfig({ answerForm: 'structured' }) },
      },
      { retrieval: nodeRetrieval(loaded, null), model: model() },
      (e) => {
        if (e.type === 'answer') answer = e.answer;
      },
    );
    const raw = answer as AnswerResult | null;
    expect(raw?.structured, `the model was called and answered in the structured form (turn phase ${turn.phase})`).toBeTruthy();
    const s = raw!.structured!;
    expect(JSON.parse(s.raw)).toHaveProperty('claims'); // the grammar gave a whole JSON object
    expect(s.modelClaims.length).toBeGreaterThan(0);
    for (const c of s.modelClaims) {
      expect(c.sources.length).toBeGreaterThan(0);
      for (const id of c.sources) expect(raw!.contextIds).toContain(id);
    }
    // the turn checked every claim: one report sentence per claim
    expect(turn.grounding?.sentences).toHaveLength(turn.answer!.structured!.claims.length);

    // an invented claim among the model's, checked by the same path the turn uses
    const injected = [
      ...s.claims,
      { text: 'Every drone operator must pay an annual fee of 4,250 euro to the competent authority.', sources: [raw!.contextIds[0]!] },
    ];
    const report = await nodeRetrieval(loaded, null).checkGrounding(injected, raw!.contextIds);
    expect(report.sentences.at(-1)).toMatchObject({ kind: 'claim', supported: false });
    expect(report.verdict).toBe('Unsupported');
  });

  it(
    'the default quoted form: quotations first, then a lead whose sentences cite quoted units and are checked against them',
    { timeout: 600_000 },
    async () => {
      const retrieval = nodeRetrieval(loaded, null);
      const turn = await runTurn(
        {
          question: 'What does the SORA say about the maximum height of the operational volume?',
          index: { manifestSha: '' },
          settings: { assist: false, routerModel: false },
        },
        { retrieval, model: model() },
      );
      const quoted = turn.evidence?.quoted;
      expect(quoted?.quotes.length, `the ranker quoted units (turn phase ${turn.phase})`).toBeGreaterThan(0);
      const q = turn.answer?.quoted;
      expect(q, 'the answer is a quoted answer').toBeTruthy();
      // a lead (if the model wrote one) cites only the quoted units; the check ran on each of its sentences as the model wrote them
      for (const id of turn.answer!.citations) expect(quoted!.quotes.map((x) => x.chunkId)).toContain(id);
      // an invented sentence over the quoted units is flagged by the same check the turn uses
      const injected = [{ text: 'Every drone operator must pay an annual fee of 4,250 euro to the competent authority.', sources: [...q!.unitIds] }];
      const report = await retrieval.checkGrounding(injected, q!.unitIds);
      expect(report.sentences.at(-1)).toMatchObject({ kind: 'claim', supported: false });
    },
  );

  it('a question the documents do not hold makes no model call', { timeout: 120_000 }, async () => {
    let calls = 0;
    const counting = {
      ...chat,
      chat: { completions: { create: (r: Parameters<LlamaEngine['chat']['completions']['create']>[0]) => (calls++, chat.chat.completions.create(r)) } },
    };
    const turn = await runTurn(
      {
        question: 'What is the best recipe for a chocolate cake with strawberries?',
        index: { manifestSha: '' },
        settings: { assist: false, routerModel: false },
      },
      { retrieval: nodeRetrieval(loaded, null), model: { ...model(), engine: counting } },
    );
    expect(turn.noEvidence ?? turn.scope).toBeTruthy();
    expect(turn.answer).toBeNull();
    expect(calls).toBe(0);
  });
});
