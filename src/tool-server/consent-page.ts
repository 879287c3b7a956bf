import { createHash } from 'node:crypto';
import type { Response } from 'express';

/** What the consent page shows about one authorization request. */
export interface ConsentView {
  /** The pending request's id, sent back with the decision. */
  consent: string;
  clientName: string;
  clientId: string;
  /** Where the person is sent back to: the client's redirect URI's origin. */
  returnsTo: string;
  /** A client metadata document vouches for the name by its URL; a dynamic registration's name is only what the client said. */
  verified: boolean;
  /** The tool server's URL, the one resource the token is for. */
  resource: string;
  /** Why the last try failed (a wrong token, missing rights). */
  error?: string;
}

const escape = (text: string) =>
  text.replace(/[&<>"']/g, (char) => ({ '&': '&amp;', '<': '&lt;', '>': '&gt;', '"': '&quot;', "'": '&#39;' })[char]!);

/** The page's only style, allowed by its hash in the Content-Security-Policy (no script at all). */
export const CONSENT_STYLE =
  'body{font:16px/1.5 system-ui,sans-serif;max-width:36rem;margin:3rem auto;padding:0 1rem;color:#1b1b1b;background:#fff}' +
  'label{display:block;font-weight:600;margin-top:1rem}input{width:100%;padding:.5rem;font:inherit;box-sizing:border-box}' +
  '.actions{display:flex;gap:1rem;margin-top:1.5rem}button{padding:.5rem 1.25rem;font:inherit}' +
  '.error{color:#a00000;font-weight:600}code{overflow-wrap:anywhere}';

/**
 * The consent page of the tool server's authorization server: the person signs in with an API token
 * of this service, as on the chat page, and approves or denies the named client the rights it asks
 * for. A plain form: no script runs on it.
 */
export function consentPage(view: ConsentView): string {
  const name = escape(view.clientName);
  return `<!doctype html>
<html lang="en">
<head>
<meta charset="utf-8">
<meta name="viewport" content="width=device-width, initial-scale=1">
<title>Allow ${name} to use the tool server?</title>
<style>${CONSENT_STYLE}</style>
</head>
<body>
<main>
<h1>Allow <span id="client-name">${name}</span> to use the tool server?</h1>
<p>${
    view.verified
      ? `The application is identified by <code>${escape(view.clientId)}</code>.`
      : 'The application registered itself under this name; nothing vouches for it.'
  } After your answer you return to <code id="returns-to">${escape(view.returnsTo)}</code>.</p>
<p id="rights">If you allow it, it gets a token for <code>${escape(view.resource)}</code> only, acting as you with your API token's rights: it can search the platform's API and the knowledge base, read platform objects and make the changes the tool server's tools make. The token is listed with your API tokens, named after the application, and ends when you revoke it or the API token you sign in with.</p>
<form method="post" action="consent">
<input type="hidden" name="consent" value="${escape(view.consent)}">
<label for="token">Sign in with your API token</label>
<input id="token" name="token" type="password" autocomplete="off" required>
${view.error ? `<p class="error" id="consent-error" role="alert">${escape(view.error)}</p>` : ''}
<div class="actions">
<button type="submit" name="decision" value="approve">Allow</button>
<button type="submit" name="decision" value="deny" formnovalidate>Deny</button>
</div>
</form>
</main>
</body>
</html>
`;
}

/** A page that only says `message` (the request cannot go on). */
export function messagePage(message: string): string {
  return `<!doctype html>
<html lang="en"><head><meta charset="utf-8"><title>Sign-in</title><style>${CONSENT_STYLE}</style></head>
<body><main><h1>Sign-in</h1><p role="alert">${escape(message)}</p></main></body></html>
`;
}

const STYLE_HASH = `'sha256-${createHash('sha256').update(CONSENT_STYLE).digest('base64')}'`;

/** Sends a page of the authorization server: no script, no framing (a consent page must not be clickjacked), not cached. */
export function sendPage(res: Response, status: number, html: string): void {
  res
    .status(status)
    .set({
      'Content-Security-Policy': `default-src 'none'; style-src ${STYLE_HASH}; frame-ancestors 'none'; base-uri 'none'`,
      'X-Frame-Options': 'DENY',
      'Referrer-Policy': 'no-referrer',
      'Cache-Control': 'no-store',
    })
    .type('html')
    .send(html);
}
