import { svelte } from '@sveltejs/vite-plugin-svelte';
import { defineConfig } from 'vitest/config';

export default defineConfig({
  // compiles the Svelte 5 rune modules (*.svelte.ts: the Ask session, the Assess model) for the UI unit tests
  plugins: [svelte()],
  test: {
    include: ['src/**/*.test.ts', 'corpus-build/**/*.test.ts', 'tests/**/*.test.ts'],
    // browser tests run with vitest.e2e.config.ts (they need the production build)
    exclude: ['tests/e2e/**', 'node_modules/**'],
    testTimeout: 120_000,
    hookTimeout: 600_000,
    pool: 'forks',
  },
});
