// Lint rules checked in CI (`npm run lint`): typescript-eslint's recommended set with type
// information, plus the project's own conventions (no any, no object-literal assertions, no
// floating promises, one private-member style: ECMAScript `#` members).
import js from '@eslint/js';
import tseslint from 'typescript-eslint';

// The Node globals the plain-JS entry points and scripts use (bin/*.js, scripts/*.mjs,
// eslint.config.js); TypeScript files get theirs from @types/node, checked by tsc.
const nodeGlobals = Object.fromEntries(
  [
    'process',
    'console',
    'URL',
    'Buffer',
    'setTimeout',
    'clearTimeout',
    'setInterval',
    'clearInterval',
    'performance',
    'structuredClone',
  ].map((name) => [name, 'readonly']),
);

export default tseslint.config(
  // generated or not ours: the build, migrations, bench results, the tests' scratch files (tmp/,
  // e.g. child scripts the reliability tests write), installed packages, declarations
  { ignores: ['dist/**', 'node_modules/**', 'coverage/**', 'drizzle/**', 'bench/results/**', 'tmp/**', '**/*.d.ts'] },
  // a disable comment that no longer silences anything (e.g. moved away by a reformat) is an error
  { linterOptions: { reportUnusedDisableDirectives: 'error' } },
  js.configs.recommended,
  ...tseslint.configs.recommended,
  {
    files: ['**/*.js', '**/*.mjs'],
    languageOptions: { globals: nodeGlobals },
  },
  // the command's entry point is CommonJS (bin/package.json): Node starts it quicker; so is the
  // shim bundled into dist/cli.cjs (scripts/sqlite-addon.cjs)
  {
    files: ['bin/*.js', 'scripts/*.cjs'],
    languageOptions: {
      sourceType: 'commonjs',
      globals: { ...nodeGlobals, require: 'readonly', module: 'readonly', __dirname: 'readonly' },
    },
    rules: { '@typescript-eslint/no-require-imports': 'off' },
  },
  {
    files: ['**/*.ts', '**/*.tsx'],
    languageOptions: {
      parserOptions: { projectService: true, tsconfigRootDir: import.meta.dirname },
    },
    rules: {
      '@typescript-eslint/no-explicit-any': 'error',
      '@typescript-eslint/consistent-type-assertions': [
        'error',
        { assertionStyle: 'as', objectLiteralTypeAssertions: 'never' },
      ],
      '@typescript-eslint/no-floating-promises': 'error',
      'no-restricted-syntax': [
        'error',
        {
          selector:
            "PropertyDefinition[accessibility='private'], MethodDefinition[accessibility='private'], TSParameterProperty[accessibility='private']",
          message: 'Use an ECMAScript #private member instead of the private keyword.',
        },
      ],
    },
  },
  {
    rules: {
      // A leading underscore marks a binding unused on purpose: an interface's parameter
      // (`_ctx`), a loop that only counts (`for (const _ of text)`), or a key dropped from a
      // copy (`const { raw: _raw, ...rest } = o`). Every other unused binding is an error.
      '@typescript-eslint/no-unused-vars': [
        'error',
        {
          argsIgnorePattern: '^_',
          varsIgnorePattern: '^_',
          caughtErrorsIgnorePattern: '^_',
          destructuredArrayIgnorePattern: '^_',
          ignoreRestSiblings: true,
        },
      ],
    },
  },
);
