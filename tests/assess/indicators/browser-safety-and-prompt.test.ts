/** The runtime modules stay browser-safe (no Node, no ajv compiler under the app's CSP); prompt variants. */
import { readFileSync } from 'node:fs';
import { dirname, join, posix } from 'node:path';
import { fileURLToPath } from 'node:url';
import { describe, expect, it } from 'vitest';
import { buildIndicatorMessages, NO_CONTEXT } from '../../../src/core/indicators/index.js';
import { BASE_INPUT } from './helpers.js';

const CORE = join(dirname(fileURLToPath(import.meta.url)), '../../../src/core');

/** Files of src/core reachable from the indicators' index.ts by relative imports (paths relative to src/core), and every bare import. */
function importGraph(entry: string): { files: Set<string>; external: Set<string> } {
  const files = new Set<string>();
  const external = new Set<string>();
  const visit = (file: string) => {
    if (files.has(file)) return;
    files.add(file);
    const src = readFileSync(join(CORE, file), 'utf8');
    for (const m of src.matchAll(/^(?:import|export)\s[^;]*?from\s+'([^']+)'/gms)) {
      const spec = m[1] as string;
      if (spec.startsWith('.')) visit(posix.normalize(posix.join(posix.dirname(file), spec)).replace(/\.js$/, '.ts'));
      else external.add(spec);
    }
  };
  visit(entry);
  return { files, external };
}

describe('browser safety', () => {
  it('imports neither Node built-ins nor ajv from the runtime entry point', () => {
    const { files, external } = importGraph('indicators/index.ts');
    expect(files.has('schema/validators.generated.ts')).toBe(true);
    // browser packages (partial-json through core/llm) are fine; Node built-ins and ajv's compiler are not
    expect([...external].filter((x) => x.startsWith('node:') || /^(fs|path|crypto|url)$/.test(x) || x === 'ajv' || x.startsWith('ajv/'))).toEqual([]);
    expect(external.size).toBeGreaterThan(0); // the walk does reach beyond the indicators folder
  });
});

describe('prompt variants', () => {
  it('can insert an assistant acknowledgement for chat templates that need alternating roles', () => {
    const m = buildIndicatorMessages('expected_assessment_depth', BASE_INPUT, '', undefined, { alternateRoles: true });
    expect(m.map((x) => x.role)).toEqual(['system', 'user', 'assistant', 'user']);
    expect(m[3]?.content).toBe(`Context:\n${NO_CONTEXT}`);
  });
});
