import { readFileSync } from 'node:fs';
import path from 'node:path';
import { fileURLToPath } from 'node:url';
import { describe, it, expect } from 'vitest';
import { htmlToText, loadQaRules } from '../../corpus-build/loaders/qa-rules-json.js';
import { SourceFormatError } from '../../corpus-build/errors.js';

const fixture = readFileSync(path.join(path.dirname(fileURLToPath(import.meta.url)), '../fixtures/qa-rules.sample.json'), 'utf8');
const meta = { docId: 'qa-sample', edition: '2025-03', language: 'en' };

/** The fixture with `edit` applied to its parsed form, re-serialised. */
function edited(edit: (doc: { questions: Record<string, any>[] }) => void): string {
  const doc = JSON.parse(fixture) as { questions: Record<string, any>[] };
  edit(doc);
  return JSON.stringify(doc);
}

function errorOf(text: string): SourceFormatError {
  try {
    loadQaRules(text, meta);
  } catch (e) {
    expect(e).toBeInstanceOf(SourceFormatError);
    return e as SourceFormatError;
  }
  throw new Error('expected loadQaRules to throw');
}

describe('loadQaRules on the sample file', () => {
  const chunks = loadQaRules(fixture, meta);

  it('makes one qa chunk per question × country, with the country as jurisdiction', () => {
    expect(chunks.map((c) => [c.id, c.jurisdiction])).toEqual([
      ['qa-sample/q-night-test-flights/fr', 'FR'],
      ['qa-sample/q-night-test-flights/de', 'DE'],
      ['qa-sample/q-paper-logbook/fr', 'FR'],
      ['qa-sample/q-paper-logbook/de', 'DE'],
    ]);
    for (const c of chunks) {
      expect(c.kind).toBe('qa');
      expect(c.summary).toBe('');
      expect(c.keywords).toEqual([]);
      expect(c.pageStart).toBeNull();
    }
  });

  it('takes title and section path from the question and its category', () => {
    const c = chunks[0]!;
    expect(c.title).toBe('May a club fly test drones after sunset in a public park?');
    expect(c.sectionPath).toEqual(['Night operations', c.title]);
    expect(c.extra).toMatchObject({
      questionId: 'q-night-test-flights',
      category: 'Night operations',
      tags: ['night', 'parks', 'clubs'],
      lastReviewed: '2025-03-14',
    });
  });

  it('leaves no tags and no script or style content in the text', () => {
    for (const c of chunks) {
      expect(c.text).not.toMatch(/<\/?[a-z][^>]*>/i);
      expect(c.text).not.toMatch(/trackVisitor|color: red/);
    }
  });

  it('decodes entities and turns list items and breaks into lines', () => {
    const fr = chunks[0]!.text;
    expect(fr).toContain('A spotter stands at every park gate & watches the paths.');
    expect(fr).toContain("Le règlement fictif s'applique à tous les clubs\u00a0— sans exception.");
    expect(fr.split('\n')).toEqual([
      'In this invented example, a club may fly after sunset only if it has filed a lighting plan with the fictional Parks Office.',
      '',
      '— Each drone carries a green flashing light.',
      '— A spotter stands at every park gate & watches the paths.',
      '— Flights end before 22:00.',
      '',
      "Le règlement fictif s'applique à tous les clubs\u00a0— sans exception.",
    ]);
    expect(chunks[1]!.text).toBe(
      'Not in the made-up rules used for this sample: park flights after sunset need a written permit from the imaginary town hall.\nPermits last one season.',
    );
  });

  it('keeps links given as URLs or {title, url}, as chunk links and in extra', () => {
    const fr = chunks[0]!;
    expect(fr.links).toEqual([
      { label: 'Fictional Parks Office guidance', target: null },
      { label: 'https://example.org/parks/lighting-plan-form', target: null },
    ]);
    expect(fr.extra?.links).toEqual([
      { title: 'Fictional Parks Office guidance', url: 'https://example.org/parks/night-guidance' },
      { title: null, url: 'https://example.org/parks/lighting-plan-form' },
    ]);
    expect(chunks[2]!.links).toEqual([]);
  });

  it('builds retrieval as title title. text with whitespace collapsed', () => {
    const c = chunks[1]!;
    expect(c.retrieval).toBe(`${c.title} ${c.title}. ${c.text.replace(/\s+/g, ' ')}`);
    expect(c.retrieval).not.toMatch(/\s{2}|\n/);
  });
});

describe('loadQaRules on malformed input', () => {
  it('names the question and field when answers_by_country is missing', () => {
    const e = errorOf(edited((d) => delete d.questions[1]!.answers_by_country));
    expect(e.item).toBe('question "q-paper-logbook" (#1)');
    expect(e.field).toBe('answers_by_country');
    expect(e.message).toMatch(/q-paper-logbook.*answers_by_country.*missing/);
  });

  it('rejects a country key that is not an ISO 3166-1 alpha-2 code', () => {
    for (const bad of ['fr', 'FRA', 'France']) {
      const e = errorOf(
        edited((d) => {
          const a = d.questions[0]!.answers_by_country;
          a[bad] = a.FR;
          delete a.FR;
        }),
      );
      expect(e.message).toContain('q-night-test-flights');
      expect(e.field).toBe(`answers_by_country.${bad}`);
      expect(e.message).toMatch(/ISO 3166-1 alpha-2/);
    }
  });

  it('accepts EU as a jurisdiction', () => {
    const chunks = loadQaRules(
      edited((d) => {
        const a = d.questions[1]!.answers_by_country;
        a.EU = a.DE;
      }),
      meta,
    );
    expect(chunks.at(-1)!.jurisdiction).toBe('EU');
    expect(chunks.at(-1)!.id).toBe('qa-sample/q-paper-logbook/eu');
  });

  it('names the question and the nested field when answer_html is not a string', () => {
    const e = errorOf(edited((d) => (d.questions[0]!.answers_by_country.FR.answer_html = ['<p>x</p>'])));
    expect(e.item).toContain('q-night-test-flights');
    expect(e.field).toBe('answers_by_country.FR.answer_html');
    expect(e.message).toMatch(/expected an HTML string, got an array/);
  });

  it('uses the index when the question has no id', () => {
    const e = errorOf(edited((d) => delete d.questions[1]!.question_id));
    expect(e.item).toBe('question #1');
    expect(e.field).toBe('question_id');
  });

  it('rejects invalid JSON and a wrong-typed link', () => {
    expect(errorOf('{"questions": [').field).toBe('JSON');
    const e = errorOf(edited((d) => (d.questions[0]!.answers_by_country.DE.links = [42])));
    expect(e.field).toBe('answers_by_country.DE.links[0]');
  });
});

describe('htmlToText', () => {
  it('drops unclosed scripts and comments, and indents nested list items', () => {
    expect(htmlToText('<p>a<!-- hidden --> b</p><script>x()')).toBe('a b');
    expect(htmlToText('<ul><li>one<ul><li>two</li></ul></li><li>three</li></ul>')).toBe('— one\n  — two\n— three');
  });

  it('decodes numeric references and leaves unknown names as written', () => {
    expect(htmlToText('&#233;&#xE9; &bogus; &lt;tag&gt;')).toBe('éé &bogus; <tag>');
  });

  it('decodes every HTML5 named reference, as browsers do', () => {
    expect(htmlToText('<p>UAS &ge; 250&nbsp;g &hellip; &hearts; &euro;5</p>')).toBe('UAS ≥ 250\u00a0g … ♥ €5');
  });

  it('keeps table cells, pre lines and br breaks', () => {
    expect(htmlToText('<table><tr><th>Class</th><th>Mass</th></tr><tr><td>C0</td><td>&lt; 250 g</td></tr></table>')).toBe('Class | Mass\nC0 | < 250 g');
    expect(htmlToText('<pre>line 1\n  two</pre><p>after</p>')).toBe('line 1\ntwo\n\nafter');
    expect(htmlToText('first<br>second<br><br>fourth')).toBe('first\nsecond\n\nfourth');
  });
});
