/** `/healthz`: the process answers. `/readyz`: the database answers too. Both without auth, outside `/api`. */
import type Router from '@koa/router';
import type { Knex } from 'knex';

export function mountHealth(router: Router, db: Knex): void {
  router.get('/healthz', (ctx) => {
    ctx.body = { status: 'ok' };
  });
  router.get('/readyz', async (ctx) => {
    try {
      await db.raw('select 1');
      ctx.body = { status: 'ok' };
    } catch {
      ctx.status = 503;
      ctx.body = { detail: 'Service temporarily unavailable.' };
    }
  });
}
