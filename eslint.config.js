// @ts-check
import { existsSync } from 'node:fs';
import path from 'node:path';
import js from '@eslint/js';
import boundaries from 'eslint-plugin-boundaries';
import prettier from 'eslint-config-prettier';
import tseslint from 'typescript-eslint';

/** Folders whose imports the dependency rules govern; a file belongs to the first pattern it matches. */
const ELEMENTS = [
  { type: 'redis-client', pattern: 'src/kernel/redis/**', partialMatch: false },
  { type: 'bullmq-client', pattern: 'src/kernel/bullmq/**', partialMatch: false },
  { type: 'kernel', pattern: 'src/kernel/**', partialMatch: false },
  { type: 'roles', pattern: 'src/roles/**', partialMatch: false },
  { type: 'cli', pattern: 'src/cli/**', partialMatch: false },
  { type: 'component', pattern: 'src/*/**', partialMatch: false },
];

const KERNEL = ['kernel', 'redis-client', 'bullmq-client'];

/** Which way dependencies may point: components use the kernel, never the reverse; only the kernel's clients import their libraries. */
const DEPENDENCY_RULES = {
  'the kernel never imports a component or role': {
    from: { element: { types: { anyOf: KERNEL } } },
    disallow: { to: { element: { types: { anyOf: ['component', 'roles', 'cli'] } } } },
  },
  'components never import a role': {
    from: { element: { type: 'component' } },
    disallow: { to: { element: { types: { anyOf: ['roles', 'cli'] } } } },
  },
  'ioredis only in src/kernel/redis': {
    from: { element: { type: '!redis-client' } },
    disallow: { to: { module: { origin: 'external', source: 'ioredis' } } },
  },
  'bullmq only in src/kernel/bullmq': {
    from: { element: { type: '!bullmq-client' } },
    disallow: { to: { module: { origin: 'external', source: 'bullmq' } } },
  },
};

/**
 * Files that break a dependency rule on the way to the layout the rules describe, each with the
 * rules it is exempt from until it moves. A new file gets no exemption; an entry whose file is gone
 * stops the lint, and test/lint/ fails for an entry whose file keeps every rule: the list only shrinks.
 * @type {Record<string, string[]>}
 */
const NOT_YET_CONFINED = {};

for (const file of Object.keys(NOT_YET_CONFINED)) {
  if (!existsSync(path.join(import.meta.dirname, file))) {
    throw new Error(`eslint.config.js: ${file} is listed in NOT_YET_CONFINED but no longer exists; remove its entry`);
  }
}

/** The `boundaries/dependencies` rule with every dependency rule except `exempt`. */
function dependencyRule(exempt = []) {
  const policies = Object.entries(DEPENDENCY_RULES)
    .filter(([name]) => !exempt.includes(name))
    .map(([, policy]) => policy);
  return { 'boundaries/dependencies': ['error', { default: 'allow', checkAllOrigins: true, policies }] };
}

export default tseslint.config(
  // src/api/openapi-types.ts is generated from src/api/openapi.yaml (npm run generate:types).
  { ignores: ['dist/', 'data/', 'test-artifacts/', 'node_modules/', 'src/api/openapi-types.ts'] },
  { linterOptions: { reportUnusedDisableDirectives: 'error' } },
  js.configs.recommended,
  tseslint.configs.recommendedTypeChecked,
  // Layout is Prettier's (npm run format); no lint rule argues with it.
  prettier,
  {
    languageOptions: {
      parserOptions: {
        // One program per tsconfig, built once: about a quarter less CPU than the project service's
        // per-file look-ups for a lint of the whole tree.
        project: ['./tsconfig.json', './web/tsconfig.json'],
        tsconfigRootDir: import.meta.dirname,
      },
    },
    rules: {
      // `declare global { namespace Express { ... } }` is how Express's request types are extended.
      '@typescript-eslint/no-namespace': ['error', { allowDeclarations: true }],
      // `_name` marks a parameter an interface requires but this implementation does not read;
      // a destructured rest drops the named fields on purpose.
      '@typescript-eslint/no-unused-vars': ['error', { argsIgnorePattern: '^_', ignoreRestSiblings: true }],
      // Passing on a rejection of unknown type (an abort reason, a caught error) is not creating one.
      '@typescript-eslint/prefer-promise-reject-errors': ['error', { allowThrowingAny: true, allowThrowingUnknown: true }],
      // An async implementation of a Promise-returning interface needs no await to be right.
      '@typescript-eslint/require-await': 'off',
    },
  },
  {
    files: ['src/**/*.ts'],
    plugins: { boundaries },
    settings: {
      'boundaries/elements': ELEMENTS,
      'import/resolver': { typescript: { project: 'tsconfig.json' } },
    },
    rules: dependencyRule(),
  },
  ...Object.entries(NOT_YET_CONFINED).map(([file, exempt]) => ({ files: [file], rules: dependencyRule(exempt) })),
  {
    // Tests read parsed JSON replies and assert their shape; the unsafe-any rules guard production code.
    // chai's property assertions (`.to.be.empty`) are expressions by design.
    files: ['test/**/*.ts'],
    rules: {
      '@typescript-eslint/no-unused-expressions': 'off',
      '@typescript-eslint/no-unsafe-member-access': 'off',
      '@typescript-eslint/no-unsafe-assignment': 'off',
      '@typescript-eslint/no-unsafe-call': 'off',
      '@typescript-eslint/no-unsafe-argument': 'off',
      '@typescript-eslint/no-unsafe-return': 'off',
    },
  },
  {
    files: ['**/*.js', '**/*.mjs', '**/*.cjs'],
    extends: [tseslint.configs.disableTypeChecked],
    languageOptions: { globals: { process: 'readonly', URL: 'readonly', console: 'readonly' } },
  },
  {
    // CommonJS files (mocha's configurations) load with require by definition.
    files: ['**/*.cjs'],
    languageOptions: { sourceType: 'commonjs', globals: { module: 'writable', require: 'readonly' } },
    rules: { '@typescript-eslint/no-require-imports': 'off' },
  },
);
