/**
 * The refined context condensed by the model (condense.ts): the model's notes are kept only when the
 * source check finds them in the passages, each line names its passage for the answer prompt, and
 * anything else (nothing relevant, a failure, a stop, notes the passages do not state) falls back to
 * the extractive refined context with the reason.
 */
import { describe, expect, it } from 'vitest';
import { checkGrounding } from '../../src/core/answer/grounding.js';
import { DEFAULT_ANSWER_CONFIG } from '../../src/core/answer/config.js';
import { numberContextMarkers } from '../../src/core/answer/citations.js';
import { condenseDocument, condenseDocuments, condenseInputs, condensePrompt, parseNotes, type CondenseDocument } from '../../src/core/agents/condense.js';
import { bagOfWordsEmbedder, delta, engineDouble } from './helpers.js';

const PASSAGES = [
  {
    id: 'doc/c2-link',
    title: 'C2 link',
    text: 'The UAS operator shall define a procedure for the loss of the command and control link, including the actions of the remote pilot.',
  },
  {
    id: 'doc/battery',
    title: 'Batteries',
    text: 'Batteries shall be stored in a fireproof container when not in use. The storage temperature shall not exceed 40 degrees.',
  },
];
const DOC: CondenseDocument = {
  id: 'doc',
  title: 'Operations manual',
  edition: 'Edition 2',
  pages: 'pp. 3–4',
  passages: PASSAGES,
  extractive: '[Document: Operations manual — Edition 2 — pp. 3–4]\n[doc/c2-link] C2 link, p. 3: The UAS operator shall define a procedure …',
};

const check = () => {
  const embedder = bagOfWordsEmbedder();
  return (text: string, ids: string[]) =>
    checkGrounding({ answer: text, chunks: PASSAGES.filter((c) => ids.includes(c.id)), embedder, config: DEFAULT_ANSWER_CONFIG.grounding });
};

describe('condensing a document’s refined context with the model', () => {
  it('numbers the passages and puts the question after them', () => {
    const p = condensePrompt('How are batteries stored?', DOC);
    expect(p.ids).toEqual(['doc/c2-link', 'doc/battery']);
    expect(p.user).toContain('[2] Batteries');
    expect(p.user.indexOf('Question: How are batteries stored?')).toBeGreaterThan(p.user.indexOf('[2] Batteries'));
    expect(p.user).not.toContain('[doc/battery]');
  });

  it('keeps the notes the passages state, drops one they do not, and writes one [chunk-id] line per note', async () => {
    const reply = JSON.stringify({
      notes: [
        { passage: 2, text: 'Batteries shall be stored in a fireproof container when not in use.' },
        { passage: 2, text: 'The storage temperature shall not exceed 40 degrees.' },
        { passage: 2, text: 'Batteries must be replaced every 300 cycles by a certified workshop in Toulouse.' },
        { passage: 2, text: 'The storage temperature shall not exceed 40 degrees.' },
      ],
    });
    const engine = engineDouble({ streams: [[delta(reply, 'stop')]] });
    const inner = check();
    let checks = 0;
    const c = await condenseDocument('How are batteries stored?', DOC, { engine, check: (t, ids) => (checks++, inner(t, ids)) });
    // one source check for all the notes (the passages are embedded once)
    expect(checks).toBe(1);
    expect(c.mode).toBe('model');
    expect(c.statements.map((s) => [s.statement, s.citations, s.attributed])).toEqual([
      ['Batteries shall be stored in a fireproof container when not in use.', ['doc/battery'], false],
      ['The storage temperature shall not exceed 40 degrees.', ['doc/battery'], false],
    ]);
    expect(c.dropped).toEqual(['Batteries must be replaced every 300 cycles by a certified workshop in Toulouse.']);
    expect(c.text.split('\n')).toEqual([
      '[Document: Operations manual — Edition 2 — pp. 3–4]',
      '[doc/battery] Batteries shall be stored in a fireproof container when not in use.',
      '[doc/battery] The storage temperature shall not exceed 40 degrees.',
    ]);
    // the answer prompt numbers these lines like any context passage
    expect(numberContextMarkers(c.text).ids).toEqual(['doc/battery']);
    expect(c.reason).toMatch(/2 note\(s\) kept, 1 dropped/);
    // deterministic settings, and the reply constrained to the notes' JSON schema
    expect(engine.requests[0]!.temperature).toBe(0);
    expect(JSON.stringify(engine.requests[0]!.response_format)).toContain('notes');
  });

  it('gives a note whose number is outside the passages the passage the source check found, and marks it as added', async () => {
    const engine = engineDouble({
      streams: [
        [
          delta(
            JSON.stringify({ notes: [{ passage: 7, text: 'The UAS operator shall define a procedure for the loss of the command and control link.' }] }),
            'stop',
          ),
        ],
      ],
    });
    const c = await condenseDocument('What about the C2 link?', DOC, { engine, check: check() });
    expect(c.statements).toEqual([
      { statement: 'The UAS operator shall define a procedure for the loss of the command and control link.', citations: ['doc/c2-link'], attributed: true },
    ]);
  });

  it('falls back to the extractive context, with the reason, when the model finds nothing, writes no list, fails or states nothing the passages hold', async () => {
    const cases: [Parameters<typeof engineDouble>[0], RegExp][] = [
      [{ streams: [[delta('{"notes": []}', 'stop')]] }, /found nothing relevant/],
      [{ streams: [[delta('The passages are about drones.', 'stop')]] }, /no notes in the expected form/],
      [{ streams: [[delta('{"notes": [{"passage": 1, "text": "The UAS oper', 'length')]] }, /no notes in the expected form/],
      [{ createErrors: [new Error('device lost')] }, /the model failed \(.*\)/],
      [
        { streams: [[delta('{"notes": [{"passage": 1, "text": "Pilots shall be at least 30 years old."}]}', 'stop')]] },
        /none of the model's 1 notes was found/,
      ],
    ];
    for (const [script, reason] of cases) {
      const c = await condenseDocument('How are batteries stored?', DOC, { engine: engineDouble(script), check: check() });
      expect(c.mode).toBe('extractive');
      expect(c.text).toBe(DOC.extractive);
      expect(c.reason).toMatch(reason);
    }
  });

  it('keeps the complete notes of a reply cut off by the token limit', () => {
    expect(parseNotes('{"notes": [{"passage": 2, "text": "Batteries shall be \\"stored\\"."}, {"passage": 1, "text": "The UAS op')).toEqual([
      { passage: 2, text: 'Batteries shall be "stored".' },
    ]);
    expect(parseNotes('{"notes": [{"passage": 1.5, "text": "x"}, {"passage": 1, "text": "  "}, {"passage": 2}]}')).toEqual([]);
    expect(parseNotes('[1, 2]')).toBeNull();
  });

  it('does not call the model for a document without passages', async () => {
    const engine = engineDouble();
    const c = await condenseDocument('q', { ...DOC, passages: [] }, { engine, check: check() });
    expect(c.mode).toBe('extractive');
    expect(engine.requests).toHaveLength(0);
  });

  it('a stop before the reply ends uses the extractive context', async () => {
    const ctl = new AbortController();
    ctl.abort();
    const c = await condenseDocument('q', DOC, { engine: engineDouble(), check: check(), signal: ctl.signal });
    expect(c.mode).toBe('extractive');
    expect(c.reason).toMatch(/stopped/);
  });

  it('condenses every kept document in order, and builds the inputs from the agents’ kept documents only', async () => {
    const chunks = new Map(PASSAGES.map((p) => [p.id, p]));
    const inputs = condenseInputs(
      [
        {
          id: 'doc',
          title: 'Operations manual',
          edition: 'Edition 2',
          pages: 'pp. 3–4',
          kept: true,
          evidenceIds: ['doc/battery', 'doc/missing', 'doc/c2-link'],
          refined: DOC.extractive,
        },
        { id: 'other', title: 'Other', edition: 'E1', pages: 'p. 1', kept: false, evidenceIds: ['doc/c2-link'], refined: '' },
      ],
      (id) => chunks.get(id),
      { passages: 2, charsEach: 30 },
    );
    expect(inputs.map((d) => [d.id, d.passages.map((p) => [p.id, p.text.length <= 30])])).toEqual([['doc', [['doc/battery', true]]]]);
    const engine = engineDouble({ streams: [[delta('{"notes": []}', 'stop')]] });
    const all = await condenseDocuments('q', [DOC, { ...DOC, id: 'doc2' }], { engine, check: check() }, 60);
    expect(all.documents.map((d) => d.documentId)).toEqual(['doc', 'doc2']);
    expect(all.context.length).toBe(60);
    expect(engine.requests).toHaveLength(2);
  });
});
