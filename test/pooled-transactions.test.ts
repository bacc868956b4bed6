/**
 * A pooled connection given back inside a transaction is never handed out again: otherwise the next
 * request's write would run inside that transaction, be answered 201 and be rolled back with it
 * (what the soak found under heavy load). PGlite has one connection and no pool.
 */
import { expect } from 'chai';
import type pg from 'pg';
import { createLogger } from '../engine/log.js';
import { startService } from '../engine/service.js';
import { Client } from './support/client.js';
import { describeWithServer } from './support/database.js';
import { suite, testConfig } from './support/hooks.js';

const PATH = '/api/glossar/entry';

describeWithServer('pooled connections and transactions', 'PGlite has no connection pool', function () {
  this.timeout(60_000);

  it('stores an acknowledged create although the only pooled connection was given back inside a transaction', async () => {
    const { database, admin, service } = suite();
    // no pollers (webhooks, jobs, imports): the one connection is the request's
    const svc = await startService(testConfig(database, { bounds: { poolSize: 1 }, webhooks: { dispatch: false }, jobs: { run: false } }), createLogger('silent'), { quiet: true });
    try {
      const client = new Client(svc.url, admin.token);
      const leaked = (await svc.db.client.acquireConnection()) as pg.Client;
      await leaked.query('begin');
      await svc.db.client.releaseConnection(leaked);

      const res = await client.post(PATH, { title: 'kept', description: 'after a leaked transaction' });
      expect(res.status, res.text).to.equal(201);
      // another session sees only what was committed
      const stored = await service.db.raw('select count(*)::int as n from ?? where id = ?', [service.app.services.get('glossar/entry')!.resource.table, res.body.id]);
      expect(stored.rows[0].n, 'the acknowledged create is committed').to.equal(1);
    } finally {
      await svc.close();
    }
  });
});
