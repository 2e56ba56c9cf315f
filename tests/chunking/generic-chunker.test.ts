import { describe, it, expect } from 'vitest';
import { chunkParagraphs, paragraphs, splitSentences } from '../../src/core/ingest/generic-chunker.js';
import type { PageAwareDocument, SourceLine } from '../../src/core/ingest/document-model.js';

const meta = { docId: 'club-handbook', title: 'Club Handbook', edition: 'v1', jurisdiction: 'EU', language: 'en' };

/** A document from pages of lines ('' = empty line). */
function docOf(pages: (string[] | null)[], unpaged = false): PageAwareDocument {
  const lines: SourceLine[] = [];
  pages.forEach((page, i) => {
    for (const text of page ?? []) lines.push({ text, page: unpaged ? null : i + 1, lineNo: lines.length + 1 });
  });
  return {
    sourceId: meta.docId,
    pageCount: unpaged ? null : pages.length,
    lines,
    diagnostics: { strippedLines: 0, contentChars: 0, unreadablePages: [], warnings: [] },
  };
}

/** A sentence of exactly `len` characters (len ≥ 10) ending in "end.", made of filler words. */
const sentence = (word: string, len: number): string => {
  let s = word.charAt(0).toUpperCase() + word.slice(1);
  while (s.length < len) s += ` ${word}`;
  s = s.slice(0, len - 4);
  return (s.endsWith(' ') ? `${s.slice(0, -1)}q` : s) + 'end.';
};

describe('paragraphs', () => {
  it("splits at empty lines and at page changes, joining a paragraph's lines with newlines", () => {
    const doc = docOf([['One a', 'one b', '', 'Two'], ['Three']]);
    expect(paragraphs(doc)).toEqual([
      { text: 'One a\none b', page: 1 },
      { text: 'Two', page: 1 },
      { text: 'Three', page: 2 },
    ]);
  });
});

describe('splitSentences', () => {
  it('does not break after abbreviations or initials', () => {
    const s = splitSentences('Use e.g. Art. 11 rules. See J. Smith first! Then go? 2 more.');
    expect(s.map((x) => x.text)).toEqual(['Use e.g. Art. 11 rules.', 'See J. Smith first!', 'Then go?', '2 more.']);
  });
});

describe('chunkParagraphs', () => {
  it('packs whole paragraphs up to maxChars, separated by an empty line', () => {
    const p = (w: string): string => sentence(w, 40); // 40-char paragraphs
    const doc = docOf([[p('alpha'), '', p('bravo'), '', p('charlie'), '', p('delta'), '', p('echo')]]);
    const chunks = chunkParagraphs(doc, { ...meta, maxChars: 100 });
    // 40 + 2 + 40 = 82 fits, a third would need 124
    expect(chunks.map((c) => c.text)).toEqual([`${p('alpha')}\n\n${p('bravo')}`, `${p('charlie')}\n\n${p('delta')}`, p('echo')]);
    for (const c of chunks) expect(c.text.length).toBeLessThanOrEqual(100);
  });

  it('splits a paragraph longer than maxChars only at sentence ends', () => {
    const sentences = ['alpha', 'bravo', 'charlie', 'delta', 'echo', 'foxtrot'].map((w) => sentence(w, 45));
    const doc = docOf([[sentences.slice(0, 3).join(' '), sentences.slice(3).join(' ')]]); // one 2-line paragraph
    const chunks = chunkParagraphs(doc, { ...meta, maxChars: 100 });
    expect(chunks.length).toBe(3);
    for (const c of chunks) {
      expect(c.text.length).toBeLessThanOrEqual(100);
      expect(c.text).toMatch(/\.$/); // every chunk ends at a sentence end
    }
    // nothing lost or reordered: re-joining gives back the paragraph (modulo the line break)
    expect(
      chunks
        .map((c) => c.text)
        .join(' ')
        .replace(/\s+/g, ' '),
    ).toBe(sentences.join(' '));
    const pieces = chunks.flatMap((c) => splitSentences(c.text).map((s) => s.text));
    expect(pieces).toEqual(sentences);
  });

  it('keeps a single sentence longer than maxChars whole', () => {
    const long = sentence('overlong', 250);
    const doc = docOf([[`Short start. ${long} Short end.`]]);
    const chunks = chunkParagraphs(doc, { ...meta, maxChars: 100 });
    expect(chunks.map((c) => c.text)).toEqual(['Short start.', long, 'Short end.']);
  });

  it('records page ranges, and ids that count chunks per start page', () => {
    const p = (w: string): string => sentence(w, 30);
    const doc = docOf([[p('alpha')], [p('bravo'), '', p('charlie'), '', p('delta'), '', p('echo')], [p('foxtrot')]]);
    const chunks = chunkParagraphs(doc, { ...meta, maxChars: 70 });
    expect(chunks.map((c) => [c.id, c.pageStart, c.pageEnd])).toEqual([
      ['club-handbook/p1-1', 1, 2],
      ['club-handbook/p2-1', 2, 2],
      ['club-handbook/p2-2', 2, 3],
    ]);
  });

  it('fills the chunk fields for a generic PDF section', () => {
    const [c] = chunkParagraphs(docOf([['Fly safe. Land softly.']]), meta);
    expect(c).toEqual({
      id: 'club-handbook/p1-1',
      docId: 'club-handbook',
      kind: 'pdf-section',
      title: 'Club Handbook',
      sectionPath: ['Club Handbook'],
      pageStart: 1,
      pageEnd: 1,
      text: 'Fly safe. Land softly.',
      summary: '',
      keywords: [],
      jurisdiction: 'EU',
      edition: 'v1',
      language: 'en',
      links: [],
      retrieval: 'Club Handbook Club Handbook. Fly safe. Land softly.',
    });
  });

  it('uses p0 ids and null pages for unpaged sources, and defaults maxChars to 1500', () => {
    const para = Array.from({ length: 40 }, (_, i) => sentence(`word${i}`, 60)).join(' '); // 2439 chars
    const chunks = chunkParagraphs(docOf([[para]], true), meta);
    expect(chunks.map((c) => c.id)).toEqual(['club-handbook/p0-1', 'club-handbook/p0-2']);
    expect(chunks[0]!.pageStart).toBeNull();
    expect(chunks[0]!.text.length).toBeLessThanOrEqual(1500);
    expect(chunks[0]!.text.length).toBeGreaterThan(1400);
  });
});
