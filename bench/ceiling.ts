/**
 * The raw ceiling the bench holds the service against: `node:http` and `pg`, no framework, for
 * `/api/issue/issue` alone, and `node:http` and `fs` for a DMS document's file (ceiling-files.ts). Per request it does what the service must: the token lookup (SHA-256
 * of the key, the service's own table and query), the model permission, then the service's SQL
 * shapes as named prepared statements, answering the service's JSON bytes, which PostgreSQL builds.
 * Writes go in one statement each (row, category links and state log at once). It knows only what
 * the bench sends: list filters `tracker` and `state`, a one-word `search` of titles; creates and PATCHes (title, state) by a
 * superuser.
 *
 * Settings as the service's: DATABASE_URL, HOST, PORT, WEB_CONCURRENCY (the same node:cluster
 * supervision), and a pool of 10 connections per process.
 */
import http from 'node:http';
import path from 'node:path';
import pg from 'pg';
import { hashTokenKey } from '../engine/auth/tokens.js';
import { containsPattern } from '../engine/storage/sql.js';
import { KEEP_HEAP } from '../engine/storage/statements.js';
import * as sql from './ceiling-sql.js';
import { CeilingFiles } from './ceiling-files.js';
import { runBenchServer } from './serve.js';

type Answer = [status: number, body: string];

const detail = (status: number, text: string): Answer => [status, JSON.stringify({ detail: text })];
const NOT_FOUND = detail(404, 'Not found.');
const LAST_USED_EVERY_MS = 60_000;
const PERMISSION = { GET: 'view', POST: 'add', PATCH: 'change' } as const;

class Refusal extends Error {
  constructor(readonly answer: Answer) {
    super(answer[1]);
  }
}

async function principalOf(pool: pg.Pool, header: string | undefined): Promise<sql.PrincipalRow> {
  const [keyword, key, ...rest] = (header ?? '').split(' ');
  if (keyword?.toLowerCase() !== 'token') throw new Refusal(detail(401, 'Authentication credentials were not provided.'));
  if (!key || rest.length) throw new Refusal(detail(401, 'Invalid token header.'));
  const { rows } = await pool.query<sql.PrincipalRow>(sql.principal(hashTokenKey(key)));
  const user = rows[0];
  if (!user) throw new Refusal(detail(401, 'Invalid token.'));
  if (Date.now() - (user.last_used?.getTime() ?? 0) > LAST_USED_EVERY_MS) await pool.query(sql.touchToken(user.token_id));
  return user;
}

const body = async (pool: pg.Pool, query: pg.QueryConfig): Promise<string | undefined> =>
  (await pool.query<{ body: string | null }>(query)).rows[0]?.body ?? undefined;

function readJson(req: http.IncomingMessage): Promise<Record<string, unknown>> {
  return new Promise((resolve, reject) => {
    const chunks: Buffer[] = [];
    req.on('data', (c: Buffer) => chunks.push(c));
    req.on('error', reject);
    req.on('end', () => {
      try {
        const value: unknown = JSON.parse(Buffer.concat(chunks).toString('utf8'));
        if (typeof value !== 'object' || value === null || Array.isArray(value)) throw new Error('not an object');
        resolve(value as Record<string, unknown>);
      } catch {
        reject(new Refusal(detail(400, 'JSON parse error.')));
      }
    });
  });
}

const isId = (v: unknown): v is number => Number.isInteger(v) && (v as number) > 0 && (v as number) <= 2147483647;
const isTitle = (v: unknown): v is string => typeof v === 'string' && v.trim() !== '' && v.length <= 255;

function listFilters(params: URLSearchParams): sql.ListFilters {
  const filters: sql.ListFilters = {};
  for (const [name, value] of params) {
    if (name === 'tracker' && /^\d{1,9}$/.test(value)) filters.tracker = Number(value);
    else if (name === 'state') filters.state = value;
    else if (name === 'search' && /^\S+$/.test(value)) filters.search = containsPattern(value);
    else throw new Refusal(detail(400, `The ceiling does not filter by ${name}.`));
  }
  return filters;
}

async function create(pool: pg.Pool, req: http.IncomingMessage, user: sql.PrincipalRow): Promise<Answer> {
  const input = await readJson(req);
  const categories = input.category_ids ?? [];
  if (!isTitle(input.title) || !isId(input.tracker_id) || !Array.isArray(categories) || !categories.every(isId)) {
    return detail(400, 'The ceiling needs a title, a tracker_id and category ids.');
  }
  const description = typeof input.description === 'string' ? input.description : null;
  const issue = { title: input.title, description, tracker: input.tracker_id, categories: [...new Set(categories)].sort((a, b) => a - b) };
  const answer = await body(pool, sql.create(issue, user.id));
  return answer === undefined ? detail(400, 'A category does not belong to the tracker.') : [201, answer];
}

async function patch(pool: pg.Pool, req: http.IncomingMessage, id: number, user: sql.PrincipalRow): Promise<Answer> {
  const input = await readJson(req);
  const { title = null, state = null } = input;
  if ((title !== null && !isTitle(title)) || (state !== null && typeof state !== 'string')) return detail(400, 'The ceiling changes a title and a state only.');
  const answer = await body(pool, sql.patch(id, { title, state }, user.id));
  if (answer !== undefined) return [200, answer];
  const { rows } = await pool.query<{ state: string }>(sql.stateOf(id));
  if (!rows[0]) return NOT_FOUND;
  return [400, JSON.stringify({ state: [`Transition from "${rows[0].state}" to "${String(state)}" is not allowed.`] })];
}

async function answer(pool: pg.Pool, req: http.IncomingMessage): Promise<Answer> {
  const url = new URL(req.url ?? '/', 'http://ceiling');
  const path = /^\/api\/issue\/issue(?:\/(\d{1,10}))?\/?$/.exec(url.pathname);
  if (!path) return NOT_FOUND;
  const id = path[1] === undefined ? undefined : Number(path[1]);
  const method = req.method as keyof typeof PERMISSION;
  if (!(id === undefined ? ['GET', 'POST'] : ['GET', 'PATCH']).includes(method)) return detail(405, `Method "${req.method}" not allowed.`);
  const user = await principalOf(pool, req.headers.authorization);
  if (!user.is_superuser && !user.permissions.includes(`issues.${PERMISSION[method]}_issue`)) return detail(403, 'You do not have permission to perform this action.');
  const viewer = user.is_superuser ? null : user.id;
  if (method === 'GET') {
    const found = await body(pool, id === undefined ? sql.list(listFilters(url.searchParams), viewer) : sql.detail(id, viewer));
    return found === undefined ? NOT_FOUND : [200, found];
  }
  if (!user.is_superuser) return detail(403, 'The ceiling writes as a superuser only.');
  return id === undefined ? create(pool, req, user) : patch(pool, req, id, user);
}

runBenchServer(8001, () => {
  // the ceiling's writes are not captured (no audit entry, no webhook event) unless the bench says so: the service is held
  // against writes without them; its sessions run without JIT, as the service's do
  const captured = process.env[sql.CEILING_CAPTURES] === 'true';
  // each session's heap kept as the service keeps its own, before the pool hands the session out (a query sent
  // while this one runs is queued by pg, which warns that pg 9 will refuse it)
  const keepHeap = async (client: pg.ClientBase) => void (await client.query(KEEP_HEAP).catch(() => undefined));
  const pool = new pg.Pool({ connectionString: process.env.DATABASE_URL, max: 10, options: `${captured ? '' : '-c bms.capture=off '}-c jit=off`, onConnect: keepHeap });
  const files = new CeilingFiles(path.join(process.env.BMS_DATA_DIR ?? 'data', 'ceiling-files'));
  const listener: http.RequestListener = (req, res) => {
    if (files.handles(req)) {
      principalOf(pool, req.headers.authorization)
        .then(() => files.serve(req, res))
        .catch((err: unknown) => {
          // a download its client left (the load stopping mid-answer): nothing more to say; Node.js 24's pipeline rejects for it
          if (res.headersSent) {
            res.destroy();
            return;
          }
          if (!(err instanceof Refusal)) process.stderr.write(`ceiling: ${(err as Error).stack ?? String(err)}\n`);
          const [status, text] = err instanceof Refusal ? err.answer : detail(500, 'A server error occurred.');
          res.writeHead(status, { 'Content-Type': 'application/json; charset=utf-8', 'Content-Length': Buffer.byteLength(text), Connection: 'close' });
          res.end(text);
        });
      return;
    }
    answer(pool, req)
      .catch((err: unknown): Answer => {
        if (err instanceof Refusal) return err.answer;
        process.stderr.write(`ceiling: ${(err as Error).stack ?? String(err)}\n`);
        return detail(500, 'A server error occurred.');
      })
      .then(([status, text]) => {
        res.writeHead(status, { 'Content-Type': 'application/json; charset=utf-8', 'Content-Length': Buffer.byteLength(text) });
        res.end(text);
      });
  };
  return { listener, close: () => pool.end() };
});
