import js from '@eslint/js';
import tseslint from 'typescript-eslint';

export default tseslint.config(
  { ignores: ['node_modules/', 'dist/', 'generated/', 'data/', 'web/dist/', 'test-output/'] },
  js.configs.recommended,
  ...tseslint.configs.recommended,
  {
    rules: {
      '@typescript-eslint/no-unused-vars': ['error', { argsIgnorePattern: '^_', varsIgnorePattern: '^_' }],
      '@typescript-eslint/no-explicit-any': 'error',
      'no-restricted-properties': ['error', { object: 'process', property: 'env', message: 'Read settings in core/config.ts only.' }],
    },
  },
  {
    // Tests and scripts read their own environment (engine URLs), never gw's settings.
    files: ['test/**', 'scripts/**'],
    rules: { 'no-restricted-properties': 'off' },
  },
  {
    // The console's build (web/vite.config.ts) reads its own environment (GW_URL for the dev proxy).
    files: ['web/vite.config.ts', 'web/build/**'],
    rules: { 'no-restricted-properties': 'off' },
  },
  {
    files: ['core/config.ts'],
    rules: { 'no-restricted-properties': 'off' },
  },
  {
    // Examples are standalone Node programs a user runs against gw: their own environment, console output.
    files: ['examples/**'],
    languageOptions: { globals: { process: 'readonly', console: 'readonly' } },
    rules: { 'no-restricted-properties': 'off' },
  },
);
