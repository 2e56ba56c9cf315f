/**
 * Scope check: questions whose subject the indexed documents never cover get
 * "no evidence" with the reason, instead of the nearest-looking passages. The
 * AMC/GM to Regulation (EU) 2019/947 and the SORA material set technical and
 * procedural requirements; they fix no penalties and no prices, fees or
 * insurance premiums (national law and the market do). Similar passages exist
 * for such questions (registration, insurance *coverage*), so no similarity
 * threshold separates them from answerable questions; the question's intent does.
 *
 * Non-EASA jurisdictions are handled by the jurisdiction filter (filters.ts,
 * engine.ts `broaden`), not here.
 */

export type OutOfScopeCategory = 'penalties' | 'prices';

export interface ScopeVerdict {
  category: OutOfScopeCategory;
  /** The words of the question that decided it, as typed. */
  matched: string;
  /** For the user: why there is no evidence, and what to do instead. */
  reason: string;
}

interface ScopeRule {
  category: OutOfScopeCategory;
  pattern: RegExp;
  reason: string;
}

const RULES: ScopeRule[] = [
  {
    category: 'penalties',
    // "fine" only as a noun ("a fine", "what fine", "fines"), never "is it fine to …"
    pattern: /\b(?:fined|fines|penalt(?:y|ies)|sanctions?|sanctioned|punish\w*|prosecut\w*|jail|prison)\b|\b(?:a|the|what|which|any) fine\b/i,
    reason:
      'Penalties and sanctions are set by each State’s national law; the indexed EASA documents do not contain them. Ask the national aviation authority, or ask here about the requirement itself.',
  },
  {
    category: 'prices',
    pattern: /\bhow much\b[^.?!]*\b(?:cost|costs|charge|charges|price|premium|fee|fees)\b|\b(?:price|prices|pricing|premium|premiums|fee|fees|tariffs?)\b/i,
    reason:
      'Prices, fees and insurance premiums are not set by the indexed documents. Ask the authority (fees) or an insurer (premiums), or ask here what the rules require (for example, whether insurance is needed).',
  },
];

/** The first scope rule the question matches, or null when it is in scope. */
export function checkScope(question: string): ScopeVerdict | null {
  for (const r of RULES) {
    const m = r.pattern.exec(question);
    if (m) return { category: r.category, matched: m[0], reason: r.reason };
  }
  return null;
}
