// ESLint flat config: typescript-eslint's recommended rules over the TypeScript sources.
import js from '@eslint/js';
import tseslint from 'typescript-eslint';

export default tseslint.config(
  { ignores: ['dist/', 'node_modules/', 'data/', 'coverage/', '.build-*/'] },
  js.configs.recommended,
  ...tseslint.configs.recommended,
  {
    files: ['**/*.ts'],
    rules: {
      '@typescript-eslint/no-explicit-any': 'off',
      '@typescript-eslint/no-unused-vars': ['error', { argsIgnorePattern: '^_' }],
      eqeqeq: ['error', 'always', { null: 'ignore' }],
    },
  },
  {
    // the admin app's scripts run in the browser
    files: ['engine/http/web/*.js'],
    languageOptions: {
      globals: {
        clearTimeout: 'readonly',
        confirm: 'readonly',
        document: 'readonly',
        fetch: 'readonly',
        FormData: 'readonly',
        location: 'readonly',
        navigator: 'readonly',
        setTimeout: 'readonly',
        URLSearchParams: 'readonly',
        window: 'readonly',
        XMLHttpRequest: 'readonly',
      },
    },
  },
  {
    // runs under Node before anything is built
    files: ['engine/cli/*.mjs'],
    languageOptions: { globals: { process: 'readonly' } },
  },
  {
    files: ['test/**/*.ts'],
    rules: { '@typescript-eslint/no-unused-expressions': 'off' },
  },
);
