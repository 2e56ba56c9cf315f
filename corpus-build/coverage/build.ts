/**
 * Build the coverage data from the corpus's chunks: scan every chunk for references
 * (src/core/coverage/refs.ts), give each reference to the instrument that claims its
 * key, count mentions and the chunks that hold them, and decide each instrument's
 * status from the AMC/GM headings the corpus itself contains.
 */
import type { Chunk } from '../../src/core/model/chunk.js';
import { resolveKey, scanReferences } from '../../src/core/coverage/refs.js';
import {
  COVERAGE_FORMAT_VERSION,
  type CoverageCategory,
  type CoverageData,
  type CoverageInstrument,
  type CoverageMention,
  type CoverageNotice,
  type CoverageSource,
} from '../../src/core/coverage/types.js';
import type { InstrumentSpec } from './instruments.js';

/** "AMC1 Article 11", "GM1 UAS.SPEC.030(3)(e)", "AMC1bis Article 11": a heading that opens AMC/GM in the corpus. */
const GUIDANCE_HEADING = /^(?:AMC|GM)\d+(?:bis)?\s+(?:to\s+)?((?:Article\s+\d+|UAS\.[A-Z]+(?:-\d\d)?\.\d{3})(?:\(\w{1,4}\))*)/;

export interface CoverageIndexInfo {
  manifestSha256: string;
  chunksSha256: string;
  builtAt: string;
}

/** Reference keys whose AMC/GM is printed in the corpus (from section headings), with the heading. */
export function guidanceKeys(chunks: Pick<Chunk, 'sectionPath'>[]): Map<string, string> {
  const out = new Map<string, string>();
  for (const c of chunks) {
    for (const s of c.sectionPath) {
      const m = GUIDANCE_HEADING.exec(s.replace(/\s+/g, ' '));
      if (!m) continue;
      for (const r of scanReferences(m[1]!)) if (!out.has(r.key)) out.set(r.key, m[0].trim());
    }
  }
  return out;
}

type BuildChunk = Pick<Chunk, 'id' | 'text' | 'sectionPath' | 'docId'> & { pageStart?: number | null };

/** "AMC1 Article 11, Annex I, I.7" from a chunk's section headings: the AMC/GM it belongs to, its annex, its numbered section, the form it is. */
export function whereOf(sectionPath: readonly string[]): string {
  const path = sectionPath.map((s) => s.replace(/\s+/g, ' ').trim());
  const head = path[0] ?? '';
  const parts: string[] = [GUIDANCE_HEADING.exec(head)?.[0].trim() ?? head];
  const annex = path.slice(1).find((s) => /^Annex [A-Z]\b/.test(s));
  if (annex) parts.push(/^Annex [A-Z]\b/.exec(annex)![0]);
  const last = path.length > 1 ? path[path.length - 1]! : '';
  const numbered = /^(?:[A-Z]\.)?\d+(?:\.\d+)*/.exec(last)?.[0];
  if (numbered) parts.push(numbered);
  const form = /\bEASA Form \d+\b/.exec(head)?.[0];
  if (form) parts.push(form);
  return parts.join(', ');
}

/**
 * A notice's sources: the passages of the verbatim documents that match its evidence, in corpus
 * order. Fails when there is none, when a `cited-only` notice names no instrument, or when the notice
 * names an instrument (a citation, not a subject in words) that none of its sources cites.
 */
export function noticeOf(spec: InstrumentSpec, chunks: readonly BuildChunk[], verbatim: (docId: string) => boolean): CoverageNotice | undefined {
  if (!spec.notice) return undefined;
  const { evidence, ...notice } = spec.notice;
  const re = new RegExp(evidence, 'i');
  const hits = chunks.filter((c) => verbatim(c.docId) && re.test(c.text.replace(/\s+/g, ' ')));
  if (!hits.length) throw new Error(`coverage: the notice of ${spec.id} has no source: no passage of a verbatim document matches ${evidence}`);
  const cited = scanReferences(notice.says).filter((r) => !r.subject);
  if (notice.kind === 'cited-only' && !cited.length) throw new Error(`coverage: the cited-only notice of ${spec.id} names no instrument`);
  for (const r of cited) {
    if (!hits.some((c) => scanReferences(c.text).some((x) => x.key === r.key))) {
      throw new Error(`coverage: the notice of ${spec.id} names ${r.text}, which none of its sources cites (${evidence})`);
    }
  }
  const sources: CoverageSource[] = hits.map((c) => ({ chunk: c.id, where: whereOf(c.sectionPath), page: c.pageStart ?? null }));
  return { ...notice, sources };
}

const claims = (spec: InstrumentSpec, key: string): boolean => resolveKeyIn(key, [spec]) !== null;
const resolveKeyIn = (key: string, specs: InstrumentSpec[]): InstrumentSpec | null => resolveKey(key, specs);

export interface BuildOptions {
  /** How questions name the categories of operation (corpus-build/coverage/instruments.ts CATEGORIES). */
  categories?: CoverageCategory[];
  /** Whether a document is verbatim (the authoritative text): only its passages are a notice's sources. Default: every document. */
  verbatim?: (docId: string) => boolean;
}

export function buildCoverage(chunks: BuildChunk[], specs: InstrumentSpec[], index: CoverageIndexInfo, options: BuildOptions = {}): CoverageData {
  const verbatim = options.verbatim ?? (() => true);
  const categories = options.categories ?? [];
  const known = new Set(categories.map((c) => c.id));
  for (const c of categories) for (const re of c.cues) new RegExp(re, 'i');
  const ids = new Set<string>();
  for (const s of specs) {
    if (ids.has(s.id)) throw new Error(`coverage: instrument id ${s.id} appears twice in corpus-build/coverage/instruments.ts`);
    ids.add(s.id);
    for (const c of s.cues) new RegExp(c.re, 'i'); // a bad pattern fails the build, not the app
    for (const c of s.categories ?? []) {
      if (!known.has(c)) throw new Error(`coverage: instrument ${s.id} has category ${c}, which CATEGORIES does not define`);
    }
  }
  type Acc = { count: number; forms: Map<string, number>; chunks: Set<string> };
  const byKey = new Map<string, Acc>();
  for (const c of chunks) {
    for (const r of scanReferences(c.text)) {
      const a = byKey.get(r.key) ?? { count: 0, forms: new Map(), chunks: new Set() };
      a.count++;
      a.forms.set(r.text, (a.forms.get(r.text) ?? 0) + 1);
      a.chunks.add(c.id);
      byKey.set(r.key, a);
    }
  }
  const mention = (key: string, a: Acc): CoverageMention => ({
    key,
    asWritten: [...a.forms.entries()].sort((x, y) => y[1] - x[1] || (x[0] < y[0] ? -1 : 1))[0]![0],
    count: a.count,
  });
  const guidance = guidanceKeys(chunks);
  const owner = new Map<string, string>();
  const unclaimed: CoverageMention[] = [];
  for (const [key, a] of byKey) {
    const spec = resolveKeyIn(key, specs);
    if (spec) owner.set(key, spec.id);
    else unclaimed.push(mention(key, a));
  }
  const instruments: CoverageInstrument[] = specs.map((s) => {
    const keys = [...byKey.keys()].filter((k) => owner.get(k) === s.id).sort();
    const chunkIds = new Set<string>();
    let count = 0;
    for (const k of keys) {
      const a = byKey.get(k)!;
      count += a.count;
      a.chunks.forEach((id) => chunkIds.add(id));
    }
    const heads = [...guidance.entries()].filter(([k]) => resolveKeyIn(k, specs)?.id === s.id && claims(s, k)).map(([, h]) => h);
    const status = s.statusOverride?.status ?? (heads.length ? 'guidance-present' : 'absent');
    const statusReason = s.statusOverride?.reason ?? (heads.length ? `AMC/GM in the corpus: ${[...new Set(heads)].join('; ')}` : undefined);
    const order = new Map(chunks.map((c, i) => [c.id, i]));
    const notice = noticeOf(s, chunks, verbatim);
    return {
      id: s.id,
      label: s.label,
      location: s.location,
      description: s.description,
      status,
      ...(statusReason ? { statusReason } : {}),
      ...(s.categories ? { categories: s.categories } : {}),
      ...(notice ? { notice } : {}),
      keys: s.keys,
      cues: s.cues,
      mentions: {
        count,
        byKey: keys.map((k) => mention(k, byKey.get(k)!)),
        chunks: [...chunkIds].sort((x, y) => order.get(x)! - order.get(y)!),
      },
    };
  });
  return {
    formatVersion: COVERAGE_FORMAT_VERSION,
    generator: 'corpus-build/cli/coverage-build.ts (npm run coverage:build)',
    index: { ...index, chunkCount: chunks.length },
    sources: [...new Set(chunks.map((c) => c.docId))],
    categories,
    instruments,
    unclaimed: unclaimed.sort((x, y) => y.count - x.count),
  };
}
