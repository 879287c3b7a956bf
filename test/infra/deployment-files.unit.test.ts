import { expect } from 'chai';
import { readFileSync } from 'node:fs';
import { parse } from 'yaml';
import { packagePath } from '../../src/kernel/package-root.js';

interface Service {
  image?: string;
  build?: unknown;
  command?: string[];
  environment?: Record<string, string>;
  volumes?: string[];
  ports?: string[];
}

/** No Docker engine runs the compose file here, so its wiring is checked against the other files. */
describe('deployment files', () => {
  const compose = parse(readFileSync(packagePath('infra/docker-compose.yml'), 'utf8'), { merge: true }) as {
    services: Record<string, Service>;
  };
  const haproxy = readFileSync(packagePath('infra/haproxy/haproxy.cfg'), 'utf8');

  it('runs every role: redis, qdrant, web-a, web-b, worker (which schedules the periodic jobs), haproxy and the MCP server', () => {
    expect(Object.keys(compose.services)).to.have.members(['redis', 'qdrant', 'web-a', 'web-b', 'worker', 'haproxy', 'mcp']);
    expect(compose.services.worker?.command).to.deep.equal(['worker']);
    expect(compose.services.mcp?.command).to.deep.equal(['mcp', '--http', '8000']);
  });

  it('puts the API instances where the HAProxy configuration expects them', () => {
    for (const [name, port] of [
      ['web-a', '5001'],
      ['web-b', '5002'],
    ] as const) {
      expect(haproxy).to.match(new RegExp(`server ${name} ${name}:${port}\\b`));
      expect(compose.services[name]?.command).to.deep.equal(['api', '--port', port]);
      expect(compose.services[name]?.environment?.HOST).to.equal('0.0.0.0');
    }
    expect(compose.services.haproxy?.volumes).to.include('./haproxy/haproxy.cfg:/usr/local/etc/haproxy/haproxy.cfg:ro');
    expect(compose.services.haproxy?.ports).to.include.members(['60000:60000', '60001:60001']);
  });

  it('runs Redis with the shipped configuration', () => {
    expect(compose.services.redis?.volumes).to.include('./redis/redis.conf:/usr/local/etc/redis/redis.conf:ro');
    const conf = readFileSync(packagePath('infra/redis/redis.conf'), 'utf8');
    expect(conf)
      .to.match(/^appendonly yes$/m)
      .and.to.match(/^maxmemory-policy noeviction$/m)
      .and.to.match(/^bind 127\.0\.0\.1 -::1$/m);
  });

  it("installs with the README's commands alone: allowScripts keeps onnxruntime-node from downloading GPU libraries and CI sets no variable", () => {
    const manifest = JSON.parse(readFileSync(packagePath('package.json'), 'utf8')) as { allowScripts: Record<string, boolean> };
    expect(manifest.allowScripts).to.include({ 'onnxruntime-node': false });
    // Every dependency with an install script has been decided on: npm runs none it was not told about.
    const lock = JSON.parse(readFileSync(packagePath('package-lock.json'), 'utf8')) as {
      packages: Record<string, { hasInstallScript?: boolean }>;
    };
    const withScripts = Object.entries(lock.packages)
      .filter(([, entry]) => entry.hasInstallScript)
      .map(([where]) => where.split('node_modules/').pop());
    expect(Object.keys(manifest.allowScripts)).to.include.members([...new Set(withScripts)]);
    const ci = readFileSync(packagePath('.ci/run'), 'utf8');
    // It may put a newer Node first on PATH (the runtime CI tests on), and sets nothing else.
    expect(ci.match(/^\s*export\b.*$/gm) ?? []).to.deep.equal(['  export PATH']);
    expect(ci)
      .to.match(/^npm ci$/m)
      .and.to.match(/^npm test$/m);
  });

  it('gives the data folder to the user the image runs as, and installs without install scripts', () => {
    const lines = readFileSync(packagePath('Dockerfile'), 'utf8').split('\n');
    const at = (pattern: RegExp) => lines.findIndex((line) => pattern.test(line));
    const owned = at(/^RUN .*chown node:node \/data\b/);
    expect(owned, 'a RUN that gives /data to node').to.be.greaterThan(-1);
    // A named volume copies the folder, owner included, only when it is set up before VOLUME.
    expect(owned).to.be.lessThan(at(/^VOLUME \/data$/));
    expect(at(/^VOLUME \/data$/)).to.be.lessThan(at(/^USER node$/));
    // The image's npm predates allowScripts: no dependency's install script runs there.
    expect(at(/^RUN npm ci --ignore-scripts\b/)).to.be.greaterThan(-1);
    expect(lines.filter((line) => /ONNXRUNTIME/.test(line))).to.deep.equal([]);
  });

  it('names one backend consistently in the load balancer configuration', () => {
    const used = [...haproxy.matchAll(/default_backend (\S+)/g)].map((match) => match[1]);
    const defined = [...haproxy.matchAll(/^backend (\S+)/gm)].map((match) => match[1]);
    expect(used).to.deep.equal(defined);
  });
});
