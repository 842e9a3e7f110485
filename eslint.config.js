import js from '@eslint/js';
import tseslint from 'typescript-eslint';

/**
 * The rooms, bottom first: each may import only the rooms below it (docs/development.md).
 * core is the kernel every room shares; server/ composes the rest and nothing imports it.
 */
const ROOMS = ['core', 'store', 'jobs', 'gateway', 'handlers', 'server'];

/** Refuses a relative import that climbs out of `room` into a room above it. */
function importsBelowOnly(room, { allowTypeImports = false } = {}) {
  const above = ROOMS.slice(ROOMS.indexOf(room) + 1);
  return {
    files: [`${room}/**/*.ts`],
    rules: {
      '@typescript-eslint/no-restricted-imports': [
        'error',
        {
          patterns: [
            {
              regex: `^(\\.\\./)+(${above.join('|')})/`,
              allowTypeImports,
              message: `${room}/ imports only the rooms below it (${ROOMS.slice(0, ROOMS.indexOf(room)).join(', ') || 'none'}): see docs/development.md.`,
            },
          ],
        },
      ],
    },
  };
}

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
  ...ROOMS.slice(0, -1).map((room) => importsBelowOnly(room)),
  // The Services registry names the types of what composition builds in every room: types only.
  { ...importsBelowOnly('core', { allowTypeImports: true }), files: ['core/services.ts'] },
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
