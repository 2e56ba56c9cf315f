/**
 * ESLint (flat config), run by `npm run lint` and CI: the import boundary of src/core.
 * Type errors are tsc's and svelte-check's job (`npm run typecheck`, `npm run check:svelte`).
 */
import tsParser from '@typescript-eslint/parser';
import coreBoundary from './tools/eslint/core-boundary.js';

export default [
  { ignores: ['node_modules/**', 'dist/**', 'static-index/**', 'public/**', '.cache/**'] },
  {
    files: ['src/core/**/*.ts'],
    languageOptions: { parser: tsParser, ecmaVersion: 2022, sourceType: 'module' },
    linterOptions: { reportUnusedDisableDirectives: 'off' },
    plugins: { skycite: { rules: { 'core-boundary': coreBoundary } } },
    rules: { 'skycite/core-boundary': 'error' },
  },
];
