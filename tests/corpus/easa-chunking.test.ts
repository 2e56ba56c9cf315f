import { readFileSync } from 'node:fs';
import { describe, expect, it } from 'vitest';
import { chunkEasaDocument } from '../../corpus-build/chunking/easa-chunker.js';
import { enrichDrafts } from '../../corpus-build/build/pipeline.js';
import { loadLayoutText } from '../../corpus-build/loaders/easa-layout.js';
import { easaSourcePath } from '../support/paths.js';
import { countHygiene, hasInterleavedColumns, isHeadingOnly } from '../../corpus-build/chunking/hygiene.js';

const source = readFileSync(easaSourcePath, 'utf8');
const doc = loadLayoutText(source, 'easa-amc-gm-2019-947');
const drafts = chunkEasaDocument(doc, { docId: 'easa-amc-gm-2019-947', edition: 'Amdt 3', jurisdiction: 'EU', language: 'en' });
const chunks = enrichDrafts(drafts);
const collapse = (s: string) => s.replace(/\s+/g, ' ').trim();
const tableByCaption = (caption: string) => chunks.filter((c) => c.kind === 'table' && c.title.startsWith(caption));

describe('EASA layout loader', () => {
  it('attributes every line to one of the 204 printed pages, in non-decreasing order', () => {
    expect(doc.pageCount).toBe(204);
    let last = 0;
    for (const l of doc.lines) {
      expect(l.page).not.toBeNull();
      expect(l.page!).toBeGreaterThanOrEqual(last);
      last = l.page!;
    }
    expect(last).toBe(204);
    expect(doc.diagnostics.warnings).toEqual([]);
  });

  it('strips every page footer and running header', () => {
    expect(doc.diagnostics.strippedLines).toBeGreaterThanOrEqual(204 * 3 - 3);
    for (const l of doc.lines) {
      expect(l.text).not.toMatch(/Annex to ED Decision 2025\/018\/R\s+Page \d+ of 204/);
    }
  });
});

describe('EASA structure-aware chunking', () => {
  it('keeps Table 1 (iGRC) whole in one chunk on page 24, with its caption and every row', () => {
    const [t, ...rest] = tableByCaption('Table 1 — Intrinsic ground risk class');
    expect(rest).toEqual([]);
    expect(t!.title).toBe('Table 1 — Intrinsic ground risk class (GRC) determination');
    expect([t!.pageStart, t!.pageEnd]).toEqual([24, 24]);
    const text = collapse(t!.text);
    for (const row of ['Controlled', '<5', '< 50', '< 500', '< 5 000', '< 50 000', '> 50 000', 'Not part of SORA', '25 m/s', '200 m/s']) {
      expect(text).toContain(row);
    }
    expect(text).toContain('take-off mass less than or equal to 250 g');
    expect(text).toContain('Table 1 — Intrinsic ground risk class (GRC) determination');
  });

  it('keeps Table 5 (ground risk mitigations) whole on page 29', () => {
    const [t] = tableByCaption('Table 5 —');
    expect([t!.pageStart, t!.pageEnd]).toEqual([29, 29]);
    const text = collapse(t!.text);
    for (const row of [
      'M1(A) — Strategic mitigations — Sheltering',
      'M1(B)',
      'M1(C) — Tactical mitigations — Ground observation',
      'M2 — Effects of UA impact dynamics are reduced',
    ]) {
      expect(text).toContain(row);
    }
  });

  it('keeps the SAIL table in one chunk on page 38 with its caption as printed ("Table 3")', () => {
    const sail = chunks.filter((c) => c.kind === 'table' && /SAIL determination/.test(c.title));
    expect(sail).toHaveLength(1);
    expect(sail[0]!.title).toBe('Table 3 — SAIL determination');
    expect([sail[0]!.pageStart, sail[0]!.pageEnd]).toEqual([38, 38]);
    expect(collapse(sail[0]!.text)).toContain('Operation classified in the ‘certified’ category');
    // the text cites it as "Table 7": that reference is not guessed into a link
    const step7 = chunks.find((c) => c.title.startsWith('S.4.7.3'))!;
    expect(step7.links.find((l) => l.label === 'Table 7')).toEqual({ label: 'Table 7', target: null });
  });

  it('gives OSO #04 its own chunk(s) in Annex E', () => {
    const oso4 = chunks.filter((c) => c.kind === 'oso' && c.title.startsWith('OSO #04'));
    expect(oso4.length).toBeGreaterThanOrEqual(1);
    expect(oso4.every((c) => c.id.includes('/annex-e/oso-04'))).toBe(true);
    expect(oso4.map((c) => collapse(c.text)).join(' ')).toContain('SC Light UAS');
  });

  it('has one chunk per glossary entry and per AMC/GM entry', () => {
    const involved = chunks.find((c) => c.kind === 'glossary' && c.title.startsWith('I.84.'))!;
    expect(involved.title).toBe('I.84. Involved person');
    expect(collapse(involved.text)).toContain('A person directly involved with the operation of the UAS');
    const entries = chunks.filter((c) => (c.kind === 'amc-gm-entry' && !c.part) || c.part?.index === 1);
    expect(entries.map((c) => c.title)).toEqual(
      expect.arrayContaining([
        'AMC1 Article 12(2)(a) Authorising operations in the ‘specific’ category',
        'AMC1 UAS.SPEC.040(1) Operational authorisation — EASA Form 209',
      ]),
    );
  });

  it('never leaves a page footer or running header inside a chunk', () => {
    for (const c of chunks) {
      expect(c.text).not.toMatch(/Annex to ED Decision 2025\/018\/R\s+Page \d+/);
      expect(c.text).not.toMatch(/^\s*AMC & GM to Regulation \(EU\) 2019\/947\s*\n\s*Issue 1, Amendment 3\s*$/m);
    }
  });

  it('emits chunks in document order with non-decreasing page attributions', () => {
    let last = 0;
    for (const c of chunks) {
      expect(c.pageStart!).toBeLessThanOrEqual(c.pageEnd!);
      expect(c.pageStart!).toBeGreaterThanOrEqual(last);
      last = c.pageStart!;
    }
  });

  it('puts at least 98 % of the non-header characters into some chunk', () => {
    const covered = chunks.reduce((n, c) => n + c.text.replace(/\s+/g, '').length, 0);
    expect(covered / doc.diagnostics.contentChars).toBeGreaterThanOrEqual(0.98);
  });

  it('gives every chunk a unique stable hierarchical id, a section path and the title as printed', () => {
    const ids = new Set(chunks.map((c) => c.id));
    expect(ids.size).toBe(chunks.length);
    for (const c of chunks) {
      expect(c.id.startsWith('easa-amc-gm-2019-947/')).toBe(true);
      expect(c.sectionPath.length).toBeGreaterThan(0);
      expect(c.title).not.toMatch(/\s{2,}/);
    }
    const s423 = chunks.find((c) => c.title.startsWith('S.4.2.3 '))!;
    expect(s423.id).toMatch(/^easa-amc-gm-2019-947\/amc1-art11\/s4\.2\.3(\/part-1)?$/);
    expect(s423.sectionPath).toEqual([
      'AMC1 Article 11 Rules for conducting an operational risk assessment',
      'Section 4 The SORA process',
      'S.4.2 Step #2 — Determination of the intrinsic ground risk class (iGRC)',
      'S.4.2.3 Task description',
    ]);
  });

  it('splits long units at paragraph boundaries, never mid-sentence', () => {
    const parts = chunks.filter((c) => c.part && c.kind !== 'table');
    expect(parts.length).toBeGreaterThan(10);
    for (const c of parts) {
      if (c.part!.index < c.part!.of) {
        const last = c.text.trim().split('\n').pop()!.trim();
        expect(last, c.id).toMatch(/[.;:!?]['"’”)]?\d{0,3}$|^[A-Z0-9 ,()‘’'—–-]+$/);
      }
    }
  });

  it('never leaves a list introduction at the end of a part with its items in the next part', () => {
    const startsItem = /^\s*(?:\((?:[a-z]{1,2}|\d{1,2}|[ivx]{1,5})\)|[ivx]{1,5}\.\s|[—–•]|\d{1,2}\.)/;
    for (let i = 0; i + 1 < chunks.length; i++) {
      const c = chunks[i]!;
      const next = chunks[i + 1]!;
      if (!c.part || c.kind === 'table' || next.kind === 'table' || next.part?.index !== c.part.index + 1) continue;
      const endsIntro = /:['"’”)]?\d{0,3}$/.test(c.text.trim());
      expect(endsIntro && startsItem.test(next.text), `${c.id} → ${next.id}`).toBe(false);
    }
  });

  it('resolves cross-references to chunk ids where the label is unambiguous in scope', () => {
    const s433 = chunks.filter((c) => c.title.startsWith('S.4.3.3 ')).flatMap((c) => c.links);
    expect(s433).toContainEqual({ label: 'Table 5', target: 'easa-amc-gm-2019-947/amc1-art11/s4.3.3/table-5' });
    const annexB = s433.find((l) => l.label === 'Annex B')!;
    expect(annexB.target).toMatch(/^easa-amc-gm-2019-947\/amc1-art11\/annex-b(\/part-1)?$/);
  });

  it('builds the retrieval string as title, title, text and fills summary and keywords deterministically', () => {
    const t5 = tableByCaption('Table 5 —')[0]!;
    expect(t5.retrieval.startsWith(`${t5.title} ${t5.title}. `)).toBe(true);
    expect(t5.summary.length).toBeGreaterThan(20);
    expect(t5.keywords.length).toBeGreaterThan(3);
    const again = enrichDrafts(
      chunkEasaDocument(loadLayoutText(source, 'easa-amc-gm-2019-947'), {
        docId: 'easa-amc-gm-2019-947',
        edition: 'Amdt 3',
        jurisdiction: 'EU',
        language: 'en',
      }),
    );
    expect(again.map((c) => [c.id, c.summary, c.keywords])).toEqual(chunks.map((c) => [c.id, c.summary, c.keywords]));
  });

  it('flags passages with merged amendment markup and figures missing from the text', () => {
    expect(chunks.some((c) => c.amendmentArtefacts)).toBe(true);
    const withFigure = chunks.find((c) => c.missingFigures?.some((f) => f.startsWith('Figure 6 — ARC assignment process')));
    expect(withFigure).toBeDefined();
  });

  it('leaves no SORA step or annex as a heading-only chunk: the heading is read with the content it introduces', () => {
    const { headingOnly } = countHygiene(chunks);
    // left: the SORA 2.0 entry, printed as its title, its edition and "[…]"
    expect(headingOnly).toEqual(['easa-amc-gm-2019-947/amc1bis-art11']);
    expect(headingOnly.filter((id) => /\/s4\.\d+$|\/section-\d+$|\/annex-[a-z]$/.test(id))).toEqual([]);
    // Step #2's heading opens its first subsection; the subsection keeps its id and title
    const first = chunks.find((c) => c.title.startsWith('S.4.2.1 '))!;
    expect(first.id).toBe('easa-amc-gm-2019-947/amc1-art11/s4.2.1');
    expect(collapse(first.text).startsWith('S.4.2 Step #2 — Determination of the intrinsic ground risk class (iGRC) S.4.2.1 ')).toBe(true);
    expect(chunks.some((c) => c.id === 'easa-amc-gm-2019-947/amc1-art11/s4.2')).toBe(false);
    // a chain of headings ends in the first unit with a body
    const step1 = chunks.find((c) => collapse(c.text).startsWith('Section 4 The SORA process S.4.1 Step #1'))!;
    expect(isHeadingOnly(step1)).toBe(false);
    // the ids of the units after a merged heading do not move (E.3's OSOs keep theirs)
    expect(chunks.some((c) => c.id.startsWith('easa-amc-gm-2019-947/amc1-art11/annex-e/e3-2/'))).toBe(true);
  });

  it('reads a glossary entry column by column: term (acronym), then the definition, never interleaved', () => {
    const glossary = chunks.filter((c) => c.kind === 'glossary');
    expect(glossary.length).toBeGreaterThan(150);
    // I.18 keeps a figure's labels, printed side by side inside its definition: not a term beside a definition
    expect(glossary.filter((c) => hasInterleavedColumns(c.text)).map((c) => c.id)).toEqual(['easa-amc-gm-2019-947/amc1-art11/annex-i/i-18']);
    const erp = glossary.find((c) => c.title.startsWith('I.56. '))!;
    const text = collapse(erp.text);
    expect(text.startsWith('I.56. Emergency response plan (ERP) Plan of actions')).toBe(true);
    expect(text).toContain('in a certain order or manner, in response to an emergency event.');
    // a wrapped acronym is read whole, and the column labels repeated at page tops are gone
    expect(collapse(glossary.find((c) => c.title.startsWith('I.25. '))!.text)).toContain(
      'I.25. Beyond visual line of sight operation with airspace observers (BVLOS with AOs) A UAS operation',
    );
    expect(glossary.some((c) => /Term\s+Acronym\s+Definition/.test(c.text))).toBe(false);
  });
});
