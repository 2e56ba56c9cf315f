/**
 * The page-aware document model every loader produces. Chunkers consume it.
 */
export interface SourceLine {
  /** The line as printed, trailing whitespace removed. */
  text: string;
  /** 1-based page number the line belongs to (null when the source has no pages). */
  page: number | null;
  /** 1-based line number in the source file (or running line number for PDFs). */
  lineNo: number;
  /** Set when the source marks the line as a heading of this level (1 = top; a Markdown "#", "##" …); absent when it does not say. */
  heading?: number;
}

export interface PageAwareDocument {
  sourceId: string;
  /** Number of pages the source declares (or has), null when unpaged. */
  pageCount: number | null;
  /** Content lines in reading order, headers and footers removed. */
  lines: SourceLine[];
  /** Diagnostics from loading (stripped header/footer lines, unreadable pages...). */
  diagnostics: LoadDiagnostics;
}

export interface LoadDiagnostics {
  strippedLines: number;
  /** Characters of the source that are not header/footer text (whitespace excluded). */
  contentChars: number;
  /** Pages that could not be read (PDF), by number, with the reason. */
  unreadablePages: { page: number; reason: string }[];
  warnings: string[];
}
