/**
 * The host globals src/core uses, declared for its own type check (tsconfig.core.json: ES2022 lib,
 * no DOM lib, no Node types). Core runs in the browser (page and workers) and in Node (CLIs,
 * evaluations); both provide these with the same meaning, so declaring just the members core
 * calls keeps it honest: a new use of `document`, `window`, `Buffer`, `process`… fails the check
 * instead of compiling against one host's types.
 *
 * Only the members used today; add one here when core needs it and both hosts have it. The app's
 * tsconfig.json excludes this file (it has the DOM lib and Node types, which declare these fully).
 */

/** Cancellation of model calls and assessments (generation.ts, indicators/run.ts, …). */
interface AbortSignal {
  readonly aborted: boolean;
  readonly reason: unknown;
  addEventListener(type: 'abort', listener: () => void, options?: { once?: boolean }): void;
  removeEventListener(type: 'abort', listener: () => void): void;
}

/** The standard 'AbortError' an aborted assessment throws (indicators/run.ts). */
declare class DOMException extends Error {
  constructor(message?: string, name?: string);
}

/** Back-off between retries (llm/retry.ts). The handle is opaque: a number in browsers, an object in Node. */
declare function setTimeout(handler: () => void, ms?: number): unknown;
declare function clearTimeout(handle: unknown): void;

/** Copies in the one configuration merge (config/merge.ts). */
declare function structuredClone<T>(value: T): T;

/** Reading the index's string tables (index/load.ts). */
declare class TextDecoder {
  constructor(label?: string);
  decode(input?: Uint8Array): string;
}

/** Stage timings in the retrieval trace (retrieval/engine.ts). */
declare var performance: { now(): number };

/** Index integrity hashes (index/manifest.ts). */
declare var crypto: {
  readonly subtle: { digest(algorithm: 'SHA-256', data: Uint8Array<ArrayBuffer>): Promise<ArrayBuffer> };
};
