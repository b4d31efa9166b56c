// One lint configuration for the gateway, its infrastructure, the console and the tests.
import js from '@eslint/js';
import tseslint from 'typescript-eslint';

export default tseslint.config(
  // Generated or installed, never written here: bundles, CDK output, local data, and `.bench/` (where
  // `npm run bench` installs Portkey and keeps its working files).
  { ignores: ['dist/', 'cdk.out/', 'coverage/', 'test-results/', '.ci/', '.gateway/', '.bench/', 'node_modules/'] },
  js.configs.recommended,
  ...tseslint.configs.recommended,
  {
    languageOptions: {
      globals: {
        console: 'readonly',
        process: 'readonly',
        Buffer: 'readonly',
        URL: 'readonly',
        setTimeout: 'readonly',
        clearTimeout: 'readonly',
      },
    },
    rules: {
      // Unused names are dead code; a leading underscore marks a parameter kept for its position.
      '@typescript-eslint/no-unused-vars': ['error', { argsIgnorePattern: '^_', varsIgnorePattern: '^_' }],
      '@typescript-eslint/consistent-type-imports': 'error',
      eqeqeq: ['error', 'smart'],
    },
  },
  {
    // Schemas take zod from one module, which picks the small build and sets its English messages.
    // (Client tests keep classic zod: the SDKs they drive take its schemas for tools.)
    files: ['functions/**', 'test/unit/**', 'test/integration/**'],
    ignores: ['functions/shared/schemas/zod.ts'],
    rules: {
      'no-restricted-imports': [
        'error',
        {
          patterns: [
            {
              regex: '^zod($|/)',
              message: "Import zod from functions/shared/schemas/zod.ts ('zod/mini', English messages).",
            },
          ],
        },
      ],
    },
  },
  {
    // Tests and the CLI read admin API answers whose shape is the thing under test or just printed.
    files: ['test/**', 'cli/**'],
    rules: { '@typescript-eslint/no-explicit-any': 'off' },
  },
);
