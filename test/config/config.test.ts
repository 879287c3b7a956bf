import { expect } from 'chai';
import { loadConfig } from '../../shared/config/config.js';

describe('configuration', () => {
  it('takes an empty variable as unset: its default applies, and REDIS_URL counts as not configured', () => {
    const config = loadConfig({ REDIS_URL: '', PORT: '', LOG_LEVEL: '', QDRANT_URL: '', PLATFORM_TOKEN: '' });
    expect(config.redis).to.include({ url: 'redis://127.0.0.1:6379', configured: false });
    expect(config.http.port).to.equal(8080);
    expect(config.logLevel).to.equal('info');
    expect(config.vectors.qdrant).to.equal(undefined);
    expect(config.platform.token).to.equal(undefined);
  });

  it('counts Redis as configured exactly when REDIS_URL is set, for every role alike', () => {
    const config = loadConfig({ REDIS_URL: 'redis://10.0.0.5:6380/1' });
    expect(config.redis).to.include({ url: 'redis://10.0.0.5:6380/1', configured: true });
  });

  it('refuses an empty variable a chosen setting needs, naming it', () => {
    expect(() => loadConfig({ PLATFORM_ENV: 'prod', PLATFORM_URL_PROD: '' })).to.throw(/PLATFORM_URL_PROD/);
  });

  it('names every bad variable of every section, one line each', () => {
    expect(() => loadConfig({ PORT: 'abc', PLATFORM_TIMEOUT_MS: 'soon', KB_CHUNK_MAX_CHARS: 'x' })).to.throw(/PORT.*\n.*PLATFORM_TIMEOUT_MS.*\n.*KB_CHUNK_MAX_CHARS/);
  });
});
