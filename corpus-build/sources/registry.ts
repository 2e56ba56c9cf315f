/**
 * The source registry: one typed entry per authoritative document.
 *
 * Resolution order for every file (see resolve.ts): `$CORPUS_DIR/<id>/<file>`
 * (the layout of ../shared/corpus), then the local download cache
 * (`.cache/sources/<id>/<file>`), then the publisher's official URL. Source text
 * never enters git.
 */
export type InputFormat = 'easa-layout-text' | 'pdf' | 'skysafe-curated-json' | 'qa-rules-json';

export interface SourceFile {
  /** File name inside `$CORPUS_DIR/<id>/`. */
  name: string;
  /** Expected SHA-256 (hex) of the file's bytes; the build refuses any other content. */
  sha256: string;
}

export interface SourceEntry {
  id: string;
  title: string;
  publisher: string;
  /** Legal instrument, e.g. "Annex to ED Decision 2025/018/R". */
  instrument: string;
  /** Edition label as printed, plus date (ISO). */
  edition: string;
  date: string;
  /** 'EU' or an ISO 3166-1 alpha-2 country code. */
  jurisdiction: string;
  /** BCP 47 language tag. */
  language: string;
  /** Official download address, or null when the publisher offers none. */
  officialUrl: string | null;
  /** Format of the file at officialUrl (may differ from the mirrored text). */
  officialFormat: InputFormat | null;
  /** Expected SHA-256 of the official download, when known. */
  officialSha256: string | null;
  /** The file the loader reads, and its format. */
  file: SourceFile;
  format: InputFormat;
  /** True when the text is the regulation's own wording (not a restatement). */
  verbatim: boolean;
  /** Reuse / copyright notice to show with every citation and export. */
  reuseNotice: string;
  /** Caveat shown to users about this edition (amendment markup, legal reference...). */
  editionNote: string;
}

export const SOURCES: readonly SourceEntry[] = [
  {
    id: 'easa-amc-gm-2019-947',
    title: 'AMC & GM to Regulation (EU) 2019/947 — Issue 1, Amendment 3',
    publisher: 'European Union Aviation Safety Agency (EASA)',
    instrument: 'Annex to ED Decision 2025/018/R',
    edition: 'Issue 1, Amendment 3 (renamed Amendment 4 by the corrigendum of 12 December 2025); SORA 2.5, edition September 2025',
    date: '2025-09-15',
    jurisdiction: 'EU',
    language: 'en',
    officialUrl: 'https://www.easa.europa.eu/en/downloads/142980/en',
    officialFormat: 'pdf',
    officialSha256: null,
    file: { name: 'source.txt', sha256: 'd6c9a2ae17038780545d15d96631228da93a2be07e5277ecfa4e5d2b2d11d7db' },
    format: 'easa-layout-text',
    verbatim: true,
    reuseNotice: '© European Union Aviation Safety Agency. Reproduced with acknowledgement of the source, as EASA permits.',
    editionNote:
      'Amendment document, not a consolidated text: unchanged passages are elided as […] and struck-through and ' +
      'inserted words are merged in the text (e.g. "wWhen"). The consolidated text is the reference for legal purposes.',
  },
  {
    id: 'skysafe-sora-curated',
    title: 'SKYSAFE curated SORA chunks (reference implementation corpus)',
    publisher: 'ZHAW School of Engineering (SKYSAFE project)',
    instrument: 'Curated corpus published with the SKYSAFE reference implementation',
    edition: 'SORA 2.0-era AMC1 Article 11 and Annexes B–E; PDRA-S01, S02, G01, G02, G03 (narrative restatements)',
    date: '2025-01-01',
    jurisdiction: 'EU',
    language: 'en',
    officialUrl: null,
    officialFormat: null,
    officialSha256: null,
    file: { name: 'SORA_chunks_cleaned_manual.json', sha256: 'cd64492497184bf2e135cbd9d0ed3ba736dd8e9703a8cd3ef2c6794425180927' },
    format: 'skysafe-curated-json',
    verbatim: false,
    reuseNotice: 'Curated by the SKYSAFE project (ZHAW); restates EASA material, © EASA for the underlying text.',
    editionNote: "Narrative restatement of an older SORA edition (2.0), not the regulation's wording: check the EASA text before relying on it.",
  },
];

export function sourceById(id: string): SourceEntry {
  const s = SOURCES.find((x) => x.id === id);
  if (!s) throw new Error(`Unknown source id "${id}". Known: ${SOURCES.map((x) => x.id).join(', ')}.`);
  return s;
}
