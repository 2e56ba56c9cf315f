/**
 * What the cross-encoder reads for a candidate: the chunk's title and its passage
 * window that best matches the query (≤ 400 characters, the same text the window
 * was embedded from at build time), or the whole retrieval string. Shared by the
 * engine, the training-data tool and the evaluation, so the reranker is trained on
 * exactly what it sees at query time.
 */
import type { LoadedIndex } from '../index/load.js';
import { collapseWhitespace } from '../text/sentences.js';

export type RerankInput = 'window' | 'passage';

/** The text a window was embedded from: "title. window text". */
export function windowText(index: Pick<LoadedIndex, 'chunks' | 'windows'>, window: number): string {
  const c = index.chunks[index.windows.row[window]!]!;
  return `${c.title}. ${collapseWhitespace(c.text.slice(index.windows.start[window]!, index.windows.end[window]!))}`;
}

export function rerankText(index: Pick<LoadedIndex, 'chunks' | 'windows'>, row: number, bestWindow: number, input: RerankInput): string {
  if (input === 'passage' || bestWindow < 0) return index.chunks[row]!.retrieval;
  return windowText(index, bestWindow);
}
