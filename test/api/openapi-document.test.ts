import { Validator } from '@seriousme/openapi-schema-validator';
import { expect } from 'chai';
import { readFileSync } from 'node:fs';
import { parse } from 'yaml';
import { createApp } from '../../src/roles/api-app.js';
import { BODILESS_METHODS } from '../../src/api/middleware/unread-body.js';
import { loadOpenApiDocument } from '../../src/api/openapi.js';
import { PERMISSIONS } from '../../src/records/auth/permissions.js';
import { silentLogger } from '../../src/kernel/logging/logger.js';
import { createMetrics } from '../../src/kernel/metrics/metrics.js';
import { packagePath } from '../../src/kernel/package-root.js';
import { startTestApi, type TestApi } from '../support/api.js';

interface Layer {
  route?: { path: string; methods: Record<string, boolean> };
  handle: { stack?: Layer[] };
}

/** Every (METHOD, path) the Express app mounts, with `:id` written as `{id}`. */
function mountedRoutes(stack: Layer[]): string[] {
  return stack.flatMap((layer) => {
    if (layer.route) {
      const path = layer.route.path.replace(/:(\w+)/g, '{$1}');
      return Object.keys(layer.route.methods).map((method) => `${method.toUpperCase()} ${path}`);
    }
    return layer.handle.stack ? mountedRoutes(layer.handle.stack) : [];
  });
}

const METHODS = ['get', 'put', 'post', 'delete', 'patch', 'options'];
/** Operations any valid token may call: this document, the token's own description, the API's roots and status, the token's own usage. */
const ANY_TOKEN = new Set([
  '/api/docs/',
  '/api/users/tokens/me/',
  '/api/status/',
  '/api/extras/',
  '/api/plugins/',
  '/api/plugins/ai-ops/',
  '/api/users/',
  '/api/plugins/ai-ops/usage/',
]);

describe('OpenAPI document', () => {
  let sut: TestApi;
  const document = loadOpenApiDocument();

  before(async () => {
    sut = await startTestApi();
  });
  after(async () => {
    await sut.close();
  });

  it('is a valid OpenAPI 3 document', async () => {
    const result = await new Validator().validate(structuredClone(document) as unknown as Record<string, unknown>);
    expect(result.errors ?? [], JSON.stringify(result.errors)).to.deep.equal([]);
    expect(result.valid).to.equal(true);
  });

  it('is served at /api/docs/?format=openapi, identical to the file', async () => {
    const served = await sut.call('GET', '/api/docs/?format=openapi');
    expect(served.status).to.equal(200);
    expect(served.body).to.deep.equal(parse(readFileSync(packagePath('src/api/openapi.yaml'), 'utf8')));
  });

  it('documents every mounted route, and every documented operation is mounted', () => {
    const app = createApp({
      records: sut.records,
      readiness: async () => ({ ready: true, redis: 'ok' as const }),
      document,
      logger: silentLogger(),
      version: 'test',
      metrics: createMetrics(),
    });
    const mounted = new Set(mountedRoutes((app as unknown as { router: { stack: Layer[] } }).router.stack));
    const documented = new Set(
      Object.entries(document.paths).flatMap(([path, item]) =>
        METHODS.filter((method) => method in (item as object)).map((method) => `${method.toUpperCase()} ${path}`),
      ),
    );
    expect(
      [...mounted].filter((route) => !documented.has(route)),
      'mounted but not documented',
    ).to.deep.equal([]);
    expect(
      [...documented].filter((route) => !mounted.has(route)),
      'documented but not mounted',
    ).to.deep.equal([]);
  });

  it('describes the error shapes of every operation (a default response)', () => {
    for (const [path, item] of Object.entries(document.paths)) {
      for (const method of METHODS) {
        const operation = (item as Record<string, { responses?: Record<string, unknown> }>)[method];
        if (operation) expect(operation.responses, `${method.toUpperCase()} ${path}`).to.have.property('default');
      }
    }
  });

  it('takes no body on the methods whose bodies the API drops unread (GET, HEAD, DELETE, OPTIONS)', () => {
    for (const [path, item] of Object.entries(document.paths)) {
      for (const method of [...BODILESS_METHODS].map((name) => name.toLowerCase())) {
        const operation = (item as Record<string, { requestBody?: unknown }>)[method];
        if (operation) expect(operation.requestBody, `${method.toUpperCase()} ${path}`).to.equal(undefined);
      }
    }
  });

  it('names a known permission (or superuser) on every authenticated operation but those open to any token', () => {
    for (const [path, item] of Object.entries(document.paths)) {
      for (const method of METHODS) {
        const operation = (item as Record<string, { security?: unknown[]; 'x-aiops-permission'?: string }>)[method];
        if (!operation || ANY_TOKEN.has(path)) continue;
        if (Array.isArray(operation.security) && operation.security.length === 0) continue;
        expect([...PERMISSIONS, 'superuser'], `${method.toUpperCase()} ${path}`).to.include(operation['x-aiops-permission']);
      }
    }
  });
});
