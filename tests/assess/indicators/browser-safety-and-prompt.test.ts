/** The runtime modules stay browser-safe (no Node, no ajv compiler under the app's CSP); prompt variants. */
import { readFileSync } from 'node:fs';
import { dirname, join } from 'node:path';
import { fileURLToPath } from 'node:url';
import { describe, expect, it } from 'vitest';
import { buildIndicatorMessages, NO_CONTEXT } from '../../../src/core/indicators/index.js';
import { BASE_INPUT } from './helpers.js';

const DIR = join(dirname(fileURLToPath(import.meta.url)), '../../../src/core/indicators');

/** Relative imports reachable from index.ts inside the indicators folder, and every bare import. */
function importGraph(entry: string): { files: Set<string>; external: Set<string> } {
  const files = new Set<string>();
  const external = new Set<string>();
  const visit = (file: string) => {
    if (files.has(file)) return;
    files.add(file);
    const src = readFileSync(join(DIR, file), 'utf8');
    for (const m of src.matchAll(/^(?:import|export)\s[^;]*?from\s+'([^']+)'/gms)) {
      const spec = m[1] as string;
      if (spec.startsWith('./')) visit(spec.slice(2).replace(/\.js$/, '.ts'));
      else if (!spec.startsWith('../')) external.add(spec);
    }
  };
  visit(entry);
  return { files, external };
}

describe('browser safety', () => {
  it('imports neither Node built-ins nor ajv from the runtime entry point', () => {
    const { files, external } = importGraph('index.ts');
    expect(files.has('validators.generated.ts')).toBe(true);
    expect([...external]).toEqual([]);
  });
});

describe('prompt variants', () => {
  it('can insert an assistant acknowledgement for chat templates that need alternating roles', () => {
    const m = buildIndicatorMessages('expected_assessment_depth', BASE_INPUT, '', undefined, { alternateRoles: true });
    expect(m.map((x) => x.role)).toEqual(['system', 'user', 'assistant', 'user']);
    expect(m[3]?.content).toBe(`Context:\n${NO_CONTEXT}`);
  });
});
