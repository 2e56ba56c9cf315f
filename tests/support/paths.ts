import path from 'node:path';
import { fileURLToPath } from 'node:url';

export const repoRoot = path.resolve(path.dirname(fileURLToPath(import.meta.url)), '../..');
/** CORPUS_DIR as CI sets it (relative to the repo root), defaulting to ../shared/corpus. */
export const corpusDir = path.resolve(repoRoot, process.env.CORPUS_DIR ?? '../shared/corpus');
export const easaSourcePath = path.join(corpusDir, 'easa-amc-gm-2019-947', 'source.txt');
export const evalDir = path.resolve(repoRoot, process.env.EVAL_DIR ?? path.join(corpusDir, '..', 'eval'));
