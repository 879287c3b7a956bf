import DOMPurify from 'dompurify';
import SwaggerUIBundle from 'swagger-ui-dist/swagger-ui-es-bundle.js';
import 'swagger-ui-dist/swagger-ui.css';
import type { Api } from './api.js';
import { byId } from './dom.js';
import { startPage } from './page.js';

const DOCUMENT = '/api/docs/?format=openapi';

/**
 * Swagger UI renders descriptions by assigning HTML strings, which this page's Trusted Types
 * policy refuses; the page's `default` policy (allowed on this page only) passes each one
 * through DOMPurify first, so no string becomes markup unsanitized.
 */
function sanitizeHtmlAssignments(): void {
  const purifier = DOMPurify(window);
  window.trustedTypes?.createPolicy('default', { createHTML: (html) => purifier.sanitize(html) });
}

/**
 * The API's documentation, browsable: the OpenAPI document (read with the signed-in token, as
 * any valid token may) rendered by Swagger UI, bundled at build time. "Try it out" sends the
 * token with each request, so a request made here acts with the token's rights, as with curl.
 */
startPage<object>({
  check: (api: Api) => api.get<object>(DOCUMENT),
  start: async (api, spec) => {
    sanitizeHtmlAssignments();
    SwaggerUIBundle({
      spec,
      domNode: byId('api-docs', HTMLDivElement),
      requestInterceptor: (request) => {
        request.headers.Authorization = api.authorization();
        return request;
      },
      // Never ask a third-party validator about the document.
      validatorUrl: null,
      deepLinking: false,
    });
  },
});
