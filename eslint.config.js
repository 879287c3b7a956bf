// @ts-check
import { existsSync, readdirSync } from 'node:fs';
import path from 'node:path';
import js from '@eslint/js';
import boundaries from 'eslint-plugin-boundaries';
import prettier from 'eslint-config-prettier';
import tseslint from 'typescript-eslint';
import { assertComponentDag } from './eslint/component-graph.js';
import { tsImport } from 'tsx/esm/api';

// The provider kinds name their SDKs once, for the lint as for the code (loaded through tsx, as the tests
// load TypeScript, so that the lint runs on every Node the service does).
/** @type {{ PROVIDER_KINDS: Record<string, { sdks: readonly string[] }> }} */
const { PROVIDER_KINDS } = await tsImport('./src/records/provider-kinds.ts', import.meta.url);

/**
 * Which components each component of src/ may import, lowest first (every component may import the
 * kernel). Besides these, the kernel imports no component, the roles import every component but not the
 * cli, and the cli imports anything: so the folders of src/ import each other in no cycle, which
 * assertComponentDag checks below.
 * @type {Record<string, string[]>}
 */
const COMPONENT_IMPORTS = {
  // The HTTP shell: the Express app's middleware, the OpenAPI document and its generated types.
  api: [],
  records: ['api'],
  embeddings: [],
  'mcp-client': ['api', 'records'],
  platform: ['api'],
  'endpoint-search': ['platform', 'embeddings'],
  // Plans of writes to the platform: read under a user's rights, checked against the platform's description.
  'write-plans': ['platform', 'endpoint-search'],
  knowledge: ['embeddings', 'api'],
  health: ['api', 'records', 'mcp-client'],
  // Chat shows, keeps and re-checks the plans of the writes it proposes.
  chat: ['api', 'records', 'mcp-client', 'write-plans'],
  // The tool server implements chat's tool port (its built-in tools).
  'tool-server': ['api', 'records', 'platform', 'mcp-client', 'endpoint-search', 'write-plans', 'knowledge', 'chat'],
};
const NOT_COMPONENTS = ['kernel', 'roles', 'cli'];

assertComponentDag(COMPONENT_IMPORTS);
const folders = readdirSync(path.join(import.meta.dirname, 'src'), { withFileTypes: true })
  .filter((entry) => entry.isDirectory())
  .map((entry) => entry.name);
const unlisted = folders.filter((name) => !NOT_COMPONENTS.includes(name) && !(name in COMPONENT_IMPORTS));
if (unlisted.length > 0) {
  throw new Error(
    `eslint.config.js: COMPONENT_IMPORTS has no entry for src/${unlisted.join(', src/')}; list the components each may import`,
  );
}
const gone = Object.keys(COMPONENT_IMPORTS).filter((name) => !folders.includes(name));
if (gone.length > 0) throw new Error(`eslint.config.js: COMPONENT_IMPORTS lists ${gone.join(', ')}, no folder of src/; remove the entry`);

/** One element per folder of src/: the kernel, the roles, the cli, and each component by its folder's name. */
const ELEMENTS = [
  { type: 'kernel', pattern: 'src/kernel', partialMatch: false },
  { type: 'roles', pattern: 'src/roles', partialMatch: false },
  { type: 'cli', pattern: 'src/cli', partialMatch: false },
  { type: 'component', pattern: 'src/*', capture: ['component'], partialMatch: false },
];

/**
 * What a file is within its element. Adapters wrap a technology behind a port: a component's
 * adapters/ folder, any *.adapter.ts, the LLM providers, and the kernel's Redis and BullMQ clients.
 * The composition (roles, cli, and each component's wiring module) builds them; everything else is domain code.
 */
const FILES = [
  { category: 'redis-client', pattern: 'src/kernel/redis/**' },
  { category: 'bullmq-client', pattern: 'src/kernel/bullmq/**' },
  {
    category: 'adapter',
    pattern: [
      'src/*/adapters/**',
      'src/**/*.adapter.ts',
      'src/chat/providers/*.provider.ts',
      'src/kernel/redis/**',
      'src/kernel/bullmq/**',
    ],
    stopMatching: true,
  },
  // A component's wiring module (`<component>.wiring.ts`) builds its own adapters for the roles, which assemble the components.
  { category: 'wiring', pattern: 'src/*/*.wiring.ts' },
  { category: 'composition', pattern: ['src/roles/**', 'src/cli/**', 'src/*/*.wiring.ts'], stopMatching: true },
  { category: 'domain', pattern: 'src/**' },
];

const notIn = (/** @type {string[]} */ categories) => ({ file: { categories: { noneOf: categories } } });
/** An import of the library `source` (any of them), or of the library's modules under `internalPath`. */
const externalModule = (/** @type {string | string[]} */ source, /** @type {string[] | undefined} */ internalPath = undefined) => ({
  to: { module: { origin: 'external', source, ...(internalPath ? { internalPath } : {}) } },
});

/** Technologies only adapters import: vector stores, the embedding model, Git, the LLM providers' SDKs, the OpenTelemetry SDK. */
const ADAPTER_LIBRARIES = [
  '@lancedb/lancedb',
  'apache-arrow',
  '@qdrant/js-client-rest',
  '@huggingface/transformers',
  'simple-git',
  ...new Set(Object.values(PROVIDER_KINDS).flatMap((kind) => kind.sdks)),
  '@opentelemetry/sdk-trace',
  '@opentelemetry/exporter-trace-otlp-http',
  '@opentelemetry/resources',
  '@opentelemetry/context-async-hooks',
  '@opentelemetry/core',
];

/**
 * Which way dependencies may point, by rule name (the name starts every message, and is what
 * NOT_YET_CONFINED exempts a file from).
 * @type {Record<string, import('eslint-plugin-boundaries').DependenciesPolicy[]>}
 */
const DEPENDENCY_RULES = {
  'the kernel never imports a component or role': [
    {
      from: { element: { type: 'kernel' } },
      disallow: { to: { element: { types: { anyOf: ['component', 'roles', 'cli'] } } } },
    },
  ],
  'a component imports only the components it lists in COMPONENT_IMPORTS': Object.entries(COMPONENT_IMPORTS).map(
    ([component, allowed]) => ({
      from: { element: { type: 'component', captured: { component } } },
      disallow: { to: { element: { type: 'component', captured: { component: `!(${[component, ...allowed].join('|')})` } } } },
      message: `${component} may not import {{to.element.captured.component}} (it may import the kernel${allowed.map((name) => `, ${name}`).join('')})`,
    }),
  ),
  'components never import a role': [
    {
      from: { element: { type: 'component' } },
      disallow: { to: { element: { types: { anyOf: ['roles', 'cli'] } } } },
    },
  ],
  'roles never import the cli': [{ from: { element: { type: 'roles' } }, disallow: { to: { element: { type: 'cli' } } } }],
  'domain code never imports an adapter': [
    {
      from: { file: { categories: 'domain' } },
      disallow: { to: { file: { categories: 'adapter' } } },
      message: '{{from.file.path}} imports the adapter {{to.file.path}}: take it as a port, built by the composition (src/roles)',
    },
  ],
  // A wiring module builds adapters: domain code and adapters take what it builds from the roles, never import it.
  'only the composition imports a wiring module': [
    {
      from: notIn(['composition']),
      disallow: { to: { file: { categories: 'wiring' } } },
      message: '{{from.file.path}} imports the wiring module {{to.file.path}}: only src/roles and src/cli assemble the wiring',
    },
  ],
  'ioredis only in src/kernel/redis': [{ from: notIn(['redis-client']), disallow: externalModule('ioredis') }],
  'bullmq only in src/kernel/bullmq': [{ from: notIn(['bullmq-client']), disallow: externalModule('bullmq') }],
  'vector stores, embedding models, Git and LLM SDKs only in adapters': [
    { from: notIn(['adapter']), disallow: externalModule(ADAPTER_LIBRARIES) },
  ],
  // In-process tools are an adapter too: chat's tool port over an in-memory MCP connection.
  "the MCP SDK's client side only in adapters": [
    { from: notIn(['adapter']), disallow: externalModule('@modelcontextprotocol/sdk', ['client/**', 'inMemory.js']) },
  ],
  "the MCP SDK's server side only in the tool server": [
    {
      from: { file: { path: '!src/tool-server/**' } },
      disallow: externalModule('@modelcontextprotocol/sdk', ['server/**']),
    },
  ],
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

/** The `boundaries/dependencies` rule with every dependency rule except `exempt`; each message starts with its rule's name. */
function dependencyRule(exempt = []) {
  const policies = Object.entries(DEPENDENCY_RULES)
    .filter(([name]) => !exempt.includes(name))
    .flatMap(([name, rule]) =>
      rule.map((policy) => ({ ...policy, message: `${name}: ${policy.message ?? '{{from.file.path}} imports {{dependency.source}}'}` })),
    );
  return { 'boundaries/dependencies': ['error', { default: 'allow', checkAllOrigins: true, checkInternals: true, policies }] };
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
      'no-restricted-properties': [
        'error',
        {
          object: 'AbortSignal',
          property: 'any',
          message:
            'Use linkedSignal (src/kernel/linked-signal.ts): on Node 20 AbortSignal.any holds its sources weakly, so a garbage collection can take a timeout among them and its time limit never comes.',
        },
      ],
    },
  },
  {
    files: ['src/**/*.ts'],
    plugins: { boundaries },
    settings: {
      'boundaries/elements': ELEMENTS,
      'boundaries/files': FILES,
      'boundaries/dependency-nodes': ['import', 'dynamic-import', 'export'],
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
