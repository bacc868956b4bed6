/**
 * The admin app at `/app/` (sign-in, the records of every resource, API tokens): static files from
 * `engine/http/web`, read once at start-up, and `/app/metadata.json`, made when first asked for,
 * which describes the declared resources (engine/admin/metadata.ts) and, like the OpenAPI document,
 * is public. All served with the service-wide Content-Security-Policy (security-headers.ts: scripts
 * from this origin only, no inline script). `/` leads to the app.
 */
import { createHash } from 'node:crypto';
import fs from 'node:fs';
import path from 'node:path';
import { fileURLToPath } from 'node:url';
import type Router from '@koa/router';
import type { Context } from 'koa';
import { appMetadata } from '../admin/metadata.js';
import type { ResourceService } from '../crud/service.js';
import type { Registry } from '../registry/registry.js';

// compiled to dist/engine/http; the app's files stay in the source tree
const WEB_DIR = path.resolve(path.dirname(fileURLToPath(import.meta.url)), '../../../engine/http/web');

const TYPES: Record<string, string> = {
  '.html': 'text/html; charset=utf-8',
  '.js': 'text/javascript; charset=utf-8',
  '.css': 'text/css; charset=utf-8',
  '.json': 'application/json; charset=utf-8',
};

/**
 * A file's answer; `no-cache` with an ETag: the browser asks every time, and gets 304 while it is
 * unchanged. A function's content is made when first asked for (the metadata is most of a MiB,
 * which most processes never serve) and kept.
 */
function serving(type: string, content: Buffer | string | (() => string)) {
  let made: { body: Buffer | string; etag: string } | undefined;
  const make = () => {
    const body = typeof content === 'function' ? content() : content;
    return { body, etag: createHash('sha256').update(body).digest('base64url').slice(0, 27) };
  };
  return (ctx: Context) => {
    const { body, etag } = (made ??= make());
    ctx.type = type;
    ctx.set('Cache-Control', 'no-cache');
    ctx.etag = etag;
    // `fresh` compares only for a 2xx answer
    ctx.status = 200;
    if (ctx.fresh) ctx.status = 304;
    else ctx.body = body;
  };
}

export function mountAdminApp(router: Router, registry: Registry, services: ReadonlyMap<string, ResourceService>): void {
  router.get('/', (ctx) => ctx.redirect('/app/'));
  for (const file of fs.readdirSync(WEB_DIR)) {
    const type = TYPES[path.extname(file)];
    if (!type) continue;
    router.get(file === 'index.html' ? '/app' : `/app/${file}`, serving(type, fs.readFileSync(path.join(WEB_DIR, file))));
  }
  router.get('/app/metadata.json', serving(TYPES['.json']!, () => JSON.stringify(appMetadata(registry, services))));
}
