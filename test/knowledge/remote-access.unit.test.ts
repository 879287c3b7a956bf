import { mkdir, mkdtemp, rm, symlink } from 'node:fs/promises';
import { tmpdir } from 'node:os';
import path from 'node:path';
import { expect } from 'chai';
import { PermissionDeniedError, UnavailableError, ValidationError } from '../../src/kernel/errors.js';
import { OutboundPolicy } from '../../src/kernel/http/outbound-policy.js';
import { remoteRequest, type RemoteAccess } from '../../src/knowledge/remote-access.js';

const BASE = 'https://git.example.com';

describe(remoteRequest.name, () => {
  const access: RemoteAccess = {
    baseUrl: BASE,
    baseToken: 'base-token',
    secrets: { resolve: async (name) => `value-of-${name}` },
    outbound: OutboundPolicy.fromList([]),
    localRoots: [],
  };

  it('sends GIT_TOKEN to GIT_BASE_URL only, and follows its redirects as before', async () => {
    expect(await remoteRequest({ name: 'acme/docs' }, access)).to.deep.equal({
      url: `${BASE}/acme/docs.git`,
      credential: { kind: 'token', token: 'base-token' },
      noRedirects: false,
    });
    expect(await remoteRequest({ name: 'acme/docs', url: 'https://140.82.112.3/acme/docs.git', trusted: true }, access)).to.deep.equal({
      url: 'https://140.82.112.3/acme/docs.git',
      credential: undefined,
      noRedirects: false,
    });
  });

  it('gives a repository its own secret as the credential its remote takes, and refuses redirects of one nobody vouched for', async () => {
    const https = await remoteRequest({ name: 'a/b', url: 'https://140.82.112.3/a/b.git', secret: 'tok', trusted: true }, access);
    expect(https.credential).to.deep.equal({ kind: 'token', token: 'value-of-tok' });
    const ssh = await remoteRequest({ name: 'a/b', url: 'git@140.82.112.3:a/b.git', secret: 'key', trusted: true }, access);
    expect(ssh.credential).to.deep.equal({ kind: 'ssh-key', key: 'value-of-key' });
    expect((await remoteRequest({ name: 'a/b', url: 'https://140.82.112.3/a/b.git', trusted: false }, access)).noRedirects).to.equal(true);
  });

  it('checks the host of a repository nobody vouched for again, and says when no secret can be read here', async () => {
    const refused = await remoteRequest({ name: 'a/b', url: 'https://10.0.0.5/a/b.git', trusted: false }, access).catch((e: Error) => e);
    expect(refused).to.be.instanceOf(PermissionDeniedError);
    expect((refused as Error).message).to.match(/10\.0\.0\.5 is now an internal address/);
    const trusted = await remoteRequest({ name: 'a/b', url: 'https://10.0.0.5/a/b.git', trusted: true }, access);
    expect(trusted.url).to.equal('https://10.0.0.5/a/b.git');
    const noRecords = await remoteRequest(
      { name: 'a/b', url: 'https://140.82.112.3/a/b.git', secret: 's', trusted: true },
      {
        ...access,
        secrets: undefined,
      },
    ).catch((e: Error) => e);
    expect(noRecords).to.be.instanceOf(UnavailableError);
  });

  it('reads a stored URL again as git will: an entry in the <transport>::<address> form is refused before any fetch', async () => {
    for (const url of ['https::http://127.0.0.1:18201/repo.git', 'http::http://169.254.169.254/a.git']) {
      for (const trusted of [false, true]) {
        const error = await remoteRequest({ name: 'a/b', url, trusted }, access).catch((e: Error) => e);
        expect(error, url).to.be.instanceOf(ValidationError);
      }
    }
  });

  it('resolves a local folder and checks it against KB_LOCAL_ROOTS before each fetch, giving git the real path', async () => {
    const root = await mkdtemp(path.join(tmpdir(), 'aiops-remote-access-'));
    try {
      const roots = path.join(root, 'roots');
      await mkdir(path.join(roots, 'docs'), { recursive: true });
      await mkdir(path.join(root, 'outside'));
      await symlink(path.join(roots, 'docs'), path.join(roots, 'alias'));
      const local = { ...access, localRoots: [roots] };
      const request = await remoteRequest({ name: 'a/b', url: `file://${path.join(roots, 'alias')}` }, local);
      expect(request.url).to.equal(`file://${path.join(roots, 'docs')}`);
      // The folder is swapped for a link out of the roots after it was added.
      await rm(path.join(roots, 'docs'), { recursive: true });
      await symlink(path.join(root, 'outside'), path.join(roots, 'docs'));
      const moved = await remoteRequest({ name: 'a/b', url: `file://${path.join(roots, 'docs')}`, trusted: true }, local).catch(
        (e: Error) => e,
      );
      expect(moved).to.be.instanceOf(PermissionDeniedError);
      const gone = await remoteRequest({ name: 'a/b', url: `file://${path.join(roots, 'gone')}` }, local).catch((e: Error) => e);
      expect(gone).to.be.instanceOf(ValidationError);
      const none = await remoteRequest({ name: 'a/b', url: `file://${path.join(roots, 'alias')}` }, access).catch((e: Error) => e);
      expect(none).to.be.instanceOf(PermissionDeniedError);
    } finally {
      await rm(root, { recursive: true, force: true });
    }
  });

  it('resolves the name of an http(s) remote nobody vouched for once, checks each address and holds git to them', async () => {
    const allowed = { ...access, outbound: OutboundPolicy.fromList(['localhost']) };
    const request = await remoteRequest({ name: 'a/b', url: 'http://localhost:18201/a/b.git', trusted: false }, allowed);
    expect(request.resolve)
      .to.match(/^localhost:18201:/)
      .and.to.match(/127\.0\.0\.1|\[::1\]/);
    const https = await remoteRequest({ name: 'a/b', url: 'https://localhost/a/b.git', trusted: false }, allowed);
    expect(https.resolve).to.match(/^localhost:443:/);
    const refused = await remoteRequest({ name: 'a/b', url: 'http://localhost:18201/a/b.git', trusted: false }, access).catch(
      (e: Error) => e,
    );
    expect(refused).to.be.instanceOf(PermissionDeniedError);
    expect((refused as Error).message).to.match(/localhost is now an internal address/);
    // A superuser's, GIT_BASE_URL's and an address given as such are not resolved here.
    expect(await remoteRequest({ name: 'a/b', url: 'http://localhost:18201/a/b.git', trusted: true }, access)).to.not.have.property(
      'resolve',
    );
    expect(await remoteRequest({ name: 'a/b' }, access)).to.not.have.property('resolve');
    expect(await remoteRequest({ name: 'a/b', url: 'https://140.82.112.3/a/b.git' }, access)).to.not.have.property('resolve');
  });
});
