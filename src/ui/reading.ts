/**
 * Reading the documents through: the order of a section's passages (its own passages, then its
 * subsections', depth first — the order the outline is built in), the place of a passage in such
 * a sequence (previous / next in the passage dialog), and the labels of the tables an outline
 * lists, as printed.
 */
import type { DocumentOutline, OutlineNode } from '../runtime/types';

/** A run of passages read one after the other, and what it is (a section or a document title). */
export interface ReadingSequence {
  ids: readonly string[];
  label: string;
}

/** Every passage of a section and its subsections, in outline order, each once. */
export function sectionPassages(node: OutlineNode): string[] {
  const out: string[] = [];
  const seen = new Set<string>();
  const walk = (n: OutlineNode): void => {
    for (const id of n.chunkIds) {
      if (!seen.has(id)) {
        seen.add(id);
        out.push(id);
      }
    }
    n.children.forEach(walk);
  };
  walk(node);
  return out;
}

/** The whole document as one reading sequence (null when the document is not in the outline). */
export function documentSequence(outline: readonly DocumentOutline[], docId: string): ReadingSequence | null {
  const doc = outline.find((d) => d.docId === docId);
  if (!doc) return null;
  const ids = sectionPassages({ title: doc.title, chunkIds: [], children: doc.sections });
  return ids.length ? { ids, label: doc.title } : null;
}

/** Where a passage sits in a sequence: its 1-based position and its neighbours (null at either end, or when it is not in it). */
export function placeIn(
  seq: ReadingSequence | null | undefined,
  id: string,
): { position: number; count: number; previous: string | null; next: string | null } | null {
  if (!seq) return null;
  const i = seq.ids.indexOf(id);
  if (i < 0) return null;
  return { position: i + 1, count: seq.ids.length, previous: i > 0 ? seq.ids[i - 1]! : null, next: i + 1 < seq.ids.length ? seq.ids[i + 1]! : null };
}

const TABLE_ID = /\/table-[^/]+$/i;

/** True for the id of a table passage (".../table-b4"). */
export const isTableId = (id: string): boolean => TABLE_ID.test(id);

/** A table's number as printed in its caption ("Table B.4 — …" → "B.4"), or null. */
export function printedTableNumber(title: string): string | null {
  return /^\s*Table\s+([A-Z]?\.?\d+(?:\.\d+)*)\b/i.exec(title)?.[1] ?? null;
}

export interface TableLabel {
  /** The caption as printed: number and subject, so that two tables never read the same. */
  label: string;
  /** Set when the document prints the same number on another table: said, not silently renumbered. */
  note: string | null;
}

/**
 * Labels for the tables of one document, from their captions as printed (id → label). A number
 * the document prints on more than one table gets a note naming the other caption(s).
 */
export function tableLabels(tables: readonly { id: string; title: string }[]): Map<string, TableLabel> {
  const byNumber = new Map<string, { id: string; title: string }[]>();
  for (const t of tables) {
    const n = printedTableNumber(t.title);
    if (n) byNumber.set(n, [...(byNumber.get(n) ?? []), t]);
  }
  const out = new Map<string, TableLabel>();
  for (const t of tables) {
    const n = printedTableNumber(t.title);
    const same = n ? (byNumber.get(n) ?? []).filter((o) => o.id !== t.id && o.title !== t.title) : [];
    out.set(t.id, {
      label: t.title.trim() || t.id.split('/').pop()!,
      note: same.length ? `The document prints the number ${n} on this table and also on “${same.map((o) => o.title).join('”, “')}”.` : null,
    });
  }
  return out;
}
