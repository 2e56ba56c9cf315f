/**
 * A small deterministic set of out-of-scope questions written from the coverage data
 * alone (label, location and how the corpus writes the reference): data that exists
 * even before the LLM generation has run. Every question asks about an instrument whose
 * rule is absent from the corpus; the templates are generic (no evaluation question was
 * read to write them).
 */
import type { CoverageInstrument } from '../../src/core/coverage/types.js';

export const TEMPLATE_VERSION = 'coverage-templates/2';

/** The subject of an instrument in words: a not-regulated subject's own words, else its label's descriptive parenthesis, else the label. */
export function subjectOf(ins: Pick<CoverageInstrument, 'label' | 'notice'>): string {
  if (ins.notice?.kind === 'not-regulated') return ins.notice.subject;
  const paren = /\(([^()]*)\)\s*$/.exec(ins.label)?.[1];
  if (paren && !/\d/.test(paren) && /[a-z]{4}/.test(paren)) return paren;
  const bare = ins.label.replace(/\s*\([^()]*\)\s*$/, '').trim();
  return bare.charAt(0).toLowerCase() + bare.slice(1);
}

/** How to cite it: "Article 14 of Regulation (EU) 2019/947" from the location "Regulation (EU) 2019/947, Article 14". */
export function citationOf(ins: Pick<CoverageInstrument, 'location'>): string {
  const [head, ...rest] = ins.location.split(', ');
  return rest.length ? `${rest.join(', ')} of ${head}` : head!;
}

const TEMPLATES: { style: string; make: (subject: string, cite: string, location: string) => string }[] = [
  { style: 'names_rule', make: (_s, c) => `What does ${c} require?` },
  { style: 'names_rule', make: (_s, c) => `Which obligations for drone operators are set out in ${c}?` },
  { style: 'names_rule', make: (s, c) => `What does ${c} say about ${s}?` },
  { style: 'subject', make: (s) => `What are the EU rules on ${s}?` },
  { style: 'subject', make: (s) => `Where are ${s} regulated for drones in the EU?` },
  { style: 'operator', make: (s) => `As a drone operator, what do I have to know about ${s}?` },
  { style: 'operator', make: (s) => `We are planning drone flights next month; which requirements on ${s} apply to us?` },
  { style: 'public', make: (s) => `Can you explain ${s} in simple terms?` },
];

/** Entries that only catch references no other entry claims (corpus-build/coverage/instruments.ts). */
const CATCH_ALL = new Set(['part-uas', 'r947-articles']);

export interface TemplateQuestion {
  instrument: string;
  style: string;
  q: string;
}

export function templateQuestions(instruments: readonly CoverageInstrument[]): TemplateQuestion[] {
  const out: TemplateQuestion[] = [];
  for (const ins of instruments) {
    // catch-all entries (every other Article, Part-UAS as a whole) have no subject of their own
    if (ins.status !== 'absent' || CATCH_ALL.has(ins.id)) continue;
    const subject = subjectOf(ins);
    const cite = citationOf(ins);
    const seen = new Set<string>();
    // a subject no instrument is named for has no rule to cite
    const styles = TEMPLATES.filter((t) => t.style !== 'names_rule' || ins.notice?.kind !== 'not-regulated');
    for (const t of styles) {
      const q = t.make(subject, cite, ins.location).replace(/\s+/g, ' ');
      if (seen.has(q)) continue;
      seen.add(q);
      out.push({ instrument: ins.id, style: t.style, q });
    }
  }
  return out;
}
