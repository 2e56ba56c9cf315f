/**
 * The storage layer's imports: src/storage sits below the worker boundaries and the app, so it
 * imports only itself, src/core and packages — never src/llm, src/runtime or src/ui (what it needs
 * from them, such as the offered model ids, lives in src/core).
 */
import { readdirSync, readFileSync } from 'node:fs';
import path from 'node:path';
import { describe, expect, it } from 'vitest';
import { repoRoot } from '../support/paths.js';

const storageDir = path.join(repoRoot, 'src', 'storage');
const allowed = [storageDir, path.join(repoRoot, 'src', 'core')];

/** Relative specifiers of static imports/exports and literal dynamic imports. */
function relativeImports(source: string): string[] {
  const specs = [...source.matchAll(/\bfrom\s+['"]([^'"]+)['"]|\bimport\s*\(\s*['"]([^'"]+)['"]\s*\)|^\s*import\s+['"]([^'"]+)['"]/gm)].map(
    (m) => m[1] ?? m[2] ?? m[3] ?? '',
  );
  return specs.filter((s) => s.startsWith('.'));
}

describe('src/storage layering', () => {
  const files = readdirSync(storageDir, { recursive: true, encoding: 'utf8' }).filter((f) => f.endsWith('.ts'));

  it('finds the storage modules and their imports', () => {
    expect(files).toContain('settings-store.ts');
    const settings = readFileSync(path.join(storageDir, 'settings-store.ts'), 'utf8');
    expect(relativeImports(settings).length).toBeGreaterThan(0);
  });

  it('imports only src/storage and src/core (no src/llm, src/runtime or src/ui)', () => {
    const outside: string[] = [];
    for (const f of files) {
      const file = path.join(storageDir, f);
      for (const spec of relativeImports(readFileSync(file, 'utf8'))) {
        const target = path.resolve(path.dirname(file), spec);
        if (!allowed.some((dir) => target.startsWith(dir + path.sep))) outside.push(`${f} → ${path.relative(repoRoot, target)}`);
      }
    }
    expect(outside).toEqual([]);
  });
});
