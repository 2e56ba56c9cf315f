import { describe, expect, it } from 'vitest';
import { prefilterRoute, routeMessage } from '../../src/core/route/router.js';
import { createLlmRouterClassifier, parseRouterVerdict, routerMessages } from '../../src/core/route/router-classifier.js';
import type { CompletionModel } from '../../src/core/llm/complete.js';

const scripted = (reply: string | Error): CompletionModel & { calls: number } => {
  const m = {
    calls: 0,
    async complete() {
      m.calls++;
      if (reply instanceof Error) throw reply;
      return reply;
    },
  };
  return m;
};

// a message the pre-filter cannot decide (one word: left to the model)
const AMBIGUOUS = 'population?';

describe('LLM router classifier', () => {
  it('is only consulted for messages the pre-filter leaves undecided', async () => {
    expect(prefilterRoute(AMBIGUOUS, []).decided).toBe(false);
    const model = scripted('{"path":"both","confidence":0.8,"reasoning":"needs the iGRC and the text"}');
    const d = await routeMessage(AMBIGUOUS, [], createLlmRouterClassifier(model));
    expect(d.path).toBe('both');
    expect(d.reasoning).toMatch(/^classifier: needs the iGRC/);
    expect(model.calls).toBe(1);
    const CLEAR = 'What is the SAIL for GRC 4 and ARC-c?';
    expect(prefilterRoute(CLEAR, []).decided).toBe(true);
    const clear = await routeMessage(CLEAR, [], createLlmRouterClassifier(model));
    expect(clear.path).toBe(prefilterRoute(CLEAR, []).decision.path);
    expect(model.calls).toBe(1);
  });

  it('accepts fenced JSON and a reasoning block, and rejects unknown paths', () => {
    expect(parseRouterVerdict('<think>hmm</think>```json\n{"path":"rules","confidence":0.9,"reasoning":"definition"}\n```')).toEqual({
      path: 'rules',
      confidence: 0.9,
      reasoning: 'definition',
    });
    expect(parseRouterVerdict('{"path":"web","confidence":1}')).toBeNull();
    expect(parseRouterVerdict('I think rules')).toBeNull();
  });

  it("falls back to the pre-filter's path with low confidence when the model fails or answers badly", async () => {
    const pre = prefilterRoute(AMBIGUOUS, []).decision;
    for (const model of [scripted(new Error('device lost')), scripted('not json')]) {
      const d = await routeMessage(AMBIGUOUS, [], createLlmRouterClassifier(model));
      expect(d.path).toBe(pre.path);
      expect(d.confidence).toBeLessThanOrEqual(0.5);
      expect(d.reasoning).toMatch(/unusable/);
    }
  });

  it("shows the model the recent conversation with each turn's path", () => {
    const msgs = routerMessages({
      message: 'and for ARC-d?',
      history: [{ role: 'user', content: 'SAIL for GRC 4 and ARC-c?', path: 'database' }],
      prefilter: prefilterRoute('and for ARC-d?', []),
    });
    expect(msgs[1]!.content).toContain('user (database): SAIL for GRC 4 and ARC-c?');
  });
});
