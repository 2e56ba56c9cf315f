/**
 * The root of SkyCite's typed errors. Each layer has one base under it — core's model taxonomy
 * (core/llm/errors.ts AnswerError), StorageError (src/storage), RuntimeError (src/runtime) — and
 * every error says what happened and what to do. Names are unique: an error that crosses a worker
 * is told apart by its name (tests/lint/error-classes.test.ts).
 */
export class SkyCiteError extends Error {
  override name = 'SkyCiteError';
}
