/**
 * The indexed retrieval representation r = title ‖ title ‖ text (SKYSAFE §2.4,
 * Eq. 3), in the reference implementation's exact form "title title. text".
 * A cleaned copy of the text feeds it: whitespace collapsed and the amendment
 * markup merged by the extraction ("wWhen" → "When") repaired; the chunk's own
 * text stays verbatim.
 */
import { collapseWhitespace } from '../../text/sentences.js';

export function cleanForRetrieval(text: string): string {
  return collapseWhitespace(text)
    .replace(/\b([a-z])([A-Z][a-z]+)/g, (m, a: string, rest: string) => (rest[0]!.toLowerCase() === a ? rest : m))
    .replace(/\b([A-Z])([a-z]{2,})/g, (m, a: string, rest: string) => (rest[0] === a.toLowerCase() ? rest : m));
}

export function retrievalString(title: string, text: string, clean = true): string {
  const t = collapseWhitespace(title);
  return `${t} ${t}. ${clean ? cleanForRetrieval(text) : text}`;
}
