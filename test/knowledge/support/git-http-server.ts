import { spawn } from 'node:child_process';
import http from 'node:http';
import type { AddressInfo } from 'node:net';

export interface GitHttpServer {
  baseUrl: string;
  /** Authorization headers received, in order. */
  authorizations: string[];
  close(): Promise<void>;
}

/**
 * Serves the bare repositories under `root` over smart HTTP on 127.0.0.1 through `git http-backend`
 * (CGI), answering 401 to any request without `Authorization: Basic` carrying `token`.
 */
export async function startGitHttpServer(root: string, token: string): Promise<GitHttpServer> {
  const authorizations: string[] = [];
  const expected = `Basic ${Buffer.from(`x-access-token:${token}`).toString('base64')}`;
  const server = http.createServer((req, res) => {
    const auth = req.headers.authorization ?? '';
    authorizations.push(auth);
    if (auth !== expected) {
      res.writeHead(401, { 'www-authenticate': 'Basic realm="test"' }).end('unauthorized');
      return;
    }
    const url = new URL(req.url ?? '/', 'http://127.0.0.1');
    const cgi = spawn('git', ['http-backend'], {
      env: {
        PATH: process.env.PATH,
        GIT_PROJECT_ROOT: root,
        GIT_HTTP_EXPORT_ALL: '1',
        PATH_INFO: url.pathname,
        QUERY_STRING: url.search.slice(1),
        REQUEST_METHOD: req.method,
        CONTENT_TYPE: req.headers['content-type'] ?? '',
        REMOTE_ADDR: '127.0.0.1',
      },
    });
    req.pipe(cgi.stdin);
    let head = Buffer.alloc(0);
    let headersDone = false;
    cgi.stdout.on('data', (data: Buffer) => {
      if (headersDone) {
        res.write(data);
        return;
      }
      head = Buffer.concat([head, data]);
      const end = head.indexOf('\r\n\r\n');
      if (end < 0) return;
      headersDone = true;
      let status = 200;
      for (const line of head.subarray(0, end).toString().split('\r\n')) {
        const [name, ...rest] = line.split(':');
        const value = rest.join(':').trim();
        if (name!.toLowerCase() === 'status') status = Number(value.split(' ')[0]);
        else res.setHeader(name!, value);
      }
      res.statusCode = status;
      res.write(head.subarray(end + 4));
    });
    cgi.on('close', () => res.end());
  });
  await new Promise<void>((resolve) => server.listen(0, '127.0.0.1', resolve));
  const { port } = server.address() as AddressInfo;
  return {
    baseUrl: `http://127.0.0.1:${port}`,
    authorizations,
    close: () => new Promise((resolve) => server.close(() => resolve())),
  };
}
