/**
 * The Requirements view's model drafting (src/ui/requirements/model-draft.ts): it gives the model the
 * passages the evidence-only draft cites, cut to the model's budget, and checks each candidate with
 * the runtime's source check; without a model it says what to do.
 */
import { describe, expect, it } from 'vitest';
import type { RequirementDraft } from '../../src/core/agents/requirements.js';
import { draftRequirementsWithModel, modelDraftToMarkdown } from '../../src/ui/requirements/model-draft.js';
import { delta, engineDouble, makeChunk } from '../answer/helpers.js';

const chunk = makeChunk('doc/c1', 'C2 link', 'The UAS operator shall define a procedure for the loss of the command and control link. '.repeat(200));
const draft: RequirementDraft = {
  query: 'loss of the C2 link',
  mode: 'evidence-only',
  createdAt: '2026-11-23T10:00:00.000Z',
  documents: [],
  requirements: [
    {
      id: 'R1',
      statement: 'The UAS operator shall define a procedure.',
      modal: 'shall',
      group: 'g',
      rationale: 'r',
      source: { chunkId: 'doc/c1', document: 'D', edition: 'E', section: 'S', pages: 'page 1' },
      verbatim: true,
      sourceVerbatim: true,
    },
  ],
  noEvidence: false,
};

describe('drafting requirements with the loaded model', () => {
  it('sends the cited passage cut to the window budget and returns the checked candidates', async () => {
    const engine = engineDouble({ streams: [[delta('- The UAS operator shall define a procedure for the loss of the C2 link [1].', 'stop')]] });
    const checked: string[][] = [];
    const runtime = {
      getChunk: async (id: string) => (id === 'doc/c1' ? chunk : null),
      checkGrounding: async (_a: string, ids: string[]) => {
        checked.push(ids);
        return { sentences: [{ kind: 'claim', supported: true, reason: 'supported by [doc/c1]' }] } as never;
      },
    };
    const d = await draftRequirementsWithModel({ runtime, chat: { engine, contextWindow: 4096 } }, draft);
    const user = engine.requests[0]!.messages.find((m) => m.role === 'user')!.content as string;
    expect(user).toContain('[1] C2 link');
    expect(user.length).toBeLessThan(8000); // the 17,000-character passage was cut to the 4,096-token window's budget
    expect(checked).toEqual([['doc/c1']]);
    expect(d.requirements).toMatchObject([{ id: 'M1', citations: ['doc/c1'], supported: true }]);
    expect(modelDraftToMarkdown(d)).toContain(
      'M1: The UAS operator shall define a procedure for the loss of the C2 link. [doc/c1] — supported by its passages',
    );
  });

  it('says to load a model when none is loaded', async () => {
    const runtime = { getChunk: async () => null, checkGrounding: async () => ({}) as never };
    await expect(draftRequirementsWithModel({ runtime, chat: null }, draft)).rejects.toThrow(/Load one in Settings/);
  });
});
