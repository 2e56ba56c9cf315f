/**
 * The unit of retrieval and citation. Shared by the build (Node), the CLI, the
 * evaluation harness and the browser worker: keep it plain JSON.
 */
export type Jurisdiction = string; // 'EU' or an ISO 3166-1 alpha-2 country code

export type ChunkKind =
  | 'amc-gm-entry' // an AMC or GM entry (or its intro text)
  | 'section' // a SORA section / step (S.x.y) or annex section (A.x, B.x, E.x)
  | 'oso' // one operational safety objective (OSO #xx)
  | 'table' // a table kept whole with its caption as printed and its notes
  | 'glossary' // one glossary entry (Annex I)
  | 'front-matter' // cover, abbreviations and other material before the first entry
  | 'curated' // a pre-chunked item of the SKYSAFE curated corpus
  | 'qa' // one question x country of a Q&A rules file
  | 'pdf-section'; // a paragraph group of a generic PDF

/** A link from one chunk to another (resolved cross-reference or curated edge). */
export interface ChunkLink {
  /** Text that produced the link as printed, e.g. "Table 5", "Annex B"; or "edge" for curated edges. */
  label: string;
  /** Target chunk id, or null when the reference could not be resolved. */
  target: string | null;
}

export interface Chunk {
  /** Stable hierarchical id, e.g. "easa-amc-gm-2019-947/amc1-art11/s4.2/table-1". */
  id: string;
  /** Source (document) id from the registry. */
  docId: string;
  /**
   * The logical document of the source this chunk belongs to (src/core/ingest/documents.ts):
   * e.g. "easa-amc-gm-2019-947/art11/annex-e". Set by the build; every chunk is in exactly one.
   */
  documentId?: string;
  kind: ChunkKind;
  /** Title as printed (whitespace collapsed). */
  title: string;
  /** Titles of the enclosing units, outermost first, ending with this chunk's own title. */
  sectionPath: string[];
  /** First and last page (1-based, as printed in the footers); null for sources without pages. */
  pageStart: number | null;
  pageEnd: number | null;
  /** Clean text as printed: no running headers or footers; table layout kept. */
  text: string;
  /** Deterministic extractive summary (no LLM). */
  summary: string;
  /** Deterministic keywords (lower-case). */
  keywords: string[];
  jurisdiction: Jurisdiction;
  /** Edition label of the source document. */
  edition: string;
  language: string;
  /** Resolved (or unresolved) cross-references and curated edges. */
  links: ChunkLink[];
  /** The string that was embedded and indexed: title ‖ title ‖ text (SKYSAFE §2.4). */
  retrieval: string;
  /** When a long unit was split: 1-based part number and count. */
  part?: { index: number; of: number };
  /** Figure captions printed in this chunk whose figure is not in the text corpus. */
  missingFigures?: string[];
  /** Numbers of the footnotes printed on the chunk's pages: a number glued to a word or value that ends with one is a footnote reference (core/text/units.ts). */
  footnoteMarkers?: string[];
  /** True when the text shows amendment-markup artefacts (struck-through + inserted words merged). */
  amendmentArtefacts?: boolean;
  /** Extra source-specific fields kept from the input (curated fields, Q&A links...). */
  extra?: Record<string, unknown>;
}
