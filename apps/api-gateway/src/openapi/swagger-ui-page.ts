import { createRequire } from 'node:module';
import { join } from 'node:path';

/**
 * Swagger UI's files from `swagger-ui-dist`, resolved through @nestjs/swagger as it resolves them
 * itself (the version it pins). The gateway serves them under /docs/ on each listener, around that
 * listener's own document. Only the files the page loads are served: the package also holds a
 * demo page that points at the petstore.
 */
export const SWAGGER_UI_DIR: string = createRequire(require.resolve('@nestjs/swagger'))('swagger-ui-dist/absolute-path.js')();

export const SWAGGER_UI_ASSETS: ReadonlySet<string> = new Set([
  'swagger-ui.css',
  'swagger-ui.css.map',
  'swagger-ui-bundle.js',
  'swagger-ui-bundle.js.map',
  'favicon-16x16.png',
  'favicon-32x32.png',
]);

export const swaggerUiAsset = (name: string): string => join(SWAGGER_UI_DIR, name);

/** No inline script or style of our own, so the page can run under a strict CSP. */
export function swaggerUiPage(title: string): string {
  return `<!doctype html>
<html lang="en">
<head>
  <meta charset="utf-8">
  <meta name="viewport" content="width=device-width, initial-scale=1">
  <title>${escapeHtml(title)}</title>
  <link rel="stylesheet" href="/docs/swagger-ui.css">
  <link rel="icon" type="image/png" href="/docs/favicon-32x32.png" sizes="32x32">
  <link rel="icon" type="image/png" href="/docs/favicon-16x16.png" sizes="16x16">
</head>
<body>
  <div id="swagger-ui"></div>
  <script src="/docs/swagger-ui-bundle.js"></script>
  <script src="/docs/swagger-initializer.js"></script>
</body>
</html>
`;
}

/** The document of the listener the page came from; no validator badge (it would call swagger.io). */
export const SWAGGER_UI_INITIALIZER = `window.addEventListener('load', function () {
  window.ui = SwaggerUIBundle({
    url: '/openapi.json',
    dom_id: '#swagger-ui',
    deepLinking: true,
    validatorUrl: null,
    presets: [SwaggerUIBundle.presets.apis],
    layout: 'BaseLayout',
  });
});
`;

/** Swagger UI styles with inline style attributes and draws icons from data: URLs. */
export const SWAGGER_UI_CSP =
  "default-src 'self'; script-src 'self'; style-src 'self' 'unsafe-inline'; img-src 'self' data:; connect-src 'self'; frame-ancestors 'none'; base-uri 'none'; form-action 'none'";

function escapeHtml(text: string): string {
  return text.replace(/[&<>"']/g, (c) => `&#${c.charCodeAt(0)};`);
}
