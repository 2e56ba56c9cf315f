/**
 * Typed build errors. Every message says what happened and how to fix it.
 */
export class CorpusBuildError extends Error {
  override name = 'CorpusBuildError';
}

/** A registered source could be found nowhere. */
export class SourceMissingError extends CorpusBuildError {
  override name = 'SourceMissingError';
  constructor(
    readonly sourceId: string,
    readonly tried: string[],
    fix: string,
  ) {
    super(`Source "${sourceId}" was not found. Tried:\n${tried.map((t) => `  - ${t}`).join('\n')}\nFix: ${fix}`);
  }
}

/** A source file's SHA-256 differs from the registry. */
export class ChecksumMismatchError extends CorpusBuildError {
  override name = 'ChecksumMismatchError';
  constructor(
    readonly sourceId: string,
    readonly file: string,
    readonly expected: string,
    readonly actual: string,
  ) {
    super(
      `Checksum mismatch for source "${sourceId}" (${file}): expected SHA-256 ${expected}, got ${actual}. ` +
        `The file is not the registered edition. Restore the original file, or, if a new edition was ` +
        `deliberately adopted, update the registry entry in corpus-build/sources/registry.ts.`,
    );
  }
}

/** Malformed structured input (curated JSON, Q&A JSON...): names the item and the field. */
export class SourceFormatError extends CorpusBuildError {
  override name = 'SourceFormatError';
  constructor(
    readonly sourceId: string,
    readonly item: string,
    readonly field: string,
    problem: string,
  ) {
    super(`Malformed input in source "${sourceId}", ${item}, field "${field}": ${problem}`);
  }
}

/** A committed data file (synthetic questions, trained model) is missing or does not match its recorded SHA-256. */
export class DataFileError extends CorpusBuildError {
  override name = 'DataFileError';
  constructor(
    readonly file: string,
    readonly expected: string | null,
    readonly actual: string | null,
    readonly regenerate: string,
  ) {
    super(
      `${actual === null ? 'Missing data file' : 'Corrupt data file'} ${file}` +
        (expected ? `: expected SHA-256 ${expected}${actual ? `, got ${actual}` : ''}` : '') +
        `. Restore it from git (git checkout -- ${file}) or regenerate it with: ${regenerate}`,
    );
  }
}
