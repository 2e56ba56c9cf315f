/**
 * Cross-references printed in the text ("Table 5", "Annex B", "OSO #04",
 * "Step #3", "S.4.2") resolved to chunk ids. A label that matches no chunk, or
 * that the document prints inconsistently (the SAIL table is cited as "Table 7"
 * but captioned "Table 3"), stays unresolved (target null): we never guess.
 */
import type { Chunk, ChunkLink } from '../../model/chunk.js';

type Draft = Pick<Chunk, 'id' | 'docId' | 'kind' | 'title' | 'text' | 'pageStart'>;

const REF = /\b(Table (?:[A-Z]\.)?\d+|Annex [A-EI]\b|OSO #\d+|Step #\d+|S\.\d+(?:\.\d+)+)/g;

/** The scope of a chunk id: document + entry (+ annex), e.g. "doc/amc1-art11/annex-b". */
const scopeOf = (id: string): string => {
  const parts = id.split('/');
  return parts.slice(0, parts[2]?.startsWith('annex-') ? 3 : 2).join('/');
};

export function resolveCrossReferences(chunks: Draft[]): ChunkLink[][] {
  const byLabel = new Map<string, Draft[]>();
  const add = (label: string, c: Draft): void => {
    const list = byLabel.get(label) ?? [];
    if (!list.includes(c)) list.push(c);
    byLabel.set(label, list);
  };
  for (const c of chunks) {
    const first = !/\/part-([2-9]|\d\d)$/.test(c.id);
    if (!first) continue;
    let m: RegExpExecArray | null;
    if (c.kind === 'table' && (m = /^Table ((?:[A-Z]\.)?\d+)/.exec(c.title))) add(`Table ${m[1]}`, c);
    if ((m = /^Annex ([A-Z]) to AMC1/.exec(c.title))) add(`Annex ${m[1]}`, c);
    if (c.kind === 'oso' && (m = /^OSO #(\d+)/.exec(c.title))) add(`OSO #${m[1]}`, c);
    if ((m = /^S\.(\d+(?:\.\d+)+)/.exec(c.title))) add(`S.${m[1]}`, c);
    if ((m = /^S\.4\.(\d+) Step #(\d+)/.exec(c.title))) add(`Step #${m[2]}`, c);
  }
  return chunks.map((c) => {
    const links: ChunkLink[] = [];
    const seen = new Set<string>();
    for (const m of c.text.matchAll(REF)) {
      const label = m[1]!.replace(/\s+/g, ' ');
      if (seen.has(label)) continue;
      seen.add(label);
      const candidates = (byLabel.get(label) ?? []).filter((t) => t.docId === c.docId && t.id !== c.id);
      let target: Draft | undefined;
      if (candidates.length === 1) target = candidates[0];
      else if (candidates.length > 1) {
        const same = candidates.filter((t) => scopeOf(t.id) === scopeOf(c.id));
        const pool = same.length ? same : candidates;
        // nearest by page
        target = [...pool].sort((a, b) => Math.abs((a.pageStart ?? 0) - (c.pageStart ?? 0)) - Math.abs((b.pageStart ?? 0) - (c.pageStart ?? 0)))[0];
      }
      if (target || /^(Table|Annex|OSO)/.test(label)) links.push({ label, target: target?.id ?? null });
    }
    return links;
  });
}
