/**
 * Scoring for the operations and router evaluation sets (pure functions; file reading is in the CLIs).
 */
import { SkyCiteError } from '../errors.js';
import { assessOperation, type OperationInput, type OperationSummary } from '../sora/operation.js';
import { prefilterRoute, ROUTE_PATHS, type RoutePath } from '../route/router.js';

/** A problem in an evaluation file, with its 1-based line number. */
export class EvalInputError extends SkyCiteError {
  override name = 'EvalInputError';
  override readonly code = 'eval-input';
  constructor(
    readonly file: string,
    readonly line: number | null,
    problem: string,
  ) {
    super(`${file}${line === null ? '' : `, line ${line}`}: ${problem}`);
  }
}

export interface JsonlRecord {
  readonly line: number;
  readonly value: unknown;
}

/** Parses JSON Lines; blank lines are skipped; a malformed line throws with its number. */
export function parseJsonl(text: string, file: string): JsonlRecord[] {
  const out: JsonlRecord[] = [];
  // a UTF-8 byte-order mark (some editors write one) is not part of the first record
  text
    .replace(/^\uFEFF/, '')
    .split(/\r?\n/)
    .forEach((raw, i) => {
      if (raw.trim() === '') return;
      try {
        out.push({ line: i + 1, value: JSON.parse(raw) as unknown });
      } catch (e) {
        throw new EvalInputError(file, i + 1, `malformed JSON (${(e as Error).message})`);
      }
    });
  if (out.length === 0) throw new EvalInputError(file, null, 'no cases (the file is empty)');
  return out;
}

const isObject = (v: unknown): v is Record<string, unknown> => typeof v === 'object' && v !== null && !Array.isArray(v);

// ---------------------------------------------------------------- operations

export interface OperationCase {
  readonly id: string;
  readonly inputs: OperationInput;
  readonly expected: Partial<Record<keyof OperationSummary, unknown>>;
}

export interface OpsFailure {
  readonly id: string;
  readonly expected: Partial<Record<keyof OperationSummary, unknown>>;
  readonly got: OperationSummary & { readonly notes?: readonly string[] };
}

export interface OpsReport {
  readonly n: number;
  /** Share of cases whose every expected field matches (0–1). */
  readonly exact: number;
  readonly failures: OpsFailure[];
}

const SUMMARY_KEYS: readonly (keyof OperationSummary)[] = ['igrc', 'final_grc', 'sail'];

/** Checks the shape of one operations case (values are validated by the calculator itself). */
export function toOperationCase(record: JsonlRecord, file: string): OperationCase {
  const v = record.value;
  const fail = (problem: string): never => {
    throw new EvalInputError(file, record.line, problem);
  };
  if (!isObject(v)) return fail('expected a JSON object');
  if (typeof v.id !== 'string' || v.id === '') fail('field "id" must be a non-empty string');
  if (!isObject(v.inputs)) fail('field "inputs" must be an object');
  if (!isObject(v.expected)) fail('field "expected" must be an object');
  const expected = v.expected as Record<string, unknown>;
  if (!SUMMARY_KEYS.some((k) => k in expected)) fail(`field "expected" must contain at least one of ${SUMMARY_KEYS.join(', ')}`);
  const picked: Partial<Record<keyof OperationSummary, unknown>> = {};
  for (const k of SUMMARY_KEYS) if (k in expected) picked[k] = expected[k];
  return { id: v.id as string, inputs: v.inputs as unknown as OperationInput, expected: picked };
}

/** Runs every case; a case is exact when each expected field (igrc, final_grc, sail) is reproduced. */
export function scoreOperations(cases: readonly OperationCase[]): OpsReport {
  const failures: OpsFailure[] = [];
  for (const c of cases) {
    const result = assessOperation(c.inputs);
    const exact = SUMMARY_KEYS.every((k) => !(k in c.expected) || c.expected[k] === result.summary[k]);
    if (!exact) failures.push({ id: c.id, expected: c.expected, got: { ...result.summary, notes: result.notes } });
  }
  return { n: cases.length, exact: cases.length === 0 ? 0 : (cases.length - failures.length) / cases.length, failures };
}

// ---------------------------------------------------------------- router

export interface RouterCase {
  readonly id: string;
  readonly query: string;
  readonly path: RoutePath;
}

export type Confusion = Record<RoutePath, Record<RoutePath, number>>;

export interface RouterReport {
  readonly n: number;
  readonly accuracy: number;
  /** confusion[expected][predicted] = count. */
  readonly confusion: Confusion;
  readonly errors: { id: string; query: string; expected: RoutePath; got: RoutePath; reasoning: string }[];
}

export function toRouterCase(record: JsonlRecord, file: string): RouterCase {
  const v = record.value;
  const fail = (problem: string): never => {
    throw new EvalInputError(file, record.line, problem);
  };
  if (!isObject(v)) return fail('expected a JSON object');
  if (typeof v.id !== 'string' || v.id === '') fail('field "id" must be a non-empty string');
  if (typeof v.query !== 'string' || v.query.trim() === '') fail('field "query" must be a non-empty string');
  if (!ROUTE_PATHS.includes(v.path as RoutePath)) fail(`field "path" must be one of ${ROUTE_PATHS.join(', ')}`);
  return { id: v.id as string, query: v.query as string, path: v.path as RoutePath };
}

/** Routes every query with the pre-filter alone (no history, no classifier). */
export function scoreRouter(cases: readonly RouterCase[]): RouterReport {
  const confusion = Object.fromEntries(ROUTE_PATHS.map((e) => [e, Object.fromEntries(ROUTE_PATHS.map((p) => [p, 0]))])) as Confusion;
  const errors: RouterReport['errors'] = [];
  for (const c of cases) {
    const d = prefilterRoute(c.query).decision;
    confusion[c.path][d.path] += 1;
    if (d.path !== c.path) errors.push({ id: c.id, query: c.query, expected: c.path, got: d.path, reasoning: d.reasoning });
  }
  return { n: cases.length, accuracy: cases.length === 0 ? 0 : (cases.length - errors.length) / cases.length, confusion, errors };
}

// ---------------------------------------------------------------- CLI arguments

export interface EvalCliArgs {
  readonly cases: string;
  readonly json: boolean;
}

/** Parses `--cases <file> [--json]` (also `--cases=<file>`); throws EvalInputError on bad usage. */
export function parseEvalArgs(argv: readonly string[], usage: string): EvalCliArgs {
  let cases: string | undefined;
  let json = false;
  for (let i = 0; i < argv.length; i++) {
    const arg = argv[i] as string;
    if (arg === '--json') json = true;
    else if (arg === '--cases') {
      const next = argv[i + 1];
      if (next === undefined || next.startsWith('--')) throw new EvalInputError('arguments', null, `--cases needs a file path. ${usage}`);
      cases = next;
      i++;
    } else if (arg.startsWith('--cases=')) cases = arg.slice('--cases='.length);
    else throw new EvalInputError('arguments', null, `unknown argument "${arg}". ${usage}`);
  }
  if (!cases) throw new EvalInputError('arguments', null, `missing --cases <file>. ${usage}`);
  return { cases, json };
}
