import { readdirSync, readFileSync, statSync } from 'node:fs';
import { join } from 'node:path';
import { compile } from 'svelte/compiler';
import { describe, expect, it } from 'vitest';

/** Every .svelte file under src/ui. */
function svelteFiles(dir: string): string[] {
  return readdirSync(dir).flatMap((n) => {
    const p = join(dir, n);
    return statSync(p).isDirectory() ? svelteFiles(p) : p.endsWith('.svelte') ? [p] : [];
  });
}

// Svelte 5 drops the whitespace that opens a block: "title{#if part} (part 1 of 3){/if}" renders
// "title(part 1 of 3)" (the "to(part 13 of 17)", "page 119· AMC1"). Text that must follow
// with a space starts with {' '} instead.
const LEADING_SPACE_IN_BLOCK = /\{(?:#if|:else(?: if)?|#each)[^}]*\} +[^\s{]/g;

describe('spaces at the start of a block', () => {
  it("are dropped by the compiler, and {' '} keeps them", () => {
    const out = (src: string) => compile(`<script>let x = true;</script><p>a{#if x}${src}{/if}</p>`, { generate: 'server' }).js.code;
    expect(out(' b')).not.toContain(' b');
    expect(out("{' '}b")).toMatch(/ b/);
  });

  it("are not relied on in the views (text after a block opener starts with {' '})", () => {
    const offenders = svelteFiles('src/ui').flatMap((f) =>
      readFileSync(f, 'utf8')
        .split('\n')
        .flatMap((line, i) => (line.match(LEADING_SPACE_IN_BLOCK) ?? []).map((m) => `${f}:${i + 1}: ${m}`)),
    );
    expect(offenders).toEqual([]);
  });
});
