/**
 * A SHA-256 over the code that determines the index's content (chunkers,
 * loaders, enrichment, shared text utilities, chunk model), so `npm start` can
 * tell that an index built by older code is stale.
 */
import { createHash } from 'node:crypto';
import { readdirSync, readFileSync, statSync } from 'node:fs';
import { join, relative } from 'node:path';

const ROOTS = [
  'corpus-build/loaders',
  'corpus-build/chunking',
  'corpus-build/sources',
  'corpus-build/build',
  'src/core/model',
  'src/core/text',
  'src/core/index',
  'src/core/ingest',
  // the typed table grids give those tables' units
  'src/core/sora/tables',
];

function walk(dir: string, out: string[]): void {
  for (const name of readdirSync(dir).sort()) {
    const p = join(dir, name);
    if (statSync(p).isDirectory()) walk(p, out);
    else if (p.endsWith('.ts') && !p.endsWith('.test.ts')) out.push(p);
  }
}

export function builderFingerprint(repoRoot: string): string {
  const files: string[] = [];
  for (const r of ROOTS) walk(join(repoRoot, r), files);
  const h = createHash('sha256');
  for (const f of files) {
    h.update(relative(repoRoot, f));
    h.update('\0');
    h.update(readFileSync(f));
    h.update('\0');
  }
  return h.digest('hex');
}
