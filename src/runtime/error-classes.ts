/**
 * Every error class the runtime worker can throw, by name: the app's side rebuilds an error that
 * crossed the worker as its own class (core/errors.ts decodeError), so the views branch on the
 * class and its code, and fields like `source` or `status` arrive as they were thrown.
 * tests/lint/error-classes.test.ts checks that every exported error class the worker's code
 * reaches is here.
 */
import { errorClasses, SkyCiteError } from '../core/errors.js';
import { RequirementsDraftError } from '../core/agents/requirements-model.js';
import { CoverageDataError } from '../core/coverage/load.js';
import { ModelLoadError } from '../core/embedding/embedder.js';
import { IndexIntegrityError } from '../core/index/manifest.js';
import { OperationInputError } from '../core/indicators/inputs.js';
import { DocumentSplitError } from '../core/ingest/documents.js';
import { UserDocumentError } from '../core/userdocs/validate.js';
import { MODEL_ERROR_CLASSES } from '../core/llm/errors.js';
import { RetrievalConfigError } from '../core/retrieval/config.js';
import { RerankerLoadError } from '../core/retrieval/rerank.js';
import { RouteModelError } from '../core/route/route-model.js';
import { SoraTableError } from '../core/sora/types.js';
import { AuditImportError, StorageError, StorageOperationError, StorageQuotaError, StorageUnavailableError } from '../storage/errors.js';
import { StoredDocumentMissingError, UserDocumentIdTakenError, UserDocumentQuotaError } from '../storage/user-docs-store.js';
import { IndexSourceError, IndexUnavailableError, RuntimeError, RuntimeNotReadyError, RuntimeWorkerError } from './errors.js';
import { IndexFetchError } from './fetch-bytes.js';
import { ModelIntegrityError } from './model-integrity.js';
import { RetrievalModelError } from './retrieval-models.js';
import { UserDocumentImportCancelledError, UserDocumentNotFoundError, UserDocumentTooLargeError, UserDocumentVectorsError } from './user-documents.js';

export const RUNTIME_ERROR_CLASSES = errorClasses({
  SkyCiteError,
  ...Object.fromEntries(MODEL_ERROR_CLASSES),
  RequirementsDraftError,
  CoverageDataError,
  ModelLoadError,
  IndexIntegrityError,
  OperationInputError,
  DocumentSplitError,
  UserDocumentError,
  RerankerLoadError,
  RetrievalConfigError,
  RouteModelError,
  SoraTableError,
  AuditImportError,
  StorageError,
  StorageOperationError,
  StorageQuotaError,
  StorageUnavailableError,
  StoredDocumentMissingError,
  UserDocumentIdTakenError,
  UserDocumentQuotaError,
  RuntimeError,
  IndexSourceError,
  IndexUnavailableError,
  RuntimeNotReadyError,
  RuntimeWorkerError,
  IndexFetchError,
  ModelIntegrityError,
  RetrievalModelError,
  UserDocumentImportCancelledError,
  UserDocumentNotFoundError,
  UserDocumentTooLargeError,
  UserDocumentVectorsError,
});
