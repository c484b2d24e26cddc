// Type-aware linting: typescript-eslint's recommended-type-checked rules over the whole tree.
// Formatting is prettier's (no stylistic rules here); the layer rule is dependency-cruiser's
// (.dependency-cruiser.cjs). Both run in `npm run lint`, which `npm test` runs first.
import eslint from '@eslint/js';
import globals from 'globals';
import tseslint from 'typescript-eslint';

export default tseslint.config(
  { ignores: ['node_modules/', 'dist/', 'data/', 'coverage/', '.cache/', 'bench/results/'] },
  eslint.configs.recommended,
  ...tseslint.configs.recommendedTypeChecked,
  {
    languageOptions: {
      globals: globals.node,
      parserOptions: { projectService: true, tsconfigRootDir: import.meta.dirname },
    },
    rules: {
      // The ports are asynchronous because some engines are; the SQLite and in-memory adapters
      // answer synchronously inside `async` methods on purpose.
      '@typescript-eslint/require-await': 'off',
      // `_`-prefixed parameters and variables are deliberately unused (express handler arities).
      '@typescript-eslint/no-unused-vars': ['error', { argsIgnorePattern: '^_', varsIgnorePattern: '^_', caughtErrors: 'none' }],
    },
  },
  {
    // Tests and benchmarks read HTTP answers (supertest's and fetch's bodies are `any`) and assert
    // on them: typing every answer would add nothing the assertions don't already check.
    files: ['**/*.test.ts', 'test/**', 'bench/**', 'shared/testing/**'],
    rules: {
      '@typescript-eslint/no-explicit-any': 'off',
      '@typescript-eslint/no-unsafe-member-access': 'off',
      '@typescript-eslint/no-unsafe-assignment': 'off',
      '@typescript-eslint/no-unsafe-argument': 'off',
      '@typescript-eslint/no-unsafe-return': 'off',
      '@typescript-eslint/no-unsafe-call': 'off',
    },
  },
  {
    // The web console runs in the browser (its own tsconfig: console/tsconfig.json).
    files: ['console/**'],
    languageOptions: { globals: globals.browser },
  },
  { files: ['**/*.js', '**/*.mjs', '**/*.cjs'], ...tseslint.configs.disableTypeChecked },
);
