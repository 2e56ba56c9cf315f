/**
 * Requirement drafting with a model (requirements-model.ts): the passages are numbered for the
 * model, its [n] markers become passage ids, each "- …" line is one candidate, and the source
 * check marks a statement its passages do not support.
 */
import { describe, expect, it } from 'vitest';
import { checkGrounding } from '../../src/core/answer/grounding.js';
import { DEFAULT_ANSWER_CONFIG } from '../../src/core/answer/config.js';
import { draftWithModel, parseRequirementLines, requirementsPrompt } from '../../src/core/agents/requirements-model.js';
import { bagOfWordsEmbedder, delta, engineDouble } from './helpers.js';

const PASSAGES = [
  {
    id: 'doc/c2-link',
    title: 'C2 link',
    text: 'The UAS operator shall define a procedure for the loss of the command and control link, including the actions of the remote pilot.',
  },
  { id: 'doc/battery', title: 'Batteries', text: 'Batteries shall be stored in a fireproof container when not in use.' },
];

/** The real source check over the given passages, with a deterministic embedder. */
const sourceCheck = () => {
  const embedder = bagOfWordsEmbedder();
  return (statement: string, ids: string[]) =>
    checkGrounding({ answer: statement, chunks: PASSAGES.filter((c) => ids.includes(c.id)), embedder, config: DEFAULT_ANSWER_CONFIG.grounding });
};

describe('requirement drafting with a model', () => {
  it('numbers the passages for the model and asks for at most N statements', () => {
    const p = requirementsPrompt('loss of the C2 link', PASSAGES, 5);
    expect(p.ids).toEqual(['doc/c2-link', 'doc/battery']);
    expect(p.user).toContain('[1] C2 link');
    expect(p.user).toContain('[2] Batteries');
    expect(p.user).toContain('at most 5');
    expect(p.user).not.toContain('[doc/c2-link]');
  });

  it('reads one candidate per list line, keeping only citations of given passages', () => {
    const lines = parseRequirementLines('Intro text.\n- The operator shall act [doc/c2-link].\n2) Another shall [doc/x, doc/battery]\nplain line', [
      'doc/c2-link',
      'doc/battery',
    ]);
    expect(lines).toEqual([
      { statement: 'The operator shall act.', citations: ['doc/c2-link'] },
      { statement: 'Another shall', citations: ['doc/battery'] },
    ]);
  });

  it('turns the reply into candidates with their passages, and the source check marks the unsupported one', async () => {
    const reply =
      '- The UAS operator shall define a procedure for the loss of the command and control link [1].\n' +
      '- The remote pilot shall hold a night rating issued by the national aviation school [2].\n';
    const engine = engineDouble({ streams: [[delta(reply, 'stop')]] });
    const draft = await draftWithModel({ description: 'loss of the C2 link', passages: PASSAGES, engine, check: sourceCheck() });
    expect(engine.requests).toHaveLength(1);
    expect(draft.passageIds).toEqual(['doc/c2-link', 'doc/battery']);
    expect(draft.requirements.map((r) => [r.id, r.citations, r.supported])).toEqual([
      ['M1', ['doc/c2-link'], true],
      ['M2', ['doc/battery'], false],
    ]);
    expect(draft.requirements[0]!.statement).toBe('The UAS operator shall define a procedure for the loss of the command and control link.');
    expect(draft.raw).toContain('[doc/c2-link]');
    expect(draft.aborted).toBe(false);
  });

  it('keeps a repeated statement once, and names the supporting passage when the model cited none', async () => {
    const line = '- The UAS operator shall define a procedure for the loss of the command and control link.';
    const engine = engineDouble({
      streams: [[delta(`${line}\n${line}\n- the uas operator shall define a procedure for the loss of the command and control link`, 'stop')]],
    });
    const draft = await draftWithModel({ description: 'loss of the C2 link', passages: PASSAGES, engine, check: sourceCheck() });
    expect(draft.requirements).toHaveLength(1);
    expect(draft.requirements[0]).toMatchObject({ citations: [], attributed: ['doc/c2-link'], supported: true });
  });

  it('keeps nothing when the model says no requirement can be derived', async () => {
    const engine = engineDouble({ streams: [[delta('No requirement can be derived from these passages.', 'stop')]] });
    const draft = await draftWithModel({
      description: 'x',
      passages: PASSAGES,
      engine,
      check: async () => {
        throw new Error('not called');
      },
    });
    expect(draft.requirements).toEqual([]);
  });
});
