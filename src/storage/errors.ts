/**
 * Typed storage errors with messages a user can act on. Both stores map the
 * browser's DOMExceptions onto these, so the UI can show `error.message` as is.
 */
import { SkyCiteError } from '../core/errors.js';

/** The base of the storage layer's errors (IndexedDB: audit log, settings, your documents). */
export class StorageError extends SkyCiteError {
  override name = 'StorageError';
}

/** The browser refused to write because the origin's storage quota is used up. */
export class StorageQuotaError extends StorageError {
  override readonly name = 'StorageQuotaError';
  override readonly code = 'storage-quota';
  constructor(what: string, options?: { cause?: unknown }) {
    super(
      `The browser's storage for SkyCite is full, so ${what} could not be saved. ` +
        'Nothing already stored was lost. Export the audit log (Settings → Audit log → Export) and then clear it, ' +
        'or free space by deleting a downloaded language model, and try again.',
      options,
    );
  }
}

/** IndexedDB is missing or blocked (private/incognito window, site data disabled, embedded frame). */
export class StorageUnavailableError extends StorageError {
  override readonly name = 'StorageUnavailableError';
  override readonly code = 'storage-unavailable';
  constructor(detail: string, options?: { cause?: unknown }) {
    super(
      `SkyCite cannot use the browser's local database (${detail}). ` +
        'This usually happens in a private or incognito window, or when site data is blocked for this site. ' +
        'Open SkyCite in a normal window, or allow this site to store data in the browser settings; ' +
        'until then the audit log and your settings are not kept.',
      options,
    );
  }
}

/** Any other storage failure, wrapped with the operation that failed. */
export class StorageOperationError extends StorageError {
  override readonly name = 'StorageOperationError';
  override readonly code = 'storage-operation';
  constructor(operation: string, options?: { cause?: unknown }) {
    const cause = options?.cause;
    const why = cause instanceof Error ? `${cause.name}: ${cause.message}` : String(cause);
    super(`Could not ${operation} in the browser's local database (${why}). Reload the page and try again.`, options);
  }
}

/** A file offered as an audit log export that is not one this version reads: the message says what is wrong with it. */
export class AuditImportError extends StorageError {
  override readonly name = 'AuditImportError';
  override readonly code = 'audit-import';
}

/** The database errors the stores map the browser's exceptions onto. */
export type DatabaseError = StorageQuotaError | StorageUnavailableError | StorageOperationError;

function errorName(e: unknown): string | undefined {
  if (typeof e === 'object' && e !== null && 'name' in e && typeof (e as { name: unknown }).name === 'string') {
    return (e as { name: string }).name;
  }
  return undefined;
}

/**
 * True for the browsers' ways of saying "quota exceeded": the standard DOMException name,
 * Firefox's legacy name, and the legacy numeric code 22.
 */
export function isQuotaError(e: unknown): boolean {
  const name = errorName(e);
  if (name === 'QuotaExceededError' || name === 'NS_ERROR_DOM_QUOTA_REACHED') return true;
  if (typeof e === 'object' && e !== null && 'code' in e && (e as { code: unknown }).code === 22) return true;
  return false;
}

/** Errors that mean "IndexedDB cannot be opened here" rather than "this operation failed". */
export function isUnavailableError(e: unknown): boolean {
  const name = errorName(e);
  return name === 'SecurityError' || name === 'InvalidStateError' || name === 'UnknownError' || name === 'NotAllowedError';
}

/**
 * Pick the most telling error out of several rejections of one transaction: a request
 * rejects with AbortError when its transaction aborts, while the transaction's own error
 * carries the real cause (QuotaExceededError).
 */
export function mostSpecificError(errors: unknown[]): unknown {
  return errors.find(isQuotaError) ?? errors.find((e) => errorName(e) !== 'AbortError') ?? errors[0];
}

/** Map an error from a write to a typed error. */
export function mapWriteError(e: unknown, what: string, operation: string): Error {
  if (e instanceof StorageQuotaError || e instanceof StorageUnavailableError || e instanceof StorageOperationError) return e;
  if (isQuotaError(e)) return new StorageQuotaError(what, { cause: e });
  return new StorageOperationError(operation, { cause: e });
}

/** Map an error from a read to a typed error. */
export function mapReadError(e: unknown, operation: string): Error {
  if (e instanceof StorageQuotaError || e instanceof StorageUnavailableError || e instanceof StorageOperationError) return e;
  return new StorageOperationError(operation, { cause: e });
}
