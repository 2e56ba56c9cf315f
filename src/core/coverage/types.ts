/**
 * Coverage data: the instruments and points the corpus references without containing
 * them (src/core/coverage/coverage.json, written by `npm run coverage:build`).
 */

export const COVERAGE_FORMAT_VERSION = 1;

/**
 * - `absent`: neither the rule nor any AMC/GM to it is in the corpus;
 * - `guidance-present`: the rule's text is not here but AMC/GM to it is (the corpus answers);
 * - `quoted`: the corpus reproduces the rule's text where it matters (e.g. the Article 2
 *   definitions in the SORA glossary).
 */
export type CoverageStatus = 'absent' | 'guidance-present' | 'quoted';

export interface CoverageCue {
  /** Regular-expression source, matched case-insensitively against the question. */
  re: string;
  /** `named`: the question names the instrument; `topic`: it asks about its subject matter. */
  kind: 'named' | 'topic';
}

export interface CoverageMention {
  /** The normalised reference key (src/core/coverage/refs.ts). */
  key: string;
  /** How the corpus writes it (the most frequent form). */
  asWritten: string;
  count: number;
}

export interface CoverageInstrument {
  id: string;
  label: string;
  /** Where the rule lives, e.g. "Regulation (EU) 2019/947, Part A of the Annex (UAS.OPEN)". */
  location: string;
  /** What it covers, written for this file (no corpus text). */
  description: string;
  status: CoverageStatus;
  /** Why the status is not `absent` (the AMC/GM headings found, or the override's reason). */
  statusReason?: string;
  /** Reference-key prefixes this instrument claims (longest prefix wins). */
  keys: string[];
  /** Question cues (names and subject matter), written for this file. */
  cues: CoverageCue[];
  /** Corpus mentions: total, per key, and the chunk ids that mention it. */
  mentions: { count: number; byKey: CoverageMention[]; chunks: string[] };
}

export interface CoverageData {
  formatVersion: number;
  generator: string;
  /** The static index the mentions were counted in. */
  index: { manifestSha256: string; chunksSha256: string; chunkCount: number; builtAt: string };
  /** Sources the counts cover. */
  sources: string[];
  instruments: CoverageInstrument[];
  /** References found in the corpus that no instrument claims (should be empty). */
  unclaimed: CoverageMention[];
}

/** Why coverageOf named an instrument. */
export interface CoverageWhy {
  /** `similar`: no name or cue matched; the question's embedding is closest to this instrument's description. */
  kind: 'named' | 'topic' | 'similar';
  /** The question's words that matched. */
  matched: string;
  /** The reference key when the question names a point (e.g. "reg:2019/947:art:14"). */
  key?: string;
}

export interface CoverageHit {
  instrument: CoverageInstrument;
  why: CoverageWhy;
}
