/**
 * Reading the coverage data (coverage.json) and checking that it belongs to the
 * static index in use. Pure: the caller passes the parsed JSON and the index's hashes.
 */
import { SkyCiteError } from '../errors.js';
import { COVERAGE_FORMAT_VERSION, type CoverageData, type CoverageInstrument } from './types.js';

export class CoverageDataError extends SkyCiteError {
  override name = 'CoverageDataError';
  override readonly code = 'coverage-data';
}

const REBUILD = 'Rebuild it with `npm run coverage:build` (after `npm run index`).';
const STATUSES = new Set(['absent', 'guidance-present', 'quoted']);
const CATEGORIES = new Set(['open', 'specific', 'certified']);
const NOTICES = new Set(['not-regulated', 'cited-only']);

function checkPattern(re: unknown, where: string): void {
  try {
    new RegExp(re as string, 'i');
  } catch {
    throw new CoverageDataError(`${where} has an invalid cue pattern ${String(re)}. ${REBUILD}`);
  }
}

function checkInstrument(x: unknown, i: number): CoverageInstrument {
  const o = x as Partial<CoverageInstrument> | null;
  const where = `coverage.json instruments[${i}]`;
  if (!o || typeof o !== 'object') throw new CoverageDataError(`${where} is not an object. ${REBUILD}`);
  for (const f of ['id', 'label', 'location', 'description'] as const) {
    if (typeof o[f] !== 'string' || !o[f]) throw new CoverageDataError(`${where} has no ${f}. ${REBUILD}`);
  }
  if (!STATUSES.has(o.status as string)) throw new CoverageDataError(`${where} (${o.id}) has an unknown status ${String(o.status)}. ${REBUILD}`);
  if (!Array.isArray(o.keys) || !Array.isArray(o.cues) || !o.mentions || !Array.isArray(o.mentions.chunks)) {
    throw new CoverageDataError(`${where} (${o.id}) lacks keys, cues or mentions. ${REBUILD}`);
  }
  for (const c of o.cues) checkPattern(c.re, `${where} (${o.id})`);
  if (o.categories !== undefined && (!Array.isArray(o.categories) || !o.categories.every((c) => CATEGORIES.has(c)))) {
    throw new CoverageDataError(`${where} (${o.id}) has unknown categories ${JSON.stringify(o.categories)}. ${REBUILD}`);
  }
  const n = o.notice;
  if (n !== undefined) {
    if (!n || !NOTICES.has(n.kind) || typeof n.subject !== 'string' || typeof n.says !== 'string' || !Array.isArray(n.sources) || !n.sources.length) {
      throw new CoverageDataError(`${where} (${o.id}) has a notice without kind, subject, text or sources. ${REBUILD}`);
    }
  }
  return o as CoverageInstrument;
}

/** Validate parsed coverage JSON (shape and format version); throws CoverageDataError naming the problem. */
export function parseCoverage(json: unknown): CoverageData {
  const d = (typeof json === 'string' ? safeParse(json) : json) as Partial<CoverageData> | null;
  if (!d || typeof d !== 'object') throw new CoverageDataError(`coverage.json is not an object. ${REBUILD}`);
  if (d.formatVersion !== COVERAGE_FORMAT_VERSION) {
    throw new CoverageDataError(`coverage.json has format version ${String(d.formatVersion)}; this code reads ${COVERAGE_FORMAT_VERSION}. ${REBUILD}`);
  }
  if (!d.index || typeof d.index.manifestSha256 !== 'string' || typeof d.index.chunksSha256 !== 'string') {
    throw new CoverageDataError(`coverage.json does not say which index it was built from. ${REBUILD}`);
  }
  if (!Array.isArray(d.instruments)) throw new CoverageDataError(`coverage.json has no instrument list. ${REBUILD}`);
  if (!Array.isArray(d.categories) || !d.categories.every((c) => CATEGORIES.has(c?.id) && Array.isArray(c.cues))) {
    throw new CoverageDataError(`coverage.json has no valid category list. ${REBUILD}`);
  }
  d.categories.forEach((c) => c.cues.forEach((re) => checkPattern(re, `coverage.json category ${c.id}`)));
  const instruments = d.instruments.map(checkInstrument);
  const ids = new Set<string>();
  for (const i of instruments) {
    if (ids.has(i.id)) throw new CoverageDataError(`coverage.json lists instrument ${i.id} twice. ${REBUILD}`);
    ids.add(i.id);
  }
  return { ...(d as CoverageData), instruments };
}

function safeParse(s: string): unknown {
  try {
    return JSON.parse(s);
  } catch (e) {
    throw new CoverageDataError(`coverage.json is not valid JSON (${(e as Error).message}). ${REBUILD}`);
  }
}

/**
 * Whether the coverage data was built from this index: `current` (same manifest),
 * `same-chunks` (the index was rebuilt but its chunks are byte-identical, so every count
 * and chunk id still holds), or `stale` (the chunks changed: counts and chunk ids may be wrong).
 */
export function coverageBinding(data: CoverageData, index: { manifestSha256: string; chunksSha256?: string }): 'current' | 'same-chunks' | 'stale' {
  if (data.index.manifestSha256 === index.manifestSha256) return 'current';
  if (index.chunksSha256 && data.index.chunksSha256 === index.chunksSha256) return 'same-chunks';
  return 'stale';
}

/** The instruments whose rules the corpus does not hold (the ones "not in these documents" can name). */
export const absentInstruments = (data: CoverageData): CoverageInstrument[] => data.instruments.filter((i) => i.status === 'absent');
