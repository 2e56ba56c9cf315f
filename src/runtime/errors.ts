/** The base of the retrieval runtime's errors (in process and behind the worker). */
import { SkyCiteError } from '../core/errors.js';

export class RuntimeError extends SkyCiteError {
  override name = 'RuntimeError';
}
