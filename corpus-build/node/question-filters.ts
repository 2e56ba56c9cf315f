/** The filters the CLIs retrieve with: the chosen corpus, and the jurisdictions the question names. */
import { extractJurisdictions } from '../../src/core/route/jurisdictions.js';
import type { Filters } from '../../src/core/retrieval/types.js';

export function questionFilters(question: string, corpus?: string): Filters {
  const jurisdictions = extractJurisdictions(question);
  return { ...(corpus ? { docIds: [corpus] } : {}), ...(jurisdictions.length ? { jurisdictions } : {}) };
}
