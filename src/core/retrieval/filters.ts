/** Filters by document, edition and jurisdiction, as a row mask. */
import type { Chunk } from '../model/chunk.js';
import type { Filters } from './types.js';

export const hasFilters = (f: Filters): boolean => Boolean(f.docIds?.length || f.jurisdictions?.length || f.editions?.length);

export function allowedRows(chunks: Pick<Chunk, 'docId' | 'jurisdiction' | 'edition'>[], f: Filters): Uint8Array {
  const mask = new Uint8Array(chunks.length);
  chunks.forEach((c, i) => {
    const ok =
      (!f.docIds?.length || f.docIds.includes(c.docId)) &&
      (!f.jurisdictions?.length || f.jurisdictions.includes(c.jurisdiction)) &&
      (!f.editions?.length || f.editions.some((e) => c.edition.includes(e)));
    mask[i] = ok ? 1 : 0;
  });
  return mask;
}
