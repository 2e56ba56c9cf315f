import { describe, expect, it } from 'vitest';
import { alternativesFrom, assistQuery, parseQueryAssistance, QUERY_ASSIST_SCHEMA } from '../../src/core/answer/query-assist.js';
import type { ChatEngine, StreamingChatRequest } from '../../src/core/llm/engine.js';

const engineReplying = (reply: string, seen: StreamingChatRequest[] = []): ChatEngine => ({
  chat: {
    completions: {
      async create(req) {
        seen.push(req);
        return (async function* () {
          for (const part of reply.match(/.{1,7}/gs) ?? []) yield { choices: [{ delta: { content: part }, finish_reason: null }] };
          yield { choices: [{ delta: {}, finish_reason: 'stop' }] };
        })();
      },
    },
  },
  interruptGenerate() {},
});

describe('model-assisted retrieval (rewrite, hypothetical answer, sub-questions)', () => {
  it('asks for constrained JSON and turns the reply into alternative formulations', async () => {
    const seen: StreamingChatRequest[] = [];
    const reply = JSON.stringify({
      rewritten: 'Is an operational authorisation required?',
      hypothetical_answer: 'The operator shall obtain an authorisation.',
      sub_questions: ['Who issues it?'],
    });
    const a = await assistQuery('do I need a permit', engineReplying(reply, seen));
    expect(seen[0]!.response_format).toEqual({ type: 'json_object', schema: JSON.stringify(QUERY_ASSIST_SCHEMA) });
    expect(seen[0]!.messages.at(-1)).toEqual({ role: 'user', content: 'do I need a permit' });
    expect(a.parsed).toBe(true);
    expect(alternativesFrom(a).map((x) => x.label)).toEqual(['model rewrite', 'hypothetical answer', 'sub-question 1']);
  });

  it('keeps the complete fields of a reply cut off by the token limit', () => {
    const cut =
      '{"rewritten": "Is a UA allowed over assemblies of people?", "hypothetical_answer": "Operations over assemblies", "sub_questions": ["Does he need permission to fly over the school? Does he need';
    expect(parseQueryAssistance(cut)).toEqual({
      rewritten: 'Is a UA allowed over assemblies of people?',
      hypothetical: 'Operations over assemblies',
      subQuestions: [],
    });
  });

  it('gives no alternatives for an unusable reply, so retrieval uses the question alone', async () => {
    const a = await assistQuery('q', engineReplying('I cannot help with that.'));
    expect(a.parsed).toBe(false);
    expect(alternativesFrom(a)).toEqual([]);
  });
});
