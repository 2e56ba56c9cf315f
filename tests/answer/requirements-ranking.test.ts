/**
 * The Requirements draft as a reviewer reads it (issue 26 item 5): ranked by relevance to the
 * hazard, grouped by the OSO / mitigation printed above the passage, the current SORA text first,
 * sentences that are not requirements left out, and a header in plain words.
 * The passages are invented for the tests (short, in the documents' manner), not the documents' text.
 */
import { describe, expect, it } from 'vitest';
import type { Chunk } from '../../src/core/model/chunk.js';
import type { AgentResult } from '../../src/core/agents/agents.js';
import { draftFromAgents, draftFromPassages, draftTiers, draftToMarkdown, type DraftPassage } from '../../src/core/agents/requirements.js';
import { nonRequirementReason, objectiveOf, unreadableUnitReason } from '../../src/core/agents/requirement-relevance.js';
import { chunkOf } from '../support/tiny-index.js';

const fixed = () => new Date('2026-01-01T00:00:00Z');
const SORA25 = 'SORA 2.5, Edition September 2025';
const SORA20 = 'SORA 2.0-era restatements';

const under = (c: Chunk, path: string[], documentId: string, edition = SORA25): Chunk => ({ ...c, sectionPath: path, documentId, edition });

const techConditions = under(
  chunkOf(
    'cur/tech',
    'Technical conditions',
    'The UAS must bear a unique serial number. If operated at night, the UA must carry a green flashing light.',
    'EU',
    'cur',
  ),
  ['Technical conditions'],
  'cur',
  SORA20,
);
const c2Restated = under(
  chunkOf(
    'cur/c2',
    'Operational conditions',
    'In the event of a loss of the command and control link, the UA must follow a predictable recovery route.',
    'EU',
    'cur',
  ),
  ['Operational conditions'],
  'cur',
  SORA20,
);
const oso06 = under(
  chunkOf(
    'e/oso-06',
    'OSO #06 — C3 link characteristics are appropriate for the operation',
    'The UAS operator should monitor the C2 link performance and alert the remote pilot when the link degrades.',
  ),
  ['AMC1 Article 11', 'Annex E', 'E.2 OSOs related to technical issues', 'OSO #06 — C3 link characteristics are appropriate for the operation'],
  'e',
);
const oso13 = under(
  chunkOf('e/oso-13', 'OSO #13 — External services are adequate', 'The UAS operator should hold an agreement with each external service provider.'),
  ['AMC1 Article 11', 'Annex E', 'E.6 OSOs related to external systems', 'OSO #13 — External services are adequate'],
  'e',
);
const m1bTable = under(
  chunkOf(
    'b/m1b-t',
    'Table B.4 — Level of integrity criteria for M1(B) mitigation',
    'The UAS operator should restrict the flight to hours when nobody is outside.',
  ),
  ['Annex B', 'B.3 M1(B) — Strategic mitigations — Operational restrictions', 'Table B.4 — Level of integrity criteria for M1(B) mitigation'],
  'b',
);
const glossary = under(
  chunkOf('i/86', 'I.86. Lost C2 link', 'The loss of the command and control link contact with the UA.'),
  ['Annex I', 'I.86. Lost C2 link'],
  'i',
);

const passage = (chunk: Chunk, rank: number | null, opts: Partial<DraftPassage> = {}): DraftPassage => ({
  chunk,
  documentTitle: chunk.documentId === 'cur' ? 'Curated restatements' : `Document ${chunk.documentId}`,
  documentEdition: chunk.edition,
  rank,
  sourceVerbatim: chunk.documentId !== 'cur',
  ...opts,
});

describe('requirements draft: order', () => {
  it('ranks the candidates that state the hazard above those of a better-ranked passage that does not', () => {
    const verbatim = { sourceVerbatim: true, documentEdition: SORA25 };
    const cur = draftFromPassages('loss of command and control link', [passage(techConditions, 1, verbatim), passage(c2Restated, 2, verbatim)], [], fixed);
    expect(cur.requirements.map((r) => r.source.chunkId)).toEqual(['cur/c2', 'cur/tech', 'cur/tech']);
    expect(cur.requirements[0]!.relevance!).toBeGreaterThan(cur.requirements[1]!.relevance!);
  });

  it('lists a restatement’s candidates only when they state what the description names, grouped by the passage’s heading, and counts the rest', () => {
    const d = draftFromPassages('loss of command and control link', [passage(techConditions, 1), passage(c2Restated, 2)], [], fixed);
    // the serial number and the night light are printed beside the C2 condition, but are not about it
    expect(d.requirements.map((r) => [r.group, r.statement])).toEqual([
      ['Operational conditions', 'In the event of a loss of the command and control link, the UA must follow a predictable recovery route.'],
    ]);
    expect(d.unrelated).toBe(2);
    expect(d.summary).toContain('2 requirements of the restatements were left out because they do not state what you describe.');
    // under an objective the objective search found, a restatement's candidates are kept, as the current text's are
    const found = draftFromPassages('loss of command and control link', [passage(techConditions, 1, { objectiveRank: 1 }), passage(c2Restated, 2)], [], fixed);
    expect(found.requirements).toHaveLength(3);
  });

  it('lists the current SORA 2.5 text before an earlier edition printed verbatim and SORA 2.0 restatements, under labelled headings', () => {
    const bis = under(
      chunkOf('bis/1', 'Step #9 (edition 2020)', 'The operator must keep the command and control link within range.'),
      ['AMC1bis Article 11', 'Step #9 (edition 2020)'],
      'bis',
      'SORA 2.0, Edition December 2020',
    );
    const d = draftFromPassages('loss of command and control link', [passage(c2Restated, 1), passage(bis, 2), passage(oso13, 3), passage(oso06, 4)], [], fixed);
    expect(d.requirements.map((r) => [r.currency, r.source.chunkId])).toEqual([
      ['current', 'e/oso-06'],
      ['current', 'e/oso-13'],
      ['earlier-edition', 'bis/1'],
      ['restatement', 'cur/c2'],
    ]);
    const tiers = draftTiers(d);
    expect(tiers.map((t) => t.heading)).toEqual([
      'Current text (SORA 2.5)',
      'Earlier SORA edition (superseded wording, printed verbatim) (SORA 2.0)',
      'Restatements of SORA 2.0 (not the regulation’s wording: check the official text)',
    ]);
    const md = draftToMarkdown(d);
    expect(md.indexOf('## Current text (SORA 2.5)')).toBeLessThan(md.indexOf('## Restatements of SORA 2.0'));
  });

  it('groups under the OSO or mitigation printed above the passage, with its printed heading, groups by their best candidate', () => {
    const d = draftFromPassages(
      'flight restricted to hours when nobody is outside; link monitoring',
      [passage(oso13, 1), passage(m1bTable, 2), passage(oso06, 3)],
      [],
      fixed,
    );
    const groups = draftTiers(d)[0]!.groups;
    expect(groups.map((g) => g.group)).toEqual(['Mitigation M1(B)', 'OSO #06', 'OSO #13']);
    // the mitigation's own heading, not the table caption it is printed in
    expect(groups[0]!.title).toBe('B.3 M1(B) — Strategic mitigations — Operational restrictions');
    expect(groups[1]!.title).toBe('OSO #06 — C3 link characteristics are appropriate for the operation');
    expect(objectiveOf({ title: 'S.4.9 Step #9 — Adjacent area', sectionPath: ['Section 4', 'S.4.9 Step #9 — Adjacent area'] }).key).toBe('Step #9');
  });
});

describe('requirements draft: what is a requirement', () => {
  it('leaves out sentences with a modal verb that are not requirements, and says why', () => {
    const notes = under(
      chunkOf(
        'cur/notes',
        'Step #9',
        'This content describes Step #9, focusing on how operations must be conducted. Therefore, sound judgement must be exercised by the operator. Who must report? It should be noted that the buffer is large. Operators determine whether they should apply the process. At this stage, no evidence is required. The operator must define the adjacent area.',
        'EU',
        'cur',
      ),
      ['Step #9'],
      'cur',
      SORA20,
    );
    const d = draftFromPassages('adjacent area', [passage(notes, 1)], [], fixed);
    expect(d.requirements.map((r) => r.statement)).toEqual(['The operator must define the adjacent area.']);
    // "This content describes …" is no quotable unit at all (units.ts: a sentence about the text), so it is neither a candidate nor counted here
    expect(d.excluded!.map((e) => e.reason)).toEqual([
      'an exhortation with nothing to check',
      'a question',
      'a note to the reader or a definition',
      'the modal is inside an embedded question or a relative clause',
      'says what is not required',
    ]);
    const md = draftToMarkdown(d);
    expect(md).toContain('5 sentences with “shall / should / must” were left out because they are not requirements');
    expect(md).toContain('- “Who must report?” — a question [cur/notes]');
  });

  it('keeps obligations, prohibitions and conditional obligations', () => {
    for (const s of [
      'The UAS operator should monitor the C2 link performance.',
      'UAS operators should not design operational volumes only to manipulate the adjacent area.',
      'When the mitigation needs the remote crew, the operator should train the remote crew.',
      'A note highlights that the air risk buffer must be considered.',
      'Care should be taken to ensure that the remote pilot can see the aircraft.',
      'In addition, the use of licensed frequency bands for C2 links is required.',
      'The flight area must also identify whether it is a controlled ground area and must include a buffer.',
    ])
      expect(nonRequirementReason(s)).toBeNull();
  });

  it('leaves out a permission', () => {
    expect(nonRequirementReason('However, the UAS designer should be allowed to experiment new solutions.')).toBe('a permission, not an obligation');
  });

  it('lists no sentence read across the columns of a printed table: a cell is quoted under its headers, a stitched one is named for reading in the table', () => {
    // a table the segmentation reads cell by cell
    const table = under(
      chunkOf(
        'e/oso-06/t',
        oso06.title,
        [
          '                 Low                                Medium',
          'Criterion #1     The operator should check          The operator should check the',
          '(Checks)         the link before flight.            link before and during flight.',
        ].join('\n'),
      ),
      oso06.sectionPath,
      'e',
    );
    const d = draftFromPassages('link', [passage({ ...table, kind: 'table' }, 1)], [], fixed);
    expect(d.requirements.map((r) => [r.header, r.statement])).toEqual([
      ['Criterion #1 (Checks) · Low', 'The operator should check the link before flight.'],
      ['Criterion #1 (Checks) · Medium', 'The operator should check the link before and during flight.'],
    ]);
    expect(draftToMarkdown(d)).toContain('Criterion #1 (Checks) · Low: “The operator should check the link before flight.”');
    // prose printed beside another column: not listed, the passage named for reading in the table
    const beside = under(
      chunkOf(
        'e/oso-06/b',
        oso06.title,
        '(b) that the means to monitor the C3                    frequency bands for C2 links is required.\n    link performance are available.',
      ),
      oso06.sectionPath,
      'e',
    );
    const s = draftFromPassages('link', [passage(beside, 1)], [], fixed);
    expect(s.requirements).toEqual([]);
    expect(s.inTables).toEqual([{ chunkId: 'e/oso-06/b', title: oso06.title, pages: 'page 1', count: 1 }]);
    expect(draftToMarkdown(s)).toContain('## Requirements to read in the printed table');
  });

  it('ranks a group by what all its statements say, those named for reading in the table too', () => {
    // OSO #06: its statement about the C2 link is printed beside another column; OSO #04 states "loss of control"
    const c2 = under(
      chunkOf(
        'e/oso-06/c',
        oso06.title,
        'The operator should keep records.\n(b) the means to monitor the C2 link                    for the command and control link loss is required.',
      ),
      oso06.sectionPath,
      'e',
    );
    const oso04 = under(
      chunkOf('e/oso-04', 'OSO #04 — UAS components are designed to a standard', 'The probability of loss of control should be low.'),
      ['AMC1 Article 11', 'Annex E', 'OSO #04 — UAS components are designed to a standard'],
      'e',
    );
    const d = draftFromPassages(
      'loss of command and control link',
      [passage(oso04, null, { objectiveRank: 2 }), passage(c2, null, { objectiveRank: 1 })],
      [],
      fixed,
    );
    expect(d.requirements.map((r) => r.group)).toEqual(['OSO #06', 'OSO #04']);
    expect(d.inTables).toEqual([{ chunkId: 'e/oso-06/c', title: oso06.title, pages: 'page 1', count: 1 }]);
  });

  it('tells a cell read cleanly from one whose words come from its neighbours', () => {
    const cell = (text: string) => ({ text, kind: 'cell' });
    expect(unreadableUnitReason(cell('The UAS operator should use a UAS for which EASA has verified the claimed integrity.'))).toBeNull();
    expect(unreadableUnitReason(cell('The operator should check the link (see OSO #06).'))).toBeNull();
    expect(unreadableUnitReason(cell('Level of assurance LEVEL of ASSURANCE Medium (SAIL IV) The authority should request a report.'))).toBe(
      'the column headers are read into it',
    );
    expect(unreadableUnitReason(cell('The designer declares it. #06 If the operation is classified, the operator should act.'))).toBe(
      'a row label is read into it',
    );
    expect(unreadableUnitReason(cell('required achieved. The designer should obtain a report.'))).toBe('it starts with words cut from a neighbouring cell');
    expect(unreadableUnitReason(cell('The mass is less than 25 kg. penetration OR hazard) The operator should test it.'))).toBe(
      'words of a neighbouring cell run into it',
    );
    expect(unreadableUnitReason(cell('The authority should request the applicant UAS operator should to use a UAS.'))).toBe(
      'struck-through and inserted phrases are merged in it',
    );
    expect(unreadableUnitReason({ text: 'Evidence is provided through inspection, design The competent authority should review it.', kind: 'sentence' })).toBe(
      'words of a neighbouring column run into it',
    );
    // e.g. and i.e. are no sentence end
    expect(unreadableUnitReason(cell('The operator should use shelters, e.g. buildings.'))).toBeNull();
  });
});

describe('requirements draft from the agents', () => {
  const chunks = [glossary, techConditions, c2Restated, oso13, oso06, m1bTable];
  const result = {
    query: 'loss of command and control link over a populated area',
    consulted: [
      {
        id: 'i',
        title: 'Annex I — Glossary',
        edition: SORA25,
        pages: 'page 1',
        rank: 1,
        score: 0.5,
        reason: 'owns 7 of the top 20 passages; closest summary: section “I.86”, summary match 0.60',
        kept: true,
        evidence: [{ id: 'i/86', row: 0, score: 1, parts: { dense: 0, window: 0, summary: 0, fused: 0, keywordHits: 0, rerank: null } }],
        refined: '',
      },
      {
        id: 'cur',
        title: 'Curated restatements',
        edition: SORA20,
        pages: 'unpaged',
        rank: 2,
        score: 0.3,
        reason: 'owns 3 of the top 20 passages; summary match 0.41',
        kept: true,
        evidence: [1, 2].map((row) => ({
          id: chunks[row]!.id,
          row,
          score: 1,
          parts: { dense: 0, window: 0, summary: 0, fused: 0, keywordHits: 0, rerank: null },
        })),
        refined: '',
      },
    ],
    flat: { ranked: [0, 2, 1].map((row) => ({ id: chunks[row]!.id, row, score: 1, kept: true })), filters: {}, broadened: false },
  } as unknown as Pick<AgentResult, 'query' | 'consulted' | 'flat'>;
  const d = draftFromAgents(result, chunks, (src) => src !== 'cur', 5, fixed);

  it('adds the OSO whose own text matches the hazard when the retrieval did not reach it, and lists it first', () => {
    expect(d.requirements[0]!.group).toBe('OSO #06');
    expect(d.requirements[0]!.source.chunkId).toBe('e/oso-06');
    expect(d.documents.map((x) => x.id)).toContain('e');
  });

  it('says in plain words why each document was consulted and what it gave, without scores, those that gave candidates first', () => {
    const md = draftToMarkdown(d);
    const header = md.slice(0, md.indexOf('## Current text'));
    expect(header).not.toMatch(/summary match|owns \d+ of the top|\b0\.\d\d\b/);
    expect(header).toContain('Annex I — Glossary');
    expect(header).toContain('it holds the passage that best matches your description');
    expect(header).toContain('It gave no candidate: its matching passages state no requirement.');
    expect(header).toMatch(/its OSO #06[^\n]* about what you describe/);
    // the document that gave nothing is listed last, not first
    expect(d.documents.at(-1)!.id).toBe('i');
    expect(d.summary).toMatch(/most relevant to your description first, grouped by the safety objective \(OSO\), mitigation, SORA step or section/);
  });
});
