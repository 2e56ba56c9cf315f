/**
 * The root of SkyCite's typed errors, their one code scheme, and the one codec that carries them
 * across a worker boundary.
 *
 * Each layer has one base under SkyCiteError — core's model taxonomy (core/llm/errors.ts
 * AnswerError), StorageError (src/storage), RuntimeError (src/runtime) — and every error says what
 * happened and what to do. Every class has a unique name equal to its class name and a `code`
 * from ErrorCode (tests/lint/error-classes.test.ts). Code branches on the class (`instanceof`) or
 * the code, never on the name string or the message (tools/eslint/typed-errors.js).
 *
 * Across a worker (src/runtime/worker-serve.ts and client.ts, src/llm/worker-host.ts and client.ts)
 * an error travels as a WireError — its class's name, its code, its message, its own data fields
 * and its cause — and is rebuilt on the other side as an instance of the same class
 * (`decodeError` with that side's ErrorClasses), so `instanceof`, `code` and every field survive.
 */

/** The language-model layer's codes (core/llm/errors.ts, AnswerError). */
export type ModelErrorCode =
  | 'model-download'
  | 'model-files-corrupt'
  | 'gpu-memory'
  | 'storage-quota'
  | 'model-cache-unavailable'
  | 'webgpu-unavailable'
  | 'offline-uncached'
  | 'index-verification'
  | 'context-too-long'
  | 'model-not-loaded'
  | 'model-too-large'
  | 'model-import'
  | 'model-unknown'
  | 'worker-crashed'
  | 'generation';

/**
 * What went wrong, in one word a program can branch on: one scheme for every layer. A code names a
 * meaning, not a class: two classes that mean the same (the browser's storage is full, an import was
 * cancelled) share it.
 */
export type ErrorCode =
  | ModelErrorCode
  /** A failure without a code of its own (a base class used as is). */
  | 'internal'
  // core
  | 'index-integrity'
  | 'model-load'
  | 'reranker-load'
  | 'coverage-data'
  | 'document-split'
  | 'user-document'
  | 'question-rejected'
  | 'operation-input'
  | 'indicator-output'
  | 'eval-input'
  | 'question-format'
  | 'route-model'
  | 'sora-table'
  | 'retrieval-config'
  | 'requirements-draft'
  // runtime
  | 'index-source'
  | 'index-unavailable'
  | 'index-fetch'
  | 'runtime-not-ready'
  | 'runtime-worker-crashed'
  | 'model-integrity'
  | 'retrieval-model'
  | 'user-document-not-found'
  | 'user-document-vectors'
  | 'user-document-too-large'
  | 'import-cancelled'
  // storage (also 'storage-quota')
  | 'storage-unavailable'
  | 'storage-operation'
  | 'user-document-id-taken'
  | 'stored-document-missing'
  | 'settings-invalid'
  | 'audit-import'
  // the app: your documents' files, the model catalogue, the offline copy
  | 'file-read'
  | 'file-too-large'
  | 'models-manifest'
  | 'model-base-url'
  | 'update-pending'
  | 'offline-copy';

export class SkyCiteError extends Error {
  override name = 'SkyCiteError';
  /** What went wrong (ErrorCode); each class sets its own. */
  readonly code: ErrorCode = 'internal';
}

// ---------------------------------------------------------------------------------------------
// across a worker

/** Data that survives postMessage and JSON alike. */
export type WireValue = null | boolean | number | string | WireValue[] | { [key: string]: WireValue };

/** An error as it crosses a worker boundary. */
export interface WireError {
  /** The class's name (unique, equal to the class name: tests/lint/error-classes.test.ts). */
  name: string;
  /** The SkyCiteError code, or null for another error (a TypeError, a DOMException …). */
  code: ErrorCode | null;
  message: string;
  /** The error's own data fields (source, summary, action, retryable, detail, status, …). */
  fields: { [key: string]: WireValue };
  /** A DOMException (rebuilt as one, with its name). */
  dom?: true;
  cause?: WireError;
}

/** Classes an error can be rebuilt as, by class name: `errorClasses({ IndexFetchError, … })` (the keys survive minification). */
export type ErrorClasses = ReadonlyMap<string, abstract new (...args: never[]) => Error>;

export function errorClasses(classes: Record<string, abstract new (...args: never[]) => Error>): ErrorClasses {
  return new Map(Object.entries(classes));
}

const BUILT_IN: Record<string, new (message?: string) => Error> = {
  Error,
  TypeError,
  RangeError,
  SyntaxError,
  ReferenceError,
  EvalError,
  URIError,
};

function wireValue(v: unknown, depth: number): WireValue | undefined {
  if (v === null || typeof v === 'boolean' || typeof v === 'string') return v;
  if (typeof v === 'number') return Number.isFinite(v) ? v : null;
  if (depth > 4 || typeof v !== 'object') return undefined;
  if (Array.isArray(v)) return v.map((x) => wireValue(x, depth + 1) ?? null);
  if (Object.getPrototypeOf(v) !== Object.prototype) return undefined;
  const out: { [key: string]: WireValue } = {};
  for (const [k, x] of Object.entries(v)) {
    const w = wireValue(x, depth + 1);
    if (w !== undefined) out[k] = w;
  }
  return out;
}

const isDomException = (e: unknown): boolean => typeof DOMException !== 'undefined' && e instanceof DOMException;

/** Anything thrown, as it crosses a worker: an Error with its class, code and fields; anything else as a plain Error's message. */
export function encodeError(e: unknown, depth = 0): WireError {
  if (!(e instanceof Error) && !isDomException(e)) {
    const message = typeof e === 'object' && e !== null && 'message' in e ? String((e as { message: unknown }).message) : String(e);
    return { name: 'Error', code: null, message, fields: {} };
  }
  const err = e as Error;
  const fields: { [key: string]: WireValue } = {};
  for (const [k, v] of Object.entries(err)) {
    if (k === 'name' || k === 'code' || k === 'message') continue;
    const w = wireValue(v, 0);
    if (w !== undefined) fields[k] = w;
  }
  return {
    name: err.name,
    code: err instanceof SkyCiteError ? err.code : null,
    message: err.message,
    fields,
    ...(isDomException(e) ? { dom: true as const } : {}),
    ...(err.cause !== undefined && depth < 3 ? { cause: encodeError(err.cause, depth + 1) } : {}),
  };
}

/**
 * The error again, on this side: an instance of the class `classes` names (its constructor is not
 * run: the fields are the thrower's), a built-in error or DOMException of the same name, else a
 * plain Error that keeps the name and message.
 */
export function decodeError(w: WireError, classes: ErrorClasses): Error {
  if (w.dom && typeof DOMException !== 'undefined') return new DOMException(w.message, w.name);
  const Class = classes.get(w.name) ?? BUILT_IN[w.name] ?? Error;
  const e = Object.create(Class.prototype as object) as Error;
  Object.defineProperty(e, 'message', { value: w.message, writable: true, configurable: true, enumerable: false });
  Object.assign(e, w.fields, { name: w.name });
  if (w.code !== null) Object.assign(e, { code: w.code });
  if (w.cause) Object.defineProperty(e, 'cause', { value: decodeError(w.cause, classes), writable: true, configurable: true, enumerable: false });
  Object.defineProperty(e, 'stack', { value: `${w.name}: ${w.message}\n    (thrown in a worker)`, writable: true, configurable: true, enumerable: false });
  return e;
}
