import { mkdir, mkdtemp, rm, symlink } from 'node:fs/promises';
import { tmpdir } from 'node:os';
import path from 'node:path';
import { expect } from 'chai';
import { PermissionDeniedError, ValidationError } from '../../src/kernel/errors.js';
import { OutboundPolicy } from '../../src/kernel/http/outbound-policy.js';
import { admitRepository, OPERATOR_WRITER, type RepositoryRules } from '../../src/knowledge/repository-admission.js';
import {
  ACCEPTED_FORMS,
  credentialKind,
  defaultName,
  gitTransport,
  parseRemote,
  type GitTransport,
} from '../../src/knowledge/repository-remote.js';

const USER = { superuser: false };

describe('repository sources', () => {
  describe(parseRemote.name, () => {
    it('reads owner/name, https, ssh, scp-like, file:// and absolute folders, each with the name it is listed under', () => {
      const cases: Array<[string, string, string, string | undefined]> = [
        ['acme/netdocs', 'base', '', 'acme/netdocs'],
        ['acme/netdocs/', 'base', '', 'acme/netdocs'],
        ['https://gitlab.example.com/net/team/netdocs.git', 'https', 'https://gitlab.example.com/net/team/netdocs.git', 'team/netdocs'],
        ['http://gitea.lan:3000/ops/configs', 'http', 'http://gitea.lan:3000/ops/configs', 'ops/configs'],
        ['https://git.example.com/netdocs.git', 'https', 'https://git.example.com/netdocs.git', 'git.example.com/netdocs'],
        ['ssh://git@git.example.com:2222/net/netdocs.git', 'ssh', 'ssh://git@git.example.com:2222/net/netdocs.git', 'net/netdocs'],
        ['git@gitlab.example.com:net/netdocs.git', 'ssh', 'git@gitlab.example.com:net/netdocs.git', 'net/netdocs'],
        ['file:///srv/git/netdocs.git', 'local', 'file:///srv/git/netdocs.git', 'git/netdocs'],
        ['/srv/git/../git/netdocs/', 'local', 'file:///srv/git/netdocs', 'git/netdocs'],
        ['/netdocs', 'local', 'file:///netdocs', 'local/netdocs'],
        ['git+ssh://git@git.example.com/net/netdocs.git', 'ssh', 'ssh://git@git.example.com/net/netdocs.git', 'net/netdocs'],
        ['ssh+git://git.example.com/net/netdocs.git', 'ssh', 'ssh://git.example.com/net/netdocs.git', 'net/netdocs'],
        ['/srv/git:mirror/netdocs.git', 'local', 'file:///srv/git:mirror/netdocs.git', undefined],
      ];
      for (const [text, kind, url, name] of cases) {
        const remote = parseRemote(text, 'repo');
        expect({ kind: remote.kind, url: remote.url, name: defaultName(remote) }, text).to.deep.equal({ kind, url, name });
      }
    });

    it('refuses what git must never be given, listing the accepted forms', () => {
      for (const text of [
        'netdocs',
        '../../etc',
        'ext::sh -c touch% /tmp/pwned',
        'git://example.com/acme/netdocs.git',
        'https://user:token@example.com/acme/netdocs.git',
        'https://example.com/',
        'https://example.com/acme/netdocs.git?ref=main',
        'ssh://-oProxyCommand=touch%20x/acme/netdocs',
        '-upload-pack=touch/x',
        'git@-oProxyCommand=x:acme/netdocs',
        'acme/net docs',
        // git's <transport>::<address>: git hands the address to git-remote-<transport>, whatever it names.
        'https::http://127.0.0.1:18201/repo.git',
        'http::http://127.0.0.1:18201/repo.git',
        'https::http://169.254.169.254/latest/meta-data/repo.git',
        'HTTPS::https://git.example.com/acme/netdocs.git',
        'ssh::git@git.example.com:acme/netdocs.git',
        'file::/srv/git/netdocs.git',
        'fd::3',
        'ext::sh%20-c%20id',
        'git-remote.x::anything',
        // Transports and helpers beyond https, http, ssh and file.
        'ftp://git.example.com/acme/netdocs.git',
        'ftps://git.example.com/acme/netdocs.git',
        'rsync://git.example.com/acme/netdocs.git',
        'persistent-https://git.example.com/acme/netdocs.git',
        // What URL parsers read differently, and relative folders.
        'http://127.0.0.1\\@git.example.com/acme/netdocs.git',
        'https://git.example.com\\acme/netdocs.git',
        './netdocs',
        'acme/netdocs/sub',
      ]) {
        const error = (() => {
          try {
            parseRemote(text, 'repo');
          } catch (caught) {
            return caught;
          }
          return undefined;
        })();
        expect(error, text).to.be.instanceOf(ValidationError);
        expect((error as ValidationError).fields.repo![0], text).to.include(ACCEPTED_FORMS);
      }
    });

    it('reads each form in the order git does, with the transport git would use', () => {
      const cases: Array<[string, GitTransport | undefined]> = [
        ['https://git.example.com/a/b.git', 'https'],
        ['HTTP://git.example.com/a/b.git', 'http'],
        ['ssh://git@git.example.com:2222/a/b.git', 'ssh'],
        ['git+ssh://git.example.com/a/b.git', 'ssh'],
        ['ssh+git://git.example.com/a/b.git', 'ssh'],
        ['git@git.example.com:a/b.git', 'ssh'],
        ['git.example.com:a/b.git', 'ssh'],
        ['[git@git.example.com:22]:a/b.git', 'ssh'],
        ['file:///srv/git/b.git', 'file'],
        ['/srv/git/b.git', 'file'],
        ['/srv/git:b.git', 'file'],
        ['srv/git:b.git', 'file'],
        ['b.git', 'file'],
        ['git://git.example.com/a/b.git', undefined],
        ['ftp://git.example.com/a/b.git', undefined],
        ['foo://git.example.com/a/b.git', undefined],
        ['https::http://127.0.0.1:18201/repo.git', undefined],
        ['http::http://169.254.169.254/a.git', undefined],
        ['ext::sh -c id', undefined],
        ['fd::3', undefined],
        ['a+b.c-d::x', undefined],
      ];
      for (const [url, transport] of cases) expect(gitTransport(url), url).to.equal(transport);
    });

    it('says which credential each remote takes', () => {
      expect(credentialKind('https://example.com/a/b.git')).to.equal('token');
      expect(credentialKind('ssh://git@example.com/a/b.git')).to.equal('ssh-key');
      expect(credentialKind('git@example.com:a/b.git')).to.equal('ssh-key');
      expect(credentialKind('file:///srv/git/b.git')).to.equal(undefined);
      expect(credentialKind('https::http://127.0.0.1/a/b.git')).to.equal(undefined);
    });
  });

  describe(admitRepository.name, () => {
    let root: string;
    let rules: RepositoryRules;

    beforeEach(async () => {
      root = await mkdtemp(path.join(tmpdir(), 'aiops-kb-admit-'));
      await mkdir(path.join(root, 'repos', 'netdocs'), { recursive: true });
      rules = { outbound: OutboundPolicy.fromList([]), localRoots: [path.join(root, 'repos')] };
    });
    afterEach(() => rm(root, { recursive: true, force: true }));

    const refusal = (promise: Promise<unknown>) =>
      promise.then(
        () => expect.fail('should have been refused'),
        (error: unknown) => error as Error,
      );

    it('keeps owner/name on GIT_BASE_URL as it was: branch main by default, no URL', async () => {
      const entry = await admitRepository({ repo: 'acme/netdocs' }, USER, rules);
      expect(entry).to.deep.include({ name: 'acme/netdocs', branch: undefined, trusted: false });
      expect(entry).to.not.have.property('url');
    });

    it("takes a URL with its remote's default branch, a given branch and a given name", async () => {
      const entry = await admitRepository({ repo: 'https://140.82.112.3/net/netdocs.git' }, USER, rules);
      expect(entry).to.deep.include({ name: 'net/netdocs', branch: 'HEAD', url: 'https://140.82.112.3/net/netdocs.git', trusted: false });
      const named = await admitRepository({ repo: 'https://140.82.112.3/net/netdocs.git', name: 'ops/docs', branch: 'prod' }, USER, rules);
      expect(named).to.deep.include({ name: 'ops/docs', branch: 'prod' });
    });

    it('refuses a folder outside KB_LOCAL_ROOTS to everyone, and any folder when none is listed', async () => {
      const inside = await admitRepository({ repo: path.join(root, 'repos', 'netdocs') }, USER, rules);
      expect(inside.url).to.equal(`file://${path.join(root, 'repos', 'netdocs')}`);
      for (const repo of ['/etc', `file://${root}/other`, path.join(root, 'repos', '..', 'other')]) {
        const error = await refusal(admitRepository({ repo }, OPERATOR_WRITER, rules));
        expect(error, repo).to.be.instanceOf(PermissionDeniedError);
        expect(error.message).to.include('KB_LOCAL_ROOTS');
      }
      const none = await refusal(
        admitRepository({ repo: path.join(root, 'repos', 'netdocs') }, OPERATOR_WRITER, { ...rules, localRoots: [] }),
      );
      expect(none.message).to.match(/none is listed/);
    });

    it('refuses a folder that does not exist under a root: it could later become a link to anywhere', async () => {
      const error = await refusal(admitRepository({ repo: path.join(root, 'repos', 'later') }, OPERATOR_WRITER, rules));
      expect(error).to.be.instanceOf(ValidationError);
      expect(JSON.stringify((error as ValidationError).fields)).to.include('is not a folder on this machine');
      // Outside the roots, the answer is the same whether the folder exists or not.
      for (const repo of ['/etc', path.join(root, 'no-such-folder')]) {
        expect((await refusal(admitRepository({ repo }, USER, rules))).message, repo).to.match(/is not under a folder of KB_LOCAL_ROOTS/);
      }
    });

    it('follows a symbolic link under a root to where it leads before deciding', async () => {
      await symlink('/etc', path.join(root, 'repos', 'etc'));
      const error = await refusal(admitRepository({ repo: path.join(root, 'repos', 'etc') }, OPERATOR_WRITER, rules));
      expect(error).to.be.instanceOf(PermissionDeniedError);
    });

    it('lets only a superuser name a secret or an internal host (OUTBOUND_ALLOW lists exceptions)', async () => {
      const secret = await refusal(admitRepository({ repo: 'https://140.82.112.3/net/netdocs.git', secret: 'gitlab-token' }, USER, rules));
      expect(secret).to.be.instanceOf(PermissionDeniedError);
      expect(secret.message).to.match(/^secret: only a superuser/);
      for (const repo of ['https://10.1.2.3/net/netdocs.git', 'ssh://git@127.0.0.1/net/netdocs.git', 'git@[::1]:net/netdocs.git']) {
        const error = await refusal(admitRepository({ repo }, USER, rules));
        expect(error, repo).to.be.instanceOf(PermissionDeniedError);
        expect(error.message).to.match(/internal address/);
      }
      const allowed = await admitRepository({ repo: 'https://10.1.2.3/net/netdocs.git' }, USER, {
        ...rules,
        outbound: OutboundPolicy.fromList(['10.0.0.0/8']),
      });
      expect(allowed.trusted).to.equal(false);
      const superuser = await admitRepository({ repo: 'https://10.1.2.3/net/netdocs.git', secret: 'gitlab-token' }, OPERATOR_WRITER, rules);
      expect(superuser).to.deep.include({ secret: 'gitlab-token', trusted: true });
    });

    it('refuses a secret sent in clear or to a folder, and a name that is no owner/name', async () => {
      const http = await refusal(admitRepository({ repo: 'http://140.82.112.3/a/b.git', secret: 's' }, OPERATOR_WRITER, rules));
      expect(http).to.be.instanceOf(ValidationError);
      const local = await refusal(admitRepository({ repo: path.join(root, 'repos', 'netdocs'), secret: 's' }, OPERATOR_WRITER, rules));
      expect(local).to.be.instanceOf(ValidationError);
      const name = await refusal(admitRepository({ repo: 'https://140.82.112.3/a/b.git', name: 'a/b/c' }, OPERATOR_WRITER, rules));
      expect((name as ValidationError).fields).to.have.property('name');
    });
  });
});
