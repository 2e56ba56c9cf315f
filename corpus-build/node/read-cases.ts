/** Reading an evaluation file named on the command line (relative to where npm was invoked). */
import { readFileSync } from 'node:fs';
import { resolve } from 'node:path';
import { EvalInputError } from '../../src/core/assess/eval.js';

export function readCasesFile(path: string): { file: string; text: string } {
  const file = resolve(process.env.INIT_CWD ?? process.cwd(), path);
  try {
    return { file, text: readFileSync(file, 'utf8') };
  } catch (e) {
    throw new EvalInputError(file, null, `cannot read the cases file (${(e as NodeJS.ErrnoException).code ?? (e as Error).message})`);
  }
}
