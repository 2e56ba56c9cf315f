/**
 * Table 2 (qualitative population descriptors) and the ground-risk items of EASA Forms 208 and
 * 209 re-read from source.txt: rows in print order, every descriptor, description and printed
 * row on its recorded page.
 */
import { beforeAll, describe, expect, it } from 'vitest';
import { DENSITY_DESCRIPTORS_TABLE, FORM_DESCRIPTORS } from '../../src/core/sora/tables/density-descriptors-table.js';
import { collapse, loadSource, type SourceText } from './corpus-text.js';

let src: SourceText;
beforeAll(() => {
  src = loadSource();
});

const T2 = DENSITY_DESCRIPTORS_TABLE;

describe('Table 2 (qualitative descriptors) matches the source text', () => {
  it('has its caption on the recorded page, and every row with its quantitative value, descriptors and description', () => {
    const cap = src.lineEquals(T2.source.caption);
    expect(src.pageOf(cap)).toBe(T2.source.page);
    const top = src.findBackward(cap, (t) => t.startsWith('(d)') && t.includes('population density values are not available'));
    expect(src.pageOf(top)).toBe(T2.source.page);
    const body = src.lines.slice(top, cap);
    // the quantitative values start their line, in print order
    let last = -1;
    for (const row of T2.rows) {
      const label = row.quantitative === 'Controlled ground area' ? 'Controlled' : row.quantitative;
      const at = body.findIndex((l, i) => i > last && l.trim().startsWith(label));
      expect(at, `row ${row.quantitative}`).toBeGreaterThan(last);
      last = at;
    }
    // the three columns interleave line by line in the layout text: every descriptor and
    // description must appear word by word, in order, in the table's words
    const words = collapse(body.join(' ')).split(' ');
    const inOrder = (text: string): boolean => {
      let i = 0;
      for (const w of collapse(text).split(' ')) {
        while (i < words.length && words[i] !== w) i++;
        if (i === words.length) return false;
        i++;
      }
      return true;
    };
    for (const row of T2.rows) {
      for (const d of row.descriptors) expect(inOrder(d), `descriptor ${d}`).toBe(true);
      expect(inOrder(row.description), `description of ${row.quantitative}`).toBe(true);
      for (const cue of row.descriptionCues) expect(row.description).toContain(cue);
    }
  });

  it('gives each description cue to one row only', () => {
    const cues = T2.rows.flatMap((r) => r.descriptionCues);
    expect(new Set(cues).size).toBe(cues.length);
    for (const r of T2.rows)
      for (const c of r.descriptionCues) for (const other of T2.rows) if (other !== r) expect(other.description.toLowerCase()).not.toContain(c);
  });
});

describe('EASA Forms 208 and 209 print the descriptors against the density rows as typed', () => {
  it.each(FORM_DESCRIPTORS.map((f) => [f.source.caption, f] as const))('%s', (_, form) => {
    const title = form.source.caption.split(' — ')[0]!;
    const itemStart = src.findForward(
      src.findForward(0, (t) => t.includes(title)),
      (t) => t.includes(form.item.split(' ')[0]!) && t.includes(form.item.split(' ').slice(1, 3).join(' ')),
    );
    expect(src.pageOf(itemStart)).toBe(form.source.page);
    const end = src.findForward(itemStart, (t) => t.includes('assemblies of people') && t.includes('no limit'));
    expect(src.pageOf(end)).toBe(form.source.lastPage ?? form.source.page);
    const lines = src.lines.slice(itemStart, end + 1).map((l) => collapse(l));
    let from = 0;
    for (const g of form.groups) {
      const at = lines.findIndex((l, i) => i >= from && l.includes(g.descriptor));
      expect(at, g.descriptor).toBeGreaterThanOrEqual(from);
      from = at;
      for (const row of g.printedRows) {
        const r = lines.findIndex((l, i) => i >= from && (l.endsWith(` ${row}`) || l === row));
        expect(r, `${g.descriptor}: ${row}`).toBeGreaterThanOrEqual(from);
        from = r;
      }
    }
  });
});
