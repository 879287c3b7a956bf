import { expect } from 'chai';
import { execFile } from 'node:child_process';
import { promisify } from 'node:util';
import { parse } from 'yaml';
import { packagePath } from '../../src/kernel/package-root.js';
import { skipUnlessInstalled } from '../support/installed.js';

const run = promisify(execFile);

interface Service {
  command?: string[];
  environment?: Record<string, string>;
  depends_on?: Record<string, { condition: string }>;
  healthcheck?: { test: string[] };
  volumes?: Array<string | { source?: string; target: string }>;
}

/** The URL a `node -e "fetch('...')..."` health check asks. */
function checkedUrl(service: Service): URL {
  const script = service.healthcheck?.test.at(-1) ?? '';
  const url = /fetch\('([^']+)'\)/.exec(script)?.[1];
  expect(url, script).to.be.a('string');
  return new URL(url!);
}

/**
 * The compose file as Docker Compose itself reads it: Debian's `docker-compose` resolves anchors,
 * merges and variables and checks the schema without an engine (`docker compose config` needs one).
 */
describe('the compose file, read by docker-compose', function () {
  this.timeout(60_000);
  let services: Record<string, Service>;

  before(async function () {
    skipUnlessInstalled(this, ['docker-compose'], 'docker-compose');
    const { stdout } = await run('docker-compose', ['-f', 'infra/docker-compose.yml', 'config'], {
      cwd: packagePath('.'),
      env: { PATH: process.env.PATH, HOME: process.env.HOME },
    });
    services = (parse(stdout) as { services: Record<string, Service> }).services;
  });

  it('gives Redis, Qdrant, both API instances, the worker and the tool server a health check', () => {
    for (const name of ['redis', 'qdrant', 'web-a', 'web-b', 'worker', 'mcp']) {
      expect(services[name]?.healthcheck?.test, name).to.be.an('array').that.is.not.empty;
    }
    // Each API instance is checked on its own port, at /status as HAProxy does.
    for (const name of ['web-a', 'web-b']) {
      const port = services[name]!.command!.at(-1);
      expect(checkedUrl(services[name]!).toString()).to.equal(`http://127.0.0.1:${port}/status`);
    }
    expect(checkedUrl(services.worker!).port).to.equal(services.worker!.environment!.METRICS_PORT);
  });

  it('starts each service only after what it needs is healthy', () => {
    for (const name of ['web-a', 'web-b', 'worker', 'mcp']) {
      expect(services[name]?.depends_on, name).to.deep.include({
        redis: { condition: 'service_healthy' },
        qdrant: { condition: 'service_healthy' },
      });
    }
    expect(services.haproxy?.depends_on).to.deep.equal({
      'web-a': { condition: 'service_healthy' },
      'web-b': { condition: 'service_healthy' },
    });
  });

  it('lets the tool server answer only the Host names it is reached by, its own health check included', () => {
    const mcp = services.mcp!;
    expect(mcp.environment?.HOST).to.equal('0.0.0.0');
    const allowed = (mcp.environment?.MCP_ALLOWED_HOSTS ?? '').split(',');
    expect(allowed).to.include('mcp');
    expect(allowed).to.include(checkedUrl(mcp).hostname);
    expect(checkedUrl(mcp).port).to.equal(mcp.command!.at(-1));
  });

  it('mounts the data volume where the image keeps DATA_DIR', () => {
    for (const name of ['web-a', 'web-b', 'worker', 'mcp']) {
      // docker-compose writes short syntax with the mode (`:rw`) appended.
      const mounts = (services[name]?.volumes ?? []).map((volume) =>
        typeof volume === 'string' ? volume.replace(/:rw$/, '') : `${volume.source}:${volume.target}`,
      );
      expect(mounts, name).to.include('aiops-data:/data');
      expect(services[name]?.environment?.DATA_DIR, name).to.equal('/data');
    }
  });
});
