/**
 * What an answer card says about merged amendment mark-up in the passage text it shows (issue 35
 * item 4), as the passage viewer does: the EASA file is an amendment document, whose extracted text
 * runs struck-through and inserted words together ("wWhen", "applicantUAS operator", "should
 * receiveundergo"). Where the case marks a merge, the card names the words as printed and as read
 * (core/text/units.ts amendmentMerges); where it cannot be located (a passage flagged at indexing,
 * Chunk.amendmentArtefacts, or any passage of an amendment document), the card says that the text
 * may run such words together.
 */
import type { Chunk } from '../core/model/chunk';
import { amendmentMerges } from '../core/text/units';

export interface AmendmentMerge {
  /** The words as printed ("applicantUAS"). */
  printed: string;
  /** As the answer reads them ("UAS"). */
  read: string;
}

export interface AmendmentFlag {
  /** The merges located in the text shown (none: the text may hold merges the case does not mark). */
  merges: AmendmentMerge[];
}

/** A source whose edition note says that it is an amendment document with merged mark-up (the manifest's `editionNote`). */
export const isAmendmentSource = (source: { editionNote?: string | null } | null | undefined): boolean =>
  /struck-through and inserted words/i.test(source?.editionNote ?? '');

/**
 * The card's flag for a passage, or null when it needs none. `ranges`: the parts of the text the card
 * shows (offsets into `chunk.text`; the whole text when absent).
 */
export function amendmentFlag(
  chunk: Pick<Chunk, 'text'> & Partial<Pick<Chunk, 'amendmentArtefacts'>>,
  options: { ranges?: readonly { start: number; end: number }[] | null; amendmentSource?: boolean } = {},
): AmendmentFlag | null {
  // only where the text is known to come from an amendment document: elsewhere "camelCase" is no merge
  if (!chunk.amendmentArtefacts && !options.amendmentSource) return null;
  const shown = options.ranges;
  const located = amendmentMerges(chunk.text).filter((m) => !shown || shown.some((r) => m.start < r.end && r.start < m.end));
  const merges: AmendmentMerge[] = [];
  for (const m of located) if (!merges.some((x) => x.printed === m.printed)) merges.push({ printed: m.printed, read: m.read });
  return { merges };
}

/** The card's words for a flag. */
export function amendmentLine(flag: AmendmentFlag): string {
  if (!flag.merges.length)
    return 'From an amendment document: the printed text can run struck-through and inserted words together (as in “wWhen”). The consolidated text is the reference.';
  const list = flag.merges.map((m) => `“${m.printed}” (read as “${m.read}”)`).join(', ');
  return `The printed text merges struck-through and inserted words here: ${list}. The consolidated text is the reference.`;
}
