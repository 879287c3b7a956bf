import { expect } from 'chai';
import { redactUrl, usingRedis } from '../../src/roles/redis.js';

describe('redactUrl', () => {
  it('keeps where Redis is and hides who logs in with what', () => {
    expect(redactUrl('redis://ops:s3cret@redis.example:6380/1')).to.equal('redis://***:***@redis.example:6380/1');
    expect(redactUrl('redis://:s3cret@127.0.0.1:6379')).to.equal('redis://:***@127.0.0.1:6379');
    expect(redactUrl('redis://127.0.0.1:6379')).to.equal('redis://127.0.0.1:6379');
    expect(redactUrl('not a url')).to.not.include('not a url');
  });
});

describe('usingRedis', () => {
  const single = { kind: 'single', url: 'redis://127.0.0.1:6390' } as const;
  const redis = (configured: boolean) => ({
    topology: single,
    configured,
    keyPrefix: 'aiops',
    sessionDb: 1,
    replicaWait: { replicas: 0, timeoutMs: 0 },
  });

  it('names the setting that says where Redis is, or the default address when none is set', () => {
    expect(usingRedis(redis(true))).to.equal('using the Redis at REDIS_URL');
    expect(usingRedis(redis(false))).to.equal('using the Redis at the default address (REDIS_URL is unset)');
  });
});
