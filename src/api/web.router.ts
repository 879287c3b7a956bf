import { Router, type NextFunction, type Response } from 'express';
import { NotFoundError } from '../kernel/errors.js';
import { packagePath } from '../kernel/package-root.js';

/** Where `npm run build` writes the pages (web/build.ts). */
export const WEB_DIR = packagePath('dist/web');

export const WEB_ASSETS = '/plugins/ai-ops/assets/';
export const CHAT_PAGE = '/plugins/ai-ops/chat/';
export const ADMIN_PAGE = '/plugins/ai-ops/admin/';
/** The API's documentation: browsable, and the OpenAPI document itself with `?format=openapi`. */
export const API_DOCS = '/api/docs/';

/** Where a person finds the service, for the start-up log: `base` is `http://host:port`. */
export function pageUrls(base: string): { chat: string; admin: string; api_docs: string } {
  return { chat: base + CHAT_PAGE, admin: base + ADMIN_PAGE, api_docs: base + API_DOCS };
}

export const WEB_PAGES: Readonly<Record<string, string>> = {
  [CHAT_PAGE]: 'chat.html',
  [ADMIN_PAGE]: 'admin.html',
  [API_DOCS]: 'docs.html',
};

/** Built asset names: esbuild's `[name]-[hash]` with their source maps. */
const ASSET_NAME = /^[A-Za-z0-9_-]{1,100}\.(?:js|css)(?:\.map)?$/;
const YEAR_S = 365 * 24 * 3_600;

/**
 * Only this origin's own scripts, styles and connections; no inline code, no plugins, no framing.
 * Trusted Types: only DOMPurify's policy may turn a string into HTML, so even a bug that assigned
 * model output to innerHTML would be refused by the browser.
 */
export const CONTENT_SECURITY_POLICY = contentSecurityPolicy(['dompurify']);

/**
 * The documentation page's policy: the same, but Swagger UI assigns HTML strings, so the page adds a
 * `default` Trusted Types policy that sanitizes each with DOMPurify (web/src/docs.ts); Swagger UI
 * brings a DOMPurify of its own, whose policy has the same name.
 */
export const DOCS_CONTENT_SECURITY_POLICY = contentSecurityPolicy(['dompurify', 'default', "'allow-duplicates'"]);

function contentSecurityPolicy(trustedTypesPolicies: string[]): string {
  return [
    "default-src 'self'",
    "script-src 'self'",
    "style-src 'self'",
    "img-src 'self' data:",
    "connect-src 'self'",
    "object-src 'none'",
    "base-uri 'none'",
    "form-action 'none'",
    "frame-ancestors 'none'",
    "require-trusted-types-for 'script'",
    `trusted-types ${trustedTypesPolicies.join(' ')}`,
  ].join('; ');
}

function secure(res: Response, policy = CONTENT_SECURITY_POLICY): void {
  res.set({
    'content-security-policy': policy,
    'x-content-type-options': 'nosniff',
    'referrer-policy': 'no-referrer',
    'x-frame-options': 'DENY',
    'cross-origin-opener-policy': 'same-origin',
    'cross-origin-resource-policy': 'same-origin',
  });
}

/** sendFile's callback: a file that is not there (or not readable) is a 404 with this detail. */
function orNotFound(res: Response, next: NextFunction, detail: string) {
  return (error?: Error) => {
    if (error && !res.headersSent) next(new NotFoundError(detail));
  };
}

/**
 * The chat and administration pages and their assets, built at build time (no CDN). Pages are
 * revalidated on every load; assets have content-hashed names and are cached for a year. Served
 * before the API's validator: no token is needed to load a page (its script signs in with one).
 */
export function webRouter(dir: string = WEB_DIR): Router {
  const router = Router();
  // Where a person lands: the chat, and the API's documentation.
  router.get('/', (_req, res) => res.redirect(302, CHAT_PAGE));
  // The API's root answers clients in JSON (api-root.router.ts); a person's browser is shown the documentation.
  router.get('/api/', (req, res, next) => (req.accepts(['json', 'html']) === 'html' ? res.redirect(302, API_DOCS) : next()));
  // An asset path that does not decode is answered 400 by the router at once, before the request
  // is read to its end: the connection is closed after that answer, so no leftover bytes of the
  // request are taken for the start of the next one on a kept-alive connection.
  router.use(WEB_ASSETS, (req, res, next) => {
    try {
      decodeURIComponent(req.path);
    } catch {
      res.set('connection', 'close');
    }
    next();
  });
  for (const [route, file] of Object.entries(WEB_PAGES)) {
    router.get(route, (req, res, next) => {
      // The documentation's address also serves the document itself, to every client that does not ask for a page.
      if (route === API_DOCS && (req.query.format !== undefined || req.accepts(['json', 'html']) !== 'html')) return next();
      secure(res, route === API_DOCS ? DOCS_CONTENT_SECURITY_POLICY : CONTENT_SECURITY_POLICY);
      res.set('cache-control', 'no-cache');
      res.sendFile(file, { root: dir, cacheControl: false }, orNotFound(res, next, 'The web pages are not built: run npm run build.'));
    });
  }
  router.get(`${WEB_ASSETS}:file`, (req, res, next) => {
    const file = req.params.file;
    if (!ASSET_NAME.test(file)) throw new NotFoundError('No such asset.');
    secure(res);
    res.sendFile(file, { root: `${dir}/assets`, maxAge: YEAR_S * 1_000, immutable: true }, orNotFound(res, next, 'No such asset.'));
  });
  return router;
}
