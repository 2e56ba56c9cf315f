/**
 * The Library's reads of the loaded index: a passage by id, each document's section tree, and
 * keyword search over titles and text (MiniSearch, built on first use and again when the index
 * changes with the user's documents).
 */
import { createLibrarySearch } from '../core/index/library-search.js';
import type { LoadedIndex } from '../core/index/load.js';
import type { Chunk } from '../core/model/chunk.js';
import type { DocumentOutline, KeywordHit, OutlineNode } from './types.js';

export interface Library {
  getChunk(id: string): Chunk | null;
  outline(): DocumentOutline[];
  keywordSearch(text: string, limit?: number): KeywordHit[];
  /** The index changed (user documents added or removed): the keyword index is built again on next use. */
  invalidate(): void;
}

export function createLibrary(index: () => LoadedIndex): Library {
  let search: ReturnType<typeof createLibrarySearch> | null = null;
  return {
    getChunk(id) {
      const idx = index();
      const row = idx.rowOf.get(id);
      return row === undefined ? null : idx.chunks[row]!;
    },
    outline: () => buildOutline(index()),
    keywordSearch(text, limit = 30) {
      const idx = index();
      if (!text.trim()) return [];
      search ??= createLibrarySearch(idx.chunks);
      return search.search(text, limit).map((h) => {
        const c = idx.chunks[idx.rowOf.get(h.id)!]!;
        return { id: c.id, title: c.title, docId: c.docId, pageStart: c.pageStart, pageEnd: c.pageEnd, score: h.score };
      });
    },
    invalidate() {
      search = null;
    },
  };
}

/** Section tree per document from the chunks' section paths, in document order. */
export function buildOutline(idx: Pick<LoadedIndex, 'manifest' | 'chunks'>): DocumentOutline[] {
  return idx.manifest.sources.map((s) => {
    const root: OutlineNode = { title: s.title, chunkIds: [], children: [] };
    for (const c of idx.chunks) {
      if (c.docId !== s.id) continue;
      let node = root;
      const path = c.kind === 'table' ? c.sectionPath.slice(0, -1) : c.sectionPath;
      for (const title of path) {
        let child = node.children.find((n) => n.title === title);
        if (!child) {
          child = { title, chunkIds: [], children: [] };
          node.children.push(child);
        }
        node = child;
      }
      node.chunkIds.push(c.id);
    }
    return {
      docId: s.id,
      title: s.title,
      edition: s.edition,
      verbatim: s.verbatim,
      reuseNotice: s.reuseNotice,
      editionNote: s.editionNote,
      sections: root.children,
    };
  });
}
