/**
 * A framework floor of `npm run bench -- --framework-floor` (framework-floor.ts): what a request
 * costs a process before any work of the service's own. It answers `GET /api/issue/issue/{id}`
 * with one fixed record text, without the database, through the stack BENCH_FLOOR names:
 * - `node`: node:http alone, as the ceiling answers;
 * - `koa`: Koa and @koa/router, the text sent as the service sends it (json-response.ts);
 * - `front`: the same with the service's front middleware (engine/http/front.ts: the request
 *   log, error rendering, security headers, path conventions) before the router, as in the service.
 * Settings as the ceiling's: HOST, PORT, WEB_CONCURRENCY; the log goes to stdout as the service's.
 */
import http from 'node:http';
import Koa from 'koa';
import Router from '@koa/router';
import { useFront } from '../engine/http/front.js';
import { sendJson } from '../engine/http/json-response.js';
import type { Logger } from '../engine/log.js';
import { FLOOR_SETTING, FLOOR_STACKS, type FloorStack } from './framework-floor.js';
import { runBenchServer } from './serve.js';

const FLOOR_PATH = /^\/api\/issue\/issue\/\d+$/;

/** About the size of a seeded issue's detail. */
const FLOOR_RECORD = JSON.stringify({
  id: 5,
  uuid: '9af4d7ac-adc5-4ddd-a4f0-f80021d0e845',
  title: 'Issue 5: the printer on the second floor jams',
  description: 'Reported at desk 5. Details follow. ',
  state: 'new',
  deadline: '2025-01-06',
  archived: false,
  classification: 'official',
  attachments: [],
  tracker: 5,
  assigned_user: null,
  categories: [5],
  contributors: [],
  processes: [],
  created: '2026-11-28T02:06:40.823Z',
  modified: '2026-11-29T05:57:42.764Z',
  created_by: 1,
  remote_key: null,
});

const NOT_FOUND = JSON.stringify({ detail: 'Not found.' });

function nodeHandler(): http.RequestListener {
  return (req, res) => {
    const [status, text] = req.method === 'GET' && FLOOR_PATH.test(req.url ?? '') ? [200, FLOOR_RECORD] : [404, NOT_FOUND];
    res.writeHead(status, { 'Content-Type': 'application/json; charset=utf-8', 'Content-Length': Buffer.byteLength(text) });
    res.end(text);
  };
}

function koaHandler(stack: FloorStack, log: Logger): http.RequestListener {
  const koa = new Koa();
  koa.silent = true;
  if (stack === 'front') useFront(koa, { log, secureCookies: false, corsOrigins: [], redirects: [] });
  const router = new Router({ sensitive: true });
  router.get('/api/issue/issue/:id', (ctx) => {
    if (!/^\d+$/.test(ctx.params.id ?? '')) return;
    sendJson(ctx, FLOOR_RECORD);
  });
  koa.use(router.routes());
  koa.use((ctx) => sendJson(ctx, NOT_FOUND, 404));
  return koa.callback();
}

const stack = process.env[FLOOR_SETTING] as FloorStack | undefined;
if (!stack || !FLOOR_STACKS.includes(stack)) {
  process.stderr.write(`${FLOOR_SETTING} must be one of ${FLOOR_STACKS.join(', ')}\n`);
  process.exit(2);
}
runBenchServer(8002, (log) => ({ listener: stack === 'node' ? nodeHandler() : koaHandler(stack, log), bindings: { stack } }));
