import { expect } from 'chai';
import { loadConfig } from '../../src/roles/config.js';

describe('configuration', () => {
  it('takes an empty variable as unset: its default applies, and REDIS_URL counts as not configured', () => {
    const config = loadConfig({ REDIS_URL: '', PORT: '', LOG_LEVEL: '', QDRANT_URL: '', PLATFORM_TOKEN: '' });
    // Not the standard port: a Redis another program runs there is used only when REDIS_URL names it.
    expect(config.redis).to.deep.include({
      topology: { kind: 'single', url: 'redis://127.0.0.1:6390' },
      configured: false,
      replicaWait: { replicas: 0, timeoutMs: 1_000 },
    });
    expect(config.http.port).to.equal(8080);
    expect(config.logLevel).to.equal('info');
    expect(config.vectors.qdrant).to.equal(undefined);
    expect(config.platform.token).to.equal(undefined);
  });

  it('reads the session settings under their old names too, the new name winning, and says which were old', () => {
    const old = loadConfig({ CHECKPOINT_TTL_S: '120', CHECKPOINT_REDIS_DB: '3' });
    expect(old.chat.sessionTtlS).to.equal(120);
    expect(old.redis.sessionDb).to.equal(3);
    expect(old.renamedSettings).to.have.members([
      'CHECKPOINT_TTL_S is SESSION_TTL_S now; the old name still works',
      'CHECKPOINT_REDIS_DB is SESSION_REDIS_DB now; the old name still works',
    ]);
    const both = loadConfig({ CHECKPOINT_TTL_S: '120', SESSION_TTL_S: '240' });
    expect(both.chat.sessionTtlS).to.equal(240);
    expect(() => loadConfig({ CHECKPOINT_TTL_S: '5' })).to.throw(/^invalid configuration: CHECKPOINT_TTL_S:/);
  });

  it("takes the platform to be this service's own API on PORT unless told otherwise", () => {
    expect(loadConfig({}).platform).to.include({ isSelf: true, url: 'http://127.0.0.1:8080' });
    expect(loadConfig({ PORT: '8181' }).platform).to.include({ isSelf: true, url: 'http://127.0.0.1:8181' });
    expect(loadConfig({ PORT: '8181', PLATFORM_URL_LOCAL: 'https://nautobot.example/' }).platform).to.include({
      isSelf: false,
      url: 'https://nautobot.example',
    });
  });

  it("reads the tool server's lists and write plans' limit into their own sections", () => {
    const config = loadConfig({
      MCP_ALLOWED_HOSTS: ' tools.example , ,mcp.example',
      MCP_ALLOWED_ORIGINS: 'https://app.example/, http://127.0.0.1:3000',
      MCP_PUBLIC_URL: 'https://tools.example/',
      WRITE_MAX_OBJECTS: '7',
    });
    expect(config.toolServer).to.deep.include({
      allowedHosts: ['tools.example', 'mcp.example'],
      allowedOrigins: ['https://app.example', 'http://127.0.0.1:3000'],
      publicUrl: 'https://tools.example',
      writeConfirm: 'auto',
      confirmTtlMs: 300_000,
    });
    expect(config.writePlans.maxObjects).to.equal(7);
    expect(() => loadConfig({ MCP_ALLOWED_ORIGINS: 'https://app.example/path' })).to.throw(
      /^invalid configuration: MCP_ALLOWED_ORIGINS: comma-separated origins/,
    );
  });

  it('counts Redis as configured exactly when REDIS_URL is set, for every role alike', () => {
    const config = loadConfig({ REDIS_URL: 'redis://10.0.0.5:6380/1' });
    expect(config.redis).to.deep.include({ topology: { kind: 'single', url: 'redis://10.0.0.5:6380/1' }, configured: true });
  });

  it('reads a Sentinel or a Cluster topology, whose writes wait for one replica by default', () => {
    const sentinel = loadConfig({
      REDIS_SENTINELS: '10.0.0.1:26379, [::1]:26380',
      REDIS_SENTINEL_NAME: 'main',
      REDIS_SENTINEL_PASSWORD: 's',
      REDIS_PASSWORD: 'p',
    });
    expect(sentinel.redis.topology).to.deep.equal({
      kind: 'sentinel',
      sentinels: [
        { host: '10.0.0.1', port: 26379 },
        { host: '::1', port: 26380 },
      ],
      name: 'main',
      sentinelPassword: 's',
      password: 'p',
    });
    expect(sentinel.redis).to.deep.include({ configured: true, replicaWait: { replicas: 1, timeoutMs: 1_000 } });
    const cluster = loadConfig({ REDIS_CLUSTER_NODES: '10.0.0.1:7000,10.0.0.2:7000', REDIS_WAIT_REPLICAS: '0' });
    expect(cluster.redis.topology).to.deep.equal({
      kind: 'cluster',
      nodes: [
        { host: '10.0.0.1', port: 7000 },
        { host: '10.0.0.2', port: 7000 },
      ],
    });
    expect(cluster.redis.replicaWait.replicas).to.equal(0);
  });

  it('refuses two topologies at once and an address without a port', () => {
    expect(() => loadConfig({ REDIS_URL: 'redis://127.0.0.1:6379', REDIS_CLUSTER_NODES: '127.0.0.1:7000' })).to.throw(
      /REDIS_URL and REDIS_CLUSTER_NODES/,
    );
    expect(() => loadConfig({ REDIS_SENTINELS: '10.0.0.1' })).to.throw(/REDIS_SENTINELS/);
  });

  it('refuses an empty variable a chosen setting needs, naming it', () => {
    expect(() => loadConfig({ PLATFORM_ENV: 'prod', PLATFORM_URL_PROD: '' })).to.throw(/PLATFORM_URL_PROD/);
  });

  it('says which forms GIT_BASE_URL takes when given a plain path', () => {
    expect(() => loadConfig({ GIT_BASE_URL: '/srv/git' })).to.throw(
      /GIT_BASE_URL: a URL such as https:\/\/git\.example\.com or file:\/\/\/srv\/git/,
    );
  });

  it('names every bad variable of every section, one line each', () => {
    expect(() => loadConfig({ PORT: 'abc', PLATFORM_TIMEOUT_MS: 'soon', KB_CHUNK_MAX_CHARS: 'x' })).to.throw(
      /PORT.*\n.*PLATFORM_TIMEOUT_MS.*\n.*KB_CHUNK_MAX_CHARS/,
    );
  });
});
