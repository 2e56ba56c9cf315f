/**
 * The reading sequence the Library asked for ("Read" on a section): the passage dialog steps
 * through it while it holds the open passage, and through the passage's document otherwise.
 */
import type { ReadingSequence } from './reading';

export const readingState: { sequence: ReadingSequence | null } = $state({ sequence: null });
