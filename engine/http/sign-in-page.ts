/**
 * The sign-in page at `/app/` (spec 5: tokens are created by a signed-in user): static files from
 * `engine/http/web`, read once at start-up (under the strict Content-Security-Policy every answer has: security-headers.ts).
 */
import fs from 'node:fs';
import path from 'node:path';
import { fileURLToPath } from 'node:url';
import type Router from '@koa/router';

// compiled to dist/engine/http; the page's files stay in the source tree
const WEB_DIR = path.resolve(path.dirname(fileURLToPath(import.meta.url)), '../../../engine/http/web');

const FILES: Record<string, { file: string; type: string }> = {
  '/app': { file: 'index.html', type: 'text/html; charset=utf-8' },
  '/app/app.js': { file: 'app.js', type: 'text/javascript; charset=utf-8' },
  '/app/app.css': { file: 'app.css', type: 'text/css; charset=utf-8' },
};

export function mountSignInPage(router: Router): void {
  for (const [route, { file, type }] of Object.entries(FILES)) {
    const body = fs.readFileSync(path.join(WEB_DIR, file));
    router.get(route, (ctx) => {
      ctx.type = type;
      ctx.set('Cache-Control', 'no-cache');
      ctx.body = body;
    });
  }
}
