/** The base of the retrieval runtime's errors (in process and behind the worker). */
import { SkyCiteError } from '../core/errors.js';

/**
 * Where a problem with the app's own files is: the host's file (the server delivered it so) or this
 * device's stored copy. It crosses the worker with the error (worker-serve.ts), so the page can say
 * which without reading the message.
 */
export type ProblemSource = 'host' | 'device';

export class RuntimeError extends SkyCiteError {
  override name = 'RuntimeError';
  /** Where the damaged or missing file is, when known. */
  source: ProblemSource | null = null;
}

/** Where the problem behind an error is (the host's file or this device's copy), or null when unknown. */
export function problemSource(e: unknown): ProblemSource | null {
  return e instanceof RuntimeError ? e.source : null;
}

/**
 * The built-in index could not be used, and where the file at fault is: the host's file (first visit,
 * or a file the server delivers changed) or this device's stored copy. The cause's message is kept
 * (for developers); the page words the problem by its source.
 */
export class IndexSourceError extends RuntimeError {
  override name = 'IndexSourceError';
  constructor(source: ProblemSource, cause: Error) {
    super(cause.message, { cause });
    this.source = source;
  }
}
