import { expect } from 'chai';
import { redactUrl } from '../../src/roles/redis.js';

describe('redactUrl', () => {
  it('keeps where Redis is and hides who logs in with what', () => {
    expect(redactUrl('redis://ops:s3cret@redis.example:6380/1')).to.equal('redis://***:***@redis.example:6380/1');
    expect(redactUrl('redis://:s3cret@127.0.0.1:6379')).to.equal('redis://:***@127.0.0.1:6379');
    expect(redactUrl('redis://127.0.0.1:6379')).to.equal('redis://127.0.0.1:6379');
    expect(redactUrl('not a url')).to.not.include('not a url');
  });
});
