/** Reading an evaluation file named on the command line (relative to where npm was invoked). */
import { readFileSync } from 'node:fs';
import { resolve } from 'node:path';
import { EvalInputError, parseJsonl } from '../../src/core/evaluation/operations-and-routes.js';
import { type RetrievalQuestion, toQuestion } from '../../src/core/evaluation/retrieval-metrics.js';

export function readCasesFile(path: string): { file: string; text: string } {
  const file = resolve(process.env.INIT_CWD ?? process.cwd(), path);
  try {
    return { file, text: readFileSync(file, 'utf8') };
  } catch (e) {
    throw new EvalInputError(file, null, `cannot read the cases file (${(e as NodeJS.ErrnoException).code ?? (e as Error).message})`);
  }
}

/** A retrieval question file (the format of ../shared/eval/retrieval-dev.jsonl); errors name the file, line and field. */
export function readRetrievalQuestions(path: string): RetrievalQuestion[] {
  const { file, text } = readCasesFile(path);
  return parseJsonl(text, file).map((r) => toQuestion(r.value, `${file}, line ${r.line}`));
}
