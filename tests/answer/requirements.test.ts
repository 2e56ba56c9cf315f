import { describe, expect, it } from 'vitest';
import {
  csvField,
  draftFromAgents,
  draftFromPassages,
  draftToCsv,
  draftToJson,
  draftToMarkdown,
  groupOf,
  normativeStatements,
} from '../../src/core/agents/requirements.js';
import { chunkOf } from '../support/tiny-index.js';

const oso = {
  ...chunkOf(
    'e/oso-05',
    'OSO #05 — UAS designed considering system safety and reliability',
    'The UAS operator should demonstrate the reliability. The equipment, systems and installations shall be designed to minimise hazards. Table E.3 lists the criteria.',
  ),
  sectionPath: ['AMC1 Article 11', 'Annex E', 'OSO #05 — UAS designed considering system safety and reliability'],
};
const m2 = {
  ...chunkOf(
    'b/m2',
    'B.4 M2 — Effects of UA impact dynamics are reduced',
    'A parachute is required to meet the criterion. Note: the designer, "not the operator", must test it, at 1:1 scale.',
  ),
  sectionPath: ['Annex B', 'B.4 M2 — Effects of UA impact dynamics are reduced'],
};
const plain = chunkOf('f/1', 'Form 209 guidance', 'The competent authority issues the form. It is valid for two years.');
const fixed = () => new Date('2026-01-01T00:00:00Z');
const docs = [{ id: 'd', title: 'Annex E', edition: 'SORA 2.5', reason: 'test', kept: true }];

describe('normative statements', () => {
  it('extracts shall / should / must / required sentences verbatim and nothing else', () => {
    const st = normativeStatements(oso.text);
    expect(st.map((s) => s.modal)).toEqual(['should', 'shall']);
    expect(st.map((s) => s.text)).toEqual([
      'The UAS operator should demonstrate the reliability.',
      'The equipment, systems and installations shall be designed to minimise hazards.',
    ]);
    expect(normativeStatements(plain.text)).toEqual([]);
    expect(normativeStatements(m2.text).map((s) => s.modal)).toEqual(['is required', 'must']);
  });

  it('groups by OSO or mitigation from the printed titles, else by document (a restatement: by the passage’s own heading)', () => {
    expect(groupOf(oso, 'Annex E')).toBe('OSO #05');
    expect(groupOf(m2, 'Annex B')).toBe('Mitigation M2');
    expect(groupOf(plain, 'Form 209')).toBe('Form 209');
    expect(groupOf(plain, 'Curated restatements', true)).toBe('Form 209 guidance');
    expect(groupOf(oso, 'Curated restatements', true)).toBe('OSO #05');
  });

  it('reads a table row cell by cell, each cell under its headers, never across its columns', () => {
    const table = [
      '                 Low                                Medium',
      'Criterion #1     The operator should check          The operator should check the',
      '(Checks)         the link before flight.            link before and during flight.',
    ].join('\n');
    expect(normativeStatements({ text: table, kind: 'table' }).map((s) => [s.header, s.text])).toEqual([
      ['Criterion #1 (Checks) · Low', 'The operator should check the link before flight.'],
      ['Criterion #1 (Checks) · Medium', 'The operator should check the link before and during flight.'],
    ]);
  });
});

describe('requirement draft', () => {
  const draft = draftFromPassages(
    'parachute failure over a crowd',
    [
      { chunk: m2, documentTitle: 'Annex B', documentEdition: 'SORA 2.5', rank: 1, sourceVerbatim: true },
      // a restatement under an objective the objective search found: its candidates are listed whatever their words
      { chunk: oso, documentTitle: 'Annex E', documentEdition: 'SORA 2.5', rank: 2, objectiveRank: 1, sourceVerbatim: false },
      { chunk: plain, documentTitle: 'Form 209', documentEdition: 'Amdt 3', rank: 3, sourceVerbatim: true },
    ],
    docs,
    fixed,
  );

  it('lists every normative sentence of the passages once, with its citation and rationale, grouped', () => {
    expect(draft.requirements.map((r) => [r.id, r.group, r.source.chunkId])).toEqual([
      ['REQ-001', 'Mitigation M2', 'b/m2'],
      ['REQ-002', 'Mitigation M2', 'b/m2'],
      ['REQ-003', 'OSO #05', 'e/oso-05'],
      ['REQ-004', 'OSO #05', 'e/oso-05'],
    ]);
    for (const r of draft.requirements) {
      const src = [m2, oso].find((c) => c.id === r.source.chunkId)!;
      expect(src.text.replace(/\s+/g, ' ')).toContain(r.statement);
      expect(r.rationale).toContain('parachute failure over a crowd');
      expect(r.source.pages).toBe('page 1');
    }
    expect(draft.noEvidence).toBe(false);
  });

  it('exports Markdown, JSON and CSV that carry the same statements', () => {
    const md = draftToMarkdown(draft);
    expect(md).toContain('### B.4 M2 — Effects of UA impact dynamics are reduced');
    expect(md).toContain('**REQ-003** (should) “The UAS operator should demonstrate the reliability.” — from a restatement');
    expect(md).not.toContain('**REQ-001** (is required) “A parachute is required to meet the criterion.” — from a restatement');
    expect(JSON.parse(draftToJson(draft))).toEqual(draft);
    const csv = draftToCsv(draft).trimEnd().split('\r\n');
    expect(csv[0]).toBe('id,group,modal,statement,document,edition,section,pages,chunk_id,source_verbatim,rationale');
    expect(csv).toHaveLength(5);
    // the quote-and-comma statement survives as one field
    expect(csv[2]).toContain('"Note: the designer, ""not the operator"", must test it, at 1:1 scale."');
  });

  it('leaves the heading printed at the top of a passage out of its first statement', () => {
    const headed = { ...chunkOf('g/1', 'GM1 Article 11 Definitions', 'GM1 Article 11 Definitions The following definitions should apply.') };
    const d = draftFromPassages('q', [{ chunk: headed, documentTitle: 'GM', documentEdition: 'x', rank: 1, sourceVerbatim: true }], docs, fixed);
    expect(d.requirements.map((r) => r.statement)).toEqual(['The following definitions should apply.']);
  });

  it('says so when there is no evidence', () => {
    const none = draftFromPassages('x', [], docs, fixed);
    expect(none.noEvidence).toBe(true);
    expect(draftToMarkdown(none)).toContain('No evidence');
    expect(draftToCsv(none)).toBe('id,group,modal,statement,document,edition,section,pages,chunk_id,source_verbatim,rationale\r\n');
  });

  it('quotes CSV fields only when needed', () => {
    expect(csvField('plain')).toBe('plain');
    expect(csvField('a,b')).toBe('"a,b"');
    expect(csvField('say "x"')).toBe('"say ""x"""');
    expect(csvField('two\nlines')).toBe('"two\nlines"');
  });
});

describe('draft from the document agents', () => {
  it("takes the kept documents' top passages in rank order and marks restated sources", async () => {
    const { createRetrievalEngine } = await import('../../src/core/retrieval/engine.js');
    const { createDocumentAgents } = await import('../../src/core/agents/agents.js');
    const { fakeEmbedder } = await import('../support/fake-embedder.js');
    const { tinyIndex } = await import('../support/tiny-index.js');
    const emb = fakeEmbedder(64);
    const index = await tinyIndex(
      [
        chunkOf('ops/1', 'Battery', 'The operator shall charge the battery before every flight. Batteries are heavy.', 'EU', 'ops'),
        chunkOf('ops/2', 'Battery log', 'The battery log should be kept for two years.', 'EU', 'ops'),
        chunkOf('cur/1', 'Battery restated', 'The pilot must check the battery charge before flight.', 'EU', 'cur'),
      ],
      emb,
    );
    const agents = createDocumentAgents(index, createRetrievalEngine({ index, embedder: emb }));
    const q = 'battery charge before flight';
    const r = await agents.run(q, (await emb.embed([q]))[0]!, { config: { gate: { enabled: false } } });
    const d = draftFromAgents(r, index.chunks, (id) => id !== 'cur', 5, fixed);
    const kept = r.consulted.filter((c) => c.kept).map((c) => c.id);
    expect(new Set(d.requirements.map((x) => x.source.chunkId.split('/')[0]))).toEqual(new Set(kept));
    expect(d.requirements.map((x) => x.statement).sort()).toEqual([
      'The battery log should be kept for two years.',
      'The operator shall charge the battery before every flight.',
      'The pilot must check the battery charge before flight.',
    ]);
    expect(d.requirements.find((x) => x.source.chunkId === 'cur/1')!.sourceVerbatim).toBe(false);
    expect(d.documents.map((x) => x.id)).toEqual(r.consulted.map((c) => c.id));
  });
});
