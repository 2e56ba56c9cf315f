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
  override readonly code = 'index-source';
  constructor(source: ProblemSource, cause: Error) {
    super(cause.message, { cause });
    this.source = source;
  }
}

/** A runtime method was called before init() finished. */
export class RuntimeNotReadyError extends RuntimeError {
  override name = 'RuntimeNotReadyError';
  override readonly code = 'runtime-not-ready';
  constructor() {
    super('The retrieval runtime is not initialised yet: call init() first (the app does this on start).');
  }
}

/** A question waited for the built-in index, which could not be loaded: it was not sent. */
export class IndexUnavailableError extends RuntimeError {
  override name = 'IndexUnavailableError';
  override readonly code = 'index-unavailable';
}

/** The retrieval worker itself failed (an uncaught error, or its script could not load): every request waiting on it fails with this. */
export class RuntimeWorkerError extends RuntimeError {
  override name = 'RuntimeWorkerError';
  override readonly code = 'runtime-worker-crashed';
  constructor(detail: string) {
    super(`The retrieval worker failed: ${detail || 'unknown error'}. Reload the app.`);
  }
}
