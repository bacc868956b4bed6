/**
 * Swagger UI from the local `swagger-ui-dist` package (no CDN): a page at `DOCS_PATH` and the few
 * assets it loads beside it. Asset URLs are absolute because the page is served both with and
 * without its trailing slash.
 */
import fs from 'node:fs';
import path from 'node:path';
import { createRequire } from 'node:module';
import type Router from '@koa/router';
import { notFound } from '../errors.js';
import { DOCS_PATH, SCHEMA_PATH } from './negotiation.js';

const distDir = path.dirname(createRequire(import.meta.url).resolve('swagger-ui-dist/package.json'));
const ASSETS = new Set(['swagger-ui.css', 'swagger-ui-bundle.js', 'favicon-32x32.png']);

/** Swagger UI's configuration; token values are entered whole, as `Token <key>`. */
const CONFIG = {
  url: `${SCHEMA_PATH}?format=json`,
  dom_id: '#swagger-ui',
  layout: 'BaseLayout',
  deepLinking: true,
  displayOperationId: true,
  persistAuthorization: true,
  // no request to the public validator service
  validatorUrl: null,
};

const page = (title: string) => `<!doctype html>
<html lang="en">
<head>
<meta charset="utf-8">
<title>${title}</title>
<link rel="icon" type="image/png" href="${DOCS_PATH}/favicon-32x32.png">
<link rel="stylesheet" href="${DOCS_PATH}/swagger-ui.css">
</head>
<body>
<div id="swagger-ui"></div>
<script src="${DOCS_PATH}/swagger-ui-bundle.js"></script>
<script src="${DOCS_PATH}/swagger-initializer.js"></script>
</body>
</html>
`;

const initializer = `window.onload = () => {\n  window.ui = SwaggerUIBundle(${JSON.stringify(CONFIG)});\n};\n`;

export function mountSwaggerUi(router: Router, title: string): void {
  const html = page(title);
  router.get(DOCS_PATH, (ctx) => {
    ctx.type = 'text/html; charset=utf-8';
    ctx.body = html;
  });
  router.get(`${DOCS_PATH}/swagger-initializer.js`, (ctx) => {
    ctx.type = 'application/javascript; charset=utf-8';
    ctx.body = initializer;
  });
  router.get(`${DOCS_PATH}/:asset`, (ctx) => {
    const asset = (ctx.params as Record<string, string>).asset!;
    if (!ASSETS.has(asset)) throw notFound();
    ctx.type = path.extname(asset);
    ctx.set('Cache-Control', 'public, max-age=86400');
    ctx.body = fs.createReadStream(path.join(distDir, asset));
  });
}
