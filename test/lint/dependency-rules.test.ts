import { expect } from 'chai';
import { ESLint, type Linter } from 'eslint';
import { readdirSync } from 'node:fs';
import path from 'node:path';
import { assertComponentDag } from '../../eslint/component-graph.js';
import { packagePath } from '../../src/kernel/package-root.js';

/** A module directly in `folder` to import (any will do: the rules look at folders and file kinds, and files move). */
function moduleIn(folder: string, kind: 'domain' | 'adapter' = 'domain'): string {
  const file = readdirSync(packagePath(folder)).find(
    (name) => name.endsWith('.ts') && name.endsWith('.adapter.ts') === (kind === 'adapter'),
  );
  if (!file) throw new Error(`no ${kind} .ts file directly in ${folder}/ to import in the samples`);
  return `${folder}/${file.replace(/\.ts$/, '.js')}`;
}

/** `import '<module>';` (or `import type { Sample } from '<module>';`) written in `file`, by a relative path. */
function importIn(file: string, module: string, kind: 'value' | 'type' = 'value'): string {
  const relative = path.relative(path.dirname(file), module);
  const specifier = relative.startsWith('.') ? relative : `./${relative}`;
  return kind === 'type' ? `import type { Sample } from '${specifier}';` : `import '${specifier}';`;
}

/**
 * The dependency rules of eslint.config.js, applied to imports written here as if they sat in a
 * file of the named folder: each rule must refuse the import it forbids and let the right one pass.
 */
describe('dependency rules', function () {
  this.timeout(30_000);

  const eslint = new ESLint({
    cwd: packagePath('.'),
    // The sample files do not exist, so they are parsed without type information; only the
    // dependency rule runs.
    overrideConfig: { languageOptions: { parserOptions: { projectService: false, project: null } } },
    ruleFilter: ({ ruleId }) => ruleId === 'boundaries/dependencies',
  });

  async function refusals(file: string, source: string): Promise<string[]> {
    const [result] = await eslint.lintText(`${source}\nexport {};\n`, { filePath: packagePath(file) });
    return (result?.messages ?? []).map((message) => `${message.ruleId ?? 'parser'}: ${message.message}`);
  }

  const chat = moduleIn('src/chat');
  const roles = moduleIn('src/roles');
  const chatAdapter = moduleIn('src/chat/adapters', 'adapter');
  const platformAdapter = moduleIn('src/platform/adapters', 'adapter');
  const redisClient = moduleIn('src/kernel/redis');
  const rules: { rule: string; refused: { file: string; source: string; says: RegExp }[]; allowed: { file: string; source: string }[] }[] =
    [
      {
        rule: 'the kernel never imports a component or role',
        refused: [
          { file: 'src/kernel/sample.ts', source: importIn('src/kernel/sample.ts', chat), says: /src\/kernel\/sample\.ts imports/ },
          { file: 'src/kernel/bullmq/sample.ts', source: importIn('src/kernel/bullmq/sample.ts', roles), says: /\.\.\/\.\.\/roles\// },
        ],
        allowed: [{ file: 'src/kernel/jobs/sample.ts', source: "import '../errors.js';" }],
      },
      {
        rule: 'a component imports only the components it lists in COMPONENT_IMPORTS',
        refused: [
          {
            file: 'src/chat/sample.ts',
            source: importIn('src/chat/sample.ts', moduleIn('src/tool-server')),
            says: /chat may not import tool-server \(it may import the kernel, api, records, mcp-client, write-plans\)/,
          },
          {
            file: 'src/endpoint-search/sample.ts',
            source: importIn('src/endpoint-search/sample.ts', moduleIn('src/knowledge')),
            says: /endpoint-search may not import knowledge/,
          },
          // A type is a dependency too: a cycle of type imports is still a cycle.
          {
            file: 'src/records/sample.ts',
            source: importIn('src/records/sample.ts', chat, 'type'),
            says: /records may not import chat/,
          },
          // A wiring module is composition, but its component's imports are still its component's.
          {
            file: 'src/chat/sample.wiring.ts',
            source: importIn('src/chat/sample.wiring.ts', moduleIn('src/tool-server')),
            says: /chat may not import tool-server/,
          },
        ],
        allowed: [
          { file: 'src/tool-server/sample.ts', source: importIn('src/tool-server/sample.ts', chat) },
          { file: 'src/chat/sample.ts', source: importIn('src/chat/sample.ts', moduleIn('src/mcp-client')) },
          { file: 'src/chat/sample.ts', source: "import '../kernel/errors.js';" },
        ],
      },
      {
        rule: 'components never import a role',
        refused: [{ file: 'src/chat/sample.ts', source: importIn('src/chat/sample.ts', roles), says: /src\/chat\/sample\.ts imports/ }],
        allowed: [{ file: 'src/roles/sample.ts', source: importIn('src/roles/sample.ts', chat) }],
      },
      {
        rule: 'roles never import the cli',
        refused: [{ file: 'src/roles/sample.ts', source: importIn('src/roles/sample.ts', moduleIn('src/cli')), says: /\.\.\/cli\// }],
        allowed: [{ file: 'src/cli/sample.ts', source: importIn('src/cli/sample.ts', roles) }],
      },
      {
        rule: 'domain code never imports an adapter',
        refused: [
          {
            file: 'src/chat/sample.ts',
            source: importIn('src/chat/sample.ts', chatAdapter),
            says: /src\/chat\/sample\.ts imports the adapter src\/chat\/adapters\//,
          },
          {
            file: 'src/endpoint-search/sample.ts',
            source: importIn('src/endpoint-search/sample.ts', platformAdapter),
            says: /the adapter src\/platform\/adapters\//,
          },
          {
            file: 'src/chat/sample.ts',
            source: "import './providers/openai.provider.js';",
            says: /the adapter src\/chat\/providers\/openai\.provider\.ts/,
          },
          {
            file: 'src/kernel/jobs/sample.ts',
            source: importIn('src/kernel/jobs/sample.ts', redisClient),
            says: /the adapter src\/kernel\/redis\//,
          },
        ],
        allowed: [
          { file: 'src/chat/adapters/sample.ts', source: importIn('src/chat/adapters/sample.ts', chatAdapter) },
          { file: 'src/chat/sample.adapter.ts', source: "import './providers/openai.provider.js';" },
          { file: 'src/roles/sample.ts', source: importIn('src/roles/sample.ts', platformAdapter) },
          { file: 'src/chat/sample.ts', source: "import './providers/provider.port.js';" },
          // A component's wiring module is composition: it builds the component's adapters.
          { file: 'src/chat/sample.wiring.ts', source: importIn('src/chat/sample.wiring.ts', chatAdapter) },
        ],
      },
      {
        rule: 'only the composition imports a wiring module',
        refused: [
          {
            file: 'src/chat/sample.ts',
            source: "import './chat.wiring.js';",
            says: /imports the wiring module src\/chat\/chat\.wiring\.ts/,
          },
          { file: 'src/chat/adapters/sample.ts', source: "import '../chat.wiring.js';", says: /imports the wiring module/ },
        ],
        allowed: [{ file: 'src/roles/sample.ts', source: "import '../chat/chat.wiring.js';" }],
      },
      {
        rule: 'ioredis only in src/kernel/redis',
        refused: [{ file: 'src/chat/sample.ts', source: "import type { Redis } from 'ioredis';", says: /imports ioredis/ }],
        allowed: [{ file: 'src/kernel/redis/sample.ts', source: "import type { Redis } from 'ioredis';" }],
      },
      {
        rule: 'bullmq only in src/kernel/bullmq',
        refused: [{ file: 'src/api/sample.ts', source: "import { Queue } from 'bullmq';", says: /imports bullmq/ }],
        allowed: [{ file: 'src/kernel/bullmq/sample.ts', source: "import { Queue } from 'bullmq';" }],
      },
      {
        rule: 'vector stores, embedding models, Git and LLM SDKs only in adapters',
        refused: [
          { file: 'src/knowledge/sample.ts', source: "import * as lancedb from '@lancedb/lancedb';", says: /imports @lancedb\/lancedb/ },
          { file: 'src/chat/providers/sample.ts', source: "import OpenAI from 'openai';", says: /imports openai/ },
        ],
        allowed: [
          { file: 'src/embeddings/adapters/sample.ts', source: "import * as lancedb from '@lancedb/lancedb';" },
          { file: 'src/chat/providers/sample.provider.ts', source: "import OpenAI from 'openai';" },
        ],
      },
      {
        rule: "the MCP SDK's client side only in adapters",
        refused: [
          {
            file: 'src/tool-server/sample.ts',
            source: "import { InMemoryTransport } from '@modelcontextprotocol/sdk/inMemory.js';",
            says: /imports @modelcontextprotocol\/sdk\/inMemory\.js/,
          },
          {
            file: 'src/mcp-client/sample.ts',
            source: "import { Client } from '@modelcontextprotocol/sdk/client/index.js';",
            says: /imports @modelcontextprotocol\/sdk\/client\/index\.js/,
          },
        ],
        allowed: [
          {
            file: 'src/tool-server/sample.adapter.ts',
            source: "import { InMemoryTransport } from '@modelcontextprotocol/sdk/inMemory.js';",
          },
          { file: 'src/mcp-client/adapters/sample.ts', source: "import { Client } from '@modelcontextprotocol/sdk/client/index.js';" },
          { file: 'src/mcp-client/sample.ts', source: "import type { CallToolResult } from '@modelcontextprotocol/sdk/types.js';" },
        ],
      },
      {
        rule: "the MCP SDK's server side only in the tool server",
        refused: [
          {
            file: 'src/roles/sample.ts',
            source: "import { McpServer } from '@modelcontextprotocol/sdk/server/mcp.js';",
            says: /imports @modelcontextprotocol\/sdk\/server\/mcp\.js/,
          },
        ],
        allowed: [
          { file: 'src/tool-server/tools/sample.ts', source: "import { McpServer } from '@modelcontextprotocol/sdk/server/mcp.js';" },
        ],
      },
    ];

  for (const { rule, refused, allowed } of rules) {
    describe(rule, () => {
      for (const { file, source, says } of refused) {
        it(`refuses \`${source}\` in ${file}`, async () => {
          const found = await refusals(file, source);
          expect(found).to.have.lengthOf(1);
          expect(found[0]).to.contain(`boundaries/dependencies: ${rule}: `);
          expect(found[0]).to.match(says);
        });
      }
      for (const { file, source } of allowed) {
        it(`allows \`${source}\` in ${file}`, async () => {
          expect(await refusals(file, source)).to.deep.equal([]);
        });
      }
    });
  }

  it('exempts only files that still break a rule (NOT_YET_CONFINED shrinks as files are fixed)', async () => {
    const ruleOf = async (file: string): Promise<Linter.RuleEntry> =>
      // undefined for an ignored (generated) file
      ((await eslint.calculateConfigForFile(packagePath(file))) as Linter.Config | undefined)?.rules?.['boundaries/dependencies'] ?? 'off';
    const every = await ruleOf('src/chat/sample.ts');
    const sources = ['src'].flatMap((folder) =>
      readdirSync(packagePath(folder), { recursive: true, encoding: 'utf8' })
        .filter((name) => name.endsWith('.ts'))
        .map((name) => path.join(folder, name)),
    );
    const exempt: string[] = [];
    for (const file of sources) {
      const rule = await ruleOf(file);
      if (rule !== 'off' && JSON.stringify(rule) !== JSON.stringify(every)) exempt.push(file);
    }
    const strict = new ESLint({
      cwd: packagePath('.'),
      overrideConfig: {
        languageOptions: { parserOptions: { projectService: false, project: null } },
        rules: { 'boundaries/dependencies': every },
      },
      ruleFilter: ({ ruleId }) => ruleId === 'boundaries/dependencies',
    });
    // lintFiles([]) would lint the whole project.
    const results = exempt.length === 0 ? [] : await strict.lintFiles(exempt.map((file) => packagePath(file)));
    const fixed = results.filter((result) => result.messages.length === 0);
    expect(
      fixed.map((result) => path.relative(packagePath('.'), result.filePath)),
      'these files keep every dependency rule now: remove them from NOT_YET_CONFINED in eslint.config.js',
    ).to.deep.equal([]);
  });
});

describe('COMPONENT_IMPORTS check', () => {
  it('accepts layers, lowest first', () => {
    expect(() => assertComponentDag({ kernel: [], records: ['kernel'], chat: ['records', 'kernel'] })).not.to.throw();
  });

  it('refuses a cycle, naming it', () => {
    expect(() => assertComponentDag({ records: ['health'], chat: ['records'], health: ['chat'] })).to.throw(
      'the components import each other in a cycle: records -> health -> chat -> records',
    );
  });

  it('refuses a component that imports itself', () => {
    expect(() => assertComponentDag({ chat: ['chat'] })).to.throw('a cycle: chat -> chat');
  });

  it('refuses an import of what is not a component', () => {
    expect(() => assertComponentDag({ chat: ['roles'] })).to.throw('chat may import roles, which is not a component');
  });
});
