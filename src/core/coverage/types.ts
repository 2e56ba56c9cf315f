/**
 * Coverage data: the instruments and points the corpus references without containing
 * them (src/core/coverage/coverage.json, written by `npm run coverage:build`).
 */

export const COVERAGE_FORMAT_VERSION = 2;

/**
 * - `absent`: neither the rule nor any AMC/GM to it is in the corpus;
 * - `guidance-present`: the rule's text is not here but AMC/GM to it is (the corpus answers);
 * - `quoted`: the corpus reproduces the rule's text where it matters (e.g. the Article 2
 *   definitions in the SORA glossary).
 */
export type CoverageStatus = 'absent' | 'guidance-present' | 'quoted';

/** The categories of UAS operation (Article 3 of Regulation (EU) 2019/947). */
export type OperationCategory = 'open' | 'specific' | 'certified';

/** How a question says which category it is about (written in corpus-build/coverage/instruments.ts). */
export interface CoverageCategory {
  id: OperationCategory;
  label: string;
  /** Regular-expression sources, matched case-insensitively: a question matching one is about this category. */
  cues: string[];
}

/** A passage of the documents that a notice cites as its source. */
export interface CoverageSource {
  chunk: string;
  /** Where it is, for the reader: "AMC1 Article 11, S.1.3" (from the chunk's section headings). */
  where: string;
  page: number | null;
}

/**
 * The notice for a subject the documents do not cover: `not-regulated` (they set no rule on it and
 * leave it to other rules, naming none), `cited-only` (they cite the instrument that holds it).
 */
export interface CoverageNotice {
  kind: 'not-regulated' | 'cited-only';
  /** The subject in words: "insurance", "geographical zones, including those around airports". */
  subject: string;
  /** What the documents do about it, written for the coverage data (no corpus text); names an instrument only when `sources` cite it. */
  says: string;
  /** The documents' passages that say it (verbatim documents only), in corpus order; the build fails when there is none. */
  sources: CoverageSource[];
}

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
  /**
   * The categories of operation whose rules it holds (absent: not bound to one). A question that
   * names another category (the specific category, an operational authorisation, the SORA, a PDRA …
   * is not an 'open' category question) is not about it unless it names the instrument itself.
   */
  categories?: OperationCategory[];
  /** For a subject the documents do not cover: the notice, with its sources. */
  notice?: CoverageNotice;
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
  /** How a question names a category of operation. */
  categories: CoverageCategory[];
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
