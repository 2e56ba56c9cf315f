/**
 * Does a question name, or ask about, an instrument the corpus only references?
 *
 * `coverageMatches` lists every match (for the answerability decision's features);
 * `coverageOf` returns the one to name, or null. Named references (an Article, a
 * Part-UAS point, a Regulation number, "the 'open' category") come before subject-matter
 * cues; a named point whose AMC/GM the corpus holds (Article 11, UAS.SPEC.030, ...) is
 * reported as covered and suppresses topic matches, since the documents answer it.
 *
 * Category and subject: an entry bound to categories of operation (UAS.OPEN: 'open') is matched on
 * its subject only when the question names no category or one of its categories; a question about
 * the specific category's remote pilot competence is not about the 'open' category's rule however
 * many words they share. A question that names the instrument itself (a citation, a proper name)
 * is about it whatever else it says.
 */
import { resolveKey, scanReferences } from './refs.js';
import type { CoverageData, CoverageHit, CoverageInstrument, OperationCategory } from './types.js';

export interface CoverageMatches {
  /** Absent instruments the question names (reference or named cue), most specific first. */
  named: CoverageHit[];
  /** Absent instruments whose subject-matter cues the question hits, most cues first. */
  topic: CoverageHit[];
  /** Instruments the question names that the corpus covers (AMC/GM present or quoted). */
  covered: CoverageHit[];
  /** The categories of operation the question names (none: it does not say). */
  categories: OperationCategory[];
}

type Compiled = {
  table: { ins: CoverageInstrument; named: RegExp[]; topic: RegExp[] }[];
  categories: { id: OperationCategory; cues: RegExp[] }[];
};
const compiled = new WeakMap<CoverageData, Compiled>();

function compile(data: CoverageData): Compiled {
  let c = compiled.get(data);
  if (!c) {
    c = {
      table: data.instruments.map((ins) => ({
        ins,
        named: ins.cues.filter((q) => q.kind === 'named').map((q) => new RegExp(q.re, 'i')),
        topic: ins.cues.filter((q) => q.kind === 'topic').map((q) => new RegExp(q.re, 'i')),
      })),
      categories: (data.categories ?? []).map((k) => ({ id: k.id, cues: k.cues.map((re) => new RegExp(re, 'i')) })),
    };
    compiled.set(data, c);
  }
  return c;
}

/** The categories of operation a question names ("the specific category", "an operational authorisation", "SORA", "PDRA-S01" …). */
export function questionCategories(question: string, data: CoverageData): OperationCategory[] {
  const q = question.replace(/\s+/g, ' ');
  return compile(data)
    .categories.filter((k) => k.cues.some((re) => re.test(q)))
    .map((k) => k.id);
}

/** Whether an entry's subject can be what the question asks about, given the categories the question names. */
export function categoryFits(ins: Pick<CoverageInstrument, 'categories'>, categories: readonly OperationCategory[]): boolean {
  return !ins.categories?.length || !categories.length || ins.categories.some((c) => categories.includes(c));
}

export function coverageMatches(question: string, data: CoverageData): CoverageMatches {
  const q = question.replace(/\s+/g, ' ');
  const categories = questionCategories(q, data);
  const named: CoverageHit[] = [];
  const covered: CoverageHit[] = [];
  const seen = new Set<string>();
  // 1. references written as the documents write them, resolved to the most specific instrument
  const refs = scanReferences(q)
    .map((r) => ({ r, ins: resolveKey(r.key, data.instruments) }))
    .filter((x): x is { r: (typeof x)['r']; ins: CoverageInstrument } => !!x.ins)
    .sort((a, b) => b.r.key.length - a.r.key.length);
  const subjects: CoverageHit[] = [];
  for (const { r, ins } of refs) {
    if (seen.has(ins.id)) continue;
    if (r.subject) {
      // a subject in words is a topic cue, kept for step 3
      if (ins.status === 'absent' && categoryFits(ins, categories) && !subjects.some((h) => h.instrument.id === ins.id))
        subjects.push({ instrument: ins, why: { kind: 'topic', matched: r.text, key: r.key } });
      continue;
    }
    seen.add(ins.id);
    const hit: CoverageHit = { instrument: ins, why: { kind: 'named', matched: r.text, key: r.key } };
    (ins.status === 'absent' ? named : covered).push(hit);
  }
  // 2. names written in the data (GDPR, U-space, "Basic Regulation", ...)
  const { table } = compile(data);
  for (const { ins, named: res } of table) {
    if (seen.has(ins.id)) continue;
    for (const re of res) {
      const m = re.exec(q);
      if (m) {
        seen.add(ins.id);
        (ins.status === 'absent' ? named : covered).push({ instrument: ins, why: { kind: 'named', matched: m[0] } });
        break;
      }
    }
  }
  // 3. subject-matter cues
  const scored: { hit: CoverageHit; n: number; order: number }[] = [];
  table.forEach(({ ins, topic: res }, order) => {
    if (ins.status !== 'absent' || seen.has(ins.id) || !categoryFits(ins, categories)) return;
    const found = res
      .map((re) => re.exec(q))
      .filter((m): m is RegExpExecArray => !!m)
      .map((m) => m[0]);
    const subject = subjects.find((h) => h.instrument.id === ins.id);
    if (subject && !found.some((f) => f.toLowerCase() === subject.why.matched.toLowerCase())) found.unshift(subject.why.matched);
    if (found.length)
      scored.push({
        hit: { instrument: ins, why: { kind: 'topic', matched: found.join(' … '), ...(subject?.why.key ? { key: subject.why.key } : {}) } },
        n: found.length,
        order,
      });
  });
  scored.sort((a, b) => b.n - a.n || a.order - b.order);
  return { named, topic: scored.map((s) => s.hit), covered, categories };
}

/**
 * The referenced-but-absent instrument a question names or is about, or null when it
 * names none, or names only points the corpus covers. A topic match is not reported when
 * the question also names a covered point (it asks about the documents' own content).
 */
export function coverageOf(question: string, data: CoverageData): CoverageHit | null {
  const m = coverageMatches(question, data);
  if (m.named.length) return m.named[0]!;
  if (m.covered.length) return null;
  return m.topic[0] ?? null;
}
