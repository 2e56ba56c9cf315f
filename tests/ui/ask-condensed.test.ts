/**
 * "Answer from the consulted documents" (Settings): with a model loaded, each kept document's passages
 * are condensed by the model, the notes are held to the passages by the source check, and the answer
 * is written from those notes; with the setting off, or evidence-only, nothing changes.
 */
import { describe, expect, it, vi } from 'vitest';
import { CONDENSE_SYSTEM_PROMPT } from '../../src/core/agents/condense';
import { answerConfig } from '../../src/core/answer/config';
import type { StreamingChatRequest } from '../../src/core/llm/engine';
import { AskSession } from '../../src/ui/ask/session.svelte';
import { delta } from '../answer/helpers';
import { CHUNKS, createFakeRuntime } from './fake-runtime';
import { appStandIn, chatStandIn } from './stand-ins';

const IGRC = CHUNKS[0]!.id;
const QUESTION = 'How is the intrinsic ground risk class determined from the population density?';
const NOTE = 'The intrinsic ground risk class is determined with Table 1.';
const INVENTED = 'The intrinsic ground risk class is doubled over water at night.';
// the tests that read the answer request from the double check the free-form answer path (the double writes prose)
const FREE = answerConfig({ answerForm: 'free' });

/** Structured replies: the condensation gets notes (one the passage states, one it does not); the other calls a neutral reply. */
const replies = [
  (request: StreamingChatRequest) =>
    request.messages[0]!.content === CONDENSE_SYSTEM_PROMPT
      ? JSON.stringify({
          notes: [
            { passage: 1, text: NOTE },
            { passage: 1, text: INVENTED },
          ],
        })
      : '{"rewritten": "", "hypothetical_answer": "", "sub_questions": []}',
];

describe('Ask session: answering from the consulted documents’ condensed contexts', () => {
  it('condenses each kept document, drops the note its passage does not state, and answers from the notes', async () => {
    const chat = chatStandIn({ streams: [[delta(`${NOTE.replace('.', '')} [1].`, 'stop')]] }, replies);
    const app = appStandIn({ chat, runtime: createFakeRuntime(CHUNKS, { documents: true }), settings: { answerFromDocuments: true } });
    const turn = await new AskSession({ ...app, answerConfig: FREE }).ask(QUESTION);
    expect(turn.state.phase).toBe('done');
    const condenseCalls = chat.structuredCalls.filter((c) => c.messages[0]!.content === CONDENSE_SYSTEM_PROMPT);
    expect(condenseCalls.length).toBe(turn.state.ask!.documents!.consulted.filter((d) => d.kept).length);
    expect(condenseCalls[0]!.messages[1]!.content).toContain(`Question: ${QUESTION}`);
    expect(condenseCalls[0]!.schema).toMatchObject({ properties: { notes: { type: 'array' } } });
    const igrcDoc = turn.state.condensed!.find((c) => c.statements.some((s) => s.citations.includes(IGRC)))!;
    expect(igrcDoc.mode).toBe('model');
    expect(igrcDoc.dropped).toEqual([INVENTED]);
    // the answer's context is the notes, not the passages' full text; the model saw the note and not the invented one
    const answerRequest = chat.double.requests.at(-1)!;
    const prompt = answerRequest.messages.map((m) => m.content).join('\n');
    expect(prompt).toContain(NOTE);
    expect(prompt).not.toContain(INVENTED);
    expect(prompt).not.toContain('The population density selects the row.');
    expect(turn.state.ask!.retrieval.context).toContain(`[${IGRC}] ${NOTE}`);
    expect(turn.state.answer!.citations).toEqual([IGRC]);
    // the audit record keeps the context the answer was written from, and per document what was kept; dropped notes are counted, not stored
    await vi.waitFor(async () => expect((await app.audit.list({ limit: 5 })).records[0]?.context).toContain(NOTE));
    const [record] = (await app.audit.list({ limit: 5 })).records;
    const audited = record!.answerContext!.documents.find((d) => d.documentId === igrcDoc.documentId)!;
    expect(audited).toEqual({ documentId: igrcDoc.documentId, mode: 'model', reason: igrcDoc.reason, notes: [{ text: NOTE, citations: [IGRC] }], dropped: 1 });
    expect(JSON.stringify(record)).not.toContain(INVENTED);
  });

  it('with the setting off the answer uses the flat passages and the model condenses nothing', async () => {
    const chat = chatStandIn({ streams: [[delta(`${NOTE.replace('.', '')} [1].`, 'stop')]] }, replies);
    const app = appStandIn({ chat, runtime: createFakeRuntime(CHUNKS, { documents: true }) });
    const turn = await new AskSession({ ...app, answerConfig: FREE }).ask(QUESTION);
    expect(turn.state.phase).toBe('done');
    expect(turn.state.condensed).toBeNull();
    await vi.waitFor(async () => expect((await app.audit.list({ limit: 5 })).records).toHaveLength(1));
    expect((await app.audit.list({ limit: 5 })).records[0]!.answerContext).toBeUndefined();
    expect(chat.structuredCalls.some((c) => c.messages[0]!.content === CONDENSE_SYSTEM_PROMPT)).toBe(false);
    expect(
      chat.double.requests
        .at(-1)!
        .messages.map((m) => m.content)
        .join('\n'),
    ).toContain('The population density selects the row.');
  });

  it('falls back to the document’s passages, with the reason, when the model fails while condensing', async () => {
    const failing = [
      (request: StreamingChatRequest) => {
        if (request.messages[0]!.content === CONDENSE_SYSTEM_PROMPT) throw new Error('device lost');
        return '{"rewritten": "", "hypothetical_answer": "", "sub_questions": []}';
      },
    ];
    const chat = chatStandIn({ streams: [[delta(`${NOTE.replace('.', '')} [1].`, 'stop')]] }, failing);
    const app = appStandIn({ chat, runtime: createFakeRuntime(CHUNKS, { documents: true }), settings: { answerFromDocuments: true } });
    const turn = await new AskSession(app).ask(QUESTION);
    expect(turn.state.phase).toBe('done');
    expect(turn.state.condensed!.every((c) => c.mode === 'extractive' && /the model failed/.test(c.reason))).toBe(true);
    expect(turn.state.ask!.retrieval.context).toContain('The population density selects the row.');
    expect(turn.state.answer!.status).toBe('complete');
  });
});
