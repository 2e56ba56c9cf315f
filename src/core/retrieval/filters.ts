/** Filters by document, edition and jurisdiction, as a row mask. */
import type { Chunk } from '../model/chunk.js';
import type { Filters } from './types.js';

/** Filters the broadening fallback may relax (a logical-document restriction is not one of them). */
export const hasFilters = (f: Filters): boolean => Boolean(f.docIds?.length || f.jurisdictions?.length || f.editions?.length);

export function allowedRows(chunks: Pick<Chunk, 'id' | 'docId' | 'documentId' | 'jurisdiction' | 'edition'>[], f: Filters): Uint8Array {
  const mask = new Uint8Array(chunks.length);
  const excluded = f.excludeIds?.length ? new Set(f.excludeIds) : null;
  chunks.forEach((c, i) => {
    const ok =
      !excluded?.has(c.id) &&
      (!f.docIds?.length || f.docIds.includes(c.docId)) &&
      (!f.documentIds?.length || (c.documentId !== undefined && f.documentIds.includes(c.documentId))) &&
      (!f.jurisdictions?.length || f.jurisdictions.includes(c.jurisdiction)) &&
      (!f.editions?.length || f.editions.some((e) => c.edition.includes(e)));
    mask[i] = ok ? 1 : 0;
  });
  return mask;
}

export const EU_MEMBER_STATES = new Set('AT BE BG HR CY CZ DK EE FI FR DE GR HU IE IT LV LT LU MT NL PL PT RO SK SI ES SE'.split(' '));
// EASA member states outside the EU apply the same drone rules
const EASA_STATES = new Set([...EU_MEMBER_STATES, 'IS', 'LI', 'NO', 'CH']);

/** Does the EU drone regulation apply there? ('EU', an EU member state or another EASA member state.) */
export const isEasaJurisdiction = (code: string): boolean => code === 'EU' || EASA_STATES.has(code);
