/**
 * ESLint (flat config), run by `npm run lint` and CI over all of src/: the import boundary of
 * src/core, and typed errors everywhere (tools/eslint/typed-errors.js).
 * Type errors are tsc's and svelte-check's job (`npm run typecheck`, `npm run check:svelte`).
 */
import tsParser from '@typescript-eslint/parser';
import coreBoundary from './tools/eslint/core-boundary.js';
import typedErrors from './tools/eslint/typed-errors.js';

const skycite = { rules: { 'core-boundary': coreBoundary, 'typed-errors': typedErrors } };

export default [
  { ignores: ['node_modules/**', 'dist/**', 'static-index/**', 'public/**', '.cache/**', 'src/core/schema/validators.generated.ts'] },
  {
    files: ['src/**/*.ts'],
    languageOptions: { parser: tsParser, ecmaVersion: 2022, sourceType: 'module' },
    linterOptions: { reportUnusedDisableDirectives: 'error' },
    plugins: { skycite },
    rules: { 'skycite/typed-errors': 'error' },
  },
  {
    files: ['src/core/**/*.ts'],
    rules: { 'skycite/core-boundary': 'error' },
  },
];
