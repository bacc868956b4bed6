/** `/healthz`: the process answers. `/readyz`: the database answers too. Both without auth, outside `/api`. */
import { setTimeout as sleep } from 'node:timers/promises';
import type Router from '@koa/router';
import type { Knex } from 'knex';
import { unavailable } from '../errors.js';

/**
 * A probe must learn "not ready" promptly (load balancers give up after a few seconds): readiness
 * waits this long for the database, shorter than the pool's and statements' own bounds.
 */
export const READY_WAIT_MS = 1_000;

export function mountHealth(router: Router, db: Knex): void {
  router.get('/healthz', (ctx) => {
    ctx.body = { status: 'ok' };
  });
  router.get('/readyz', async (ctx) => {
    const answered = db.raw('select 1').then(
      () => true,
      () => false,
    );
    if (!(await Promise.race([answered, sleep(READY_WAIT_MS, false)]))) throw unavailable();
    ctx.body = { status: 'ok' };
  });
}
