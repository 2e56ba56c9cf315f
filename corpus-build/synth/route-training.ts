/**
 * The router's training questions, read once for `npm run train:router` and `npm run cv:router`:
 *  - model-written: `rules` from the passage questions of synthetic-questions.jsonl (table passages
 *    left out), `database` / `both` from route-questions.jsonl, each in its CV group (a table, or a
 *    passage's section);
 *  - template questions from the calculator's typed tables (route-templates.ts);
 *  - engineer-written questions (route-written.jsonl): written from the documents for the router,
 *    each with a topic group and a split — `cv` (trained on, and cross-validated by topic) or
 *    `held-out` (never trained on; measured once, when a setting has been chosen).
 */
import { existsSync, readFileSync } from 'node:fs';
import { resolve } from 'node:path';
import type { RouteClass, RouteExample } from '../../src/core/route/route-model.js';
import { ROUTE_CLASSES } from '../../src/core/route/route-model.js';
import { isTableChunk } from './compose-routes.js';
import { ROUTE_FILE, ROUTE_PROMPT_VERSION, type RouteQuestions } from './route-prompt.js';
import { templateRouteQuestions } from './route-templates.js';
import { DATA_DIR, type PassageQuestions, parseJsonl, readVerified, sha256, SYNTH_FILE } from './store.js';

export const WRITTEN_FILE = 'route-written.jsonl';

export interface Labelled extends RouteExample {
  readonly group: string;
}

export interface WrittenQuestion {
  readonly id: string;
  readonly query: string;
  readonly path: RouteClass;
  /** Its topic (a table, or a subject of the text): a CV group. */
  readonly group: string;
  readonly split: 'cv' | 'held-out';
}

/** A passage's section id (the CV group of its questions). */
export const sectionOf = (chunkId: string): string => chunkId.replace(/\/(?:part-\d+|table-[^/]+)$/, '').replace(/\/[^/]+$/, '');

/** The model-written questions (throws with the regenerating command when the route file is missing). */
export function modelWrittenQuestions(): {
  examples: Labelled[];
  routeRecords: RouteQuestions[];
  passages: PassageQuestions[];
  hashes: Record<string, string>;
} {
  const routePath = resolve(DATA_DIR, ROUTE_FILE);
  let routeRecords: RouteQuestions[];
  try {
    routeRecords = parseJsonl<RouteQuestions>(readFileSync(routePath, 'utf8'), ROUTE_FILE).filter((r) => r.prompt === ROUTE_PROMPT_VERSION);
  } catch (e) {
    throw new Error(`cannot read corpus-build/data/${ROUTE_FILE} (${(e as Error).message}); write it with npm run synth:routes -- --model <GGUF>`);
  }
  if (!routeRecords.length)
    throw new Error(`corpus-build/data/${ROUTE_FILE} has no ${ROUTE_PROMPT_VERSION} records; run npm run synth:routes -- --model <GGUF>`);
  const passages = readVerified<PassageQuestions>(SYNTH_FILE);
  const examples: Labelled[] = [];
  for (const r of routeRecords) for (const q of r.questions) examples.push({ text: q.q, path: r.path, group: `table:${r.table}` });
  for (const r of passages)
    if (!isTableChunk(r.chunk)) for (const q of r.questions) examples.push({ text: q.q, path: 'rules', group: `section:${sectionOf(r.chunk)}` });
  return {
    examples,
    routeRecords,
    passages,
    hashes: { [ROUTE_FILE]: sha256(readFileSync(routePath)), [SYNTH_FILE]: sha256(readFileSync(resolve(DATA_DIR, SYNTH_FILE))) },
  };
}

/** Template questions, each in its table's group. */
export function templateQuestions(perTable: number): Labelled[] {
  return perTable ? templateRouteQuestions(perTable).map((t) => ({ text: t.text, path: t.path, group: `table:${t.table}` })) : [];
}

/** The engineer-written questions, checked (null when the file is absent). */
export function writtenQuestions(file = resolve(DATA_DIR, WRITTEN_FILE)): { questions: WrittenQuestion[]; sha256: string } | null {
  if (!existsSync(file)) return null;
  const text = readFileSync(file, 'utf8');
  const questions = parseJsonl<WrittenQuestion>(text, file);
  const ids = new Set<string>();
  for (const q of questions) {
    if (!q.id || ids.has(q.id)) throw new Error(`${file}: id "${q.id}" missing or repeated`);
    ids.add(q.id);
    if (typeof q.query !== 'string' || !q.query.trim()) throw new Error(`${file}: ${q.id} has no query`);
    if (!ROUTE_CLASSES.includes(q.path)) throw new Error(`${file}: ${q.id} path must be ${ROUTE_CLASSES.join(', ')}`);
    if (!q.group) throw new Error(`${file}: ${q.id} has no group`);
    if (q.split !== 'cv' && q.split !== 'held-out') throw new Error(`${file}: ${q.id} split must be cv or held-out`);
  }
  return { questions, sha256: sha256(text) };
}
