/**
 * Context assembly (SKYSAFE §2.7): chunks in rank order, each with an inline
 * [chunk-id] marker and its source line, until the character budget; the cut is
 * always at a chunk boundary (a chunk that does not fit is left out, and so are
 * the ones after it).
 */
import type { Chunk } from '../model/chunk.js';
import { collapseWhitespace } from '../text/sentences.js';

export interface ContextBlock {
  context: string;
  /** Ids of the chunks included, in order. */
  included: string[];
  /** Ids left out for the budget. */
  omitted: string[];
  /** The first chunk, when it alone is longer than the budget: included cut to fit (its end replaced by CUT_MARK). */
  cut?: string;
}

/** Marks where a passage longer than the whole context budget was cut. */
export const CUT_MARK = ' […]';

export function formatPages(c: Pick<Chunk, 'pageStart' | 'pageEnd'>): string {
  if (c.pageStart === null) return 'no page';
  return c.pageEnd !== null && c.pageEnd !== c.pageStart ? `pages ${c.pageStart}–${c.pageEnd}` : `page ${c.pageStart}`;
}

/** One passage as the model sees it: marker, title, source, the edition of its document (when known) and pages, then the text. */
export function chunkBlock(c: Chunk, edition?: string): string {
  const text = c.kind === 'table' ? c.text : collapseWhitespace(c.text);
  return `[${c.id}] ${c.title} — ${c.docId}, ${edition ? `${edition}, ` : ''}${formatPages(c)}\n${text}`;
}

/** `editionOf` gives each passage's edition for its block (issue 12: the edition in every context block). */
export function assembleContext(chunks: Chunk[], budget: number, editionOf?: (c: Chunk) => string | undefined): ContextBlock {
  const parts: string[] = [];
  const included: string[] = [];
  const omitted: string[] = [];
  let used = 0;
  let cut: string | undefined;
  for (const c of chunks) {
    let block = chunkBlock(c, editionOf?.(c));
    const add = (parts.length ? 2 : 0) + block.length;
    if (!parts.length && !omitted.length && block.length > budget && budget > CUT_MARK.length) {
      // the best passage alone is longer than the budget: cut it to fit (at a word boundary) rather
      // than leave the context empty, which would make the answer stage refuse despite evidence
      const room = budget - CUT_MARK.length;
      const head = block.slice(0, room);
      const space = head.lastIndexOf(' ');
      block = (space > room / 2 ? head.slice(0, space) : head) + CUT_MARK;
      cut = c.id;
      parts.push(block);
      included.push(c.id);
      used += block.length;
      continue;
    }
    if (omitted.length || used + add > budget) {
      omitted.push(c.id);
      continue;
    }
    parts.push(block);
    included.push(c.id);
    used += add;
  }
  return { context: parts.join('\n\n'), included, omitted, ...(cut ? { cut } : {}) };
}
