/**
 * Scheduled jobs on pg-boss (engine/jobs), in services of their own on databases of their own, the
 * queue polled every half second and the schedules looked at every second. The daily DMS expiry,
 * its schedule made every minute so that it comes now, moves an expired document once with two
 * instances running; a job that always fails is retried and its failure shows at /api/jobs and in
 * /metrics (on the embedded PGlite too); `manage run-job` runs one now; JOBS=false runs none.
 */
import { expect } from 'chai';
import type { Knex } from 'knex';
import { createToken } from '../engine/auth/tokens.js';
import type { ServerConfig } from '../engine/config.js';
import type { ResourceDeclaration } from '../engine/declare/index.js';
import { createLogger } from '../engine/log.js';
import { loadDeclarations, Registry } from '../engine/registry/registry.js';
import { startService, type RunningService } from '../engine/service.js';
import { Client } from './support/client.js';
import { createTestDatabase, describeWithServer, type TestDatabase } from './support/database.js';
import { created, unique } from './support/fixtures.js';
import { testConfig } from './support/hooks.js';
import { manage } from './support/processes.js';
import { until } from './support/wait.js';

const EXPIRE = 'dms.document.expire';
const FAILING = 'issue.tracker.always_fails';
const FAILURE = 'The test job fails on purpose.';

/** Settings of a service that runs jobs without waiting long for them. */
const quick = (database: TestDatabase, overrides: Partial<ServerConfig> = {}): ServerConfig =>
  testConfig(database, { webhooks: { dispatch: false }, jobs: { run: true, pollSeconds: 0.5, cronCheckSeconds: 1 }, ...overrides });

const start = (config: ServerConfig, registry?: Registry) => startService(config, createLogger(process.env.TEST_LOG_LEVEL ?? 'silent'), { quiet: true, registry });

/** A client with a new token of the first admin of `service`'s database. */
async function adminOf(service: RunningService): Promise<Client> {
  const admin = (await service.db('users').where({ username: 'admin' }).first('id')) as { id: number };
  return new Client(service.url, (await createToken(service.db, admin.id, 'jobs test')).key);
}

const isoDay = (offsetDays: number): string => new Date(Date.now() + offsetDays * 86_400_000).toISOString().slice(0, 10);

/** An approved document whose valid_to was yesterday, and one valid until tomorrow. */
async function documents(admin: Client): Promise<{ past: number; current: number }> {
  const folder = await created(admin, '/api/dms/folder', { title: unique('folder') });
  const past = await created(admin, '/api/dms/document', { title: unique('past'), folder_id: folder.id, state: 'approved', valid_to: isoDay(-1) });
  const current = await created(admin, '/api/dms/document', { title: unique('current'), folder_id: folder.id, state: 'approved', valid_to: isoDay(1) });
  return { past: past.id, current: current.id };
}

/** The job's row at /api/jobs. */
async function jobRow(admin: Client, name: string): Promise<Record<string, unknown>> {
  const res = await admin.get(`/api/jobs?name=${name}`);
  expect(res.status, res.text).to.equal(200);
  expect(res.body).to.have.length(1);
  return res.body[0];
}

const stateMoves = (db: Knex, id: number) => db('state_changes').where({ resource: 'dms/document', record_id: id }).select('from_state', 'to_state');

describeWithServer('scheduled jobs: two instances on one database', 'two services share one database server', function () {
  this.timeout(120_000);
  let database: TestDatabase;
  const services: RunningService[] = [];
  before(async () => {
    database = await createTestDatabase();
    services.push(await start(quick(database)));
    services.push(await start(quick(database)));
  });
  after(async () => {
    for (const s of services) await s.close();
    await database?.drop();
  });

  it('moves a document whose valid_to has passed to expired exactly once, and leaves a current one', async () => {
    const [one, two] = services as [RunningService, RunningService];
    const admin = await adminOf(one);
    const { past, current } = await documents(admin);
    // the daily schedule made every minute: the slot under way is due at once, for both instances
    await one.db.raw(`update pgboss.schedule set cron = '* * * * *' where name = ?`, [EXPIRE]);
    await until('the expired document', async () => ((await admin.get(`/api/dms/document/${past}`)).body.state === 'expired' ? true : undefined));
    // both instances look at the schedules every second: give each several chances to run it again
    await new Promise((r) => setTimeout(r, 4000));
    expect(await stateMoves(two.db, past)).to.deep.equal([
      { from_state: null, to_state: 'approved' },
      { from_state: 'approved', to_state: 'expired' },
    ]);
    expect((await admin.get(`/api/dms/document/${current}`)).body.state).to.equal('approved');
    // one run per cron slot (a minute), whichever instance took it
    const { rows } = (await one.db.raw(
      `select count(*)::int as runs, count(distinct date_trunc('minute', created_on))::int as slots from pgboss.job where name = ?`,
      [EXPIRE],
    )) as { rows: { runs: number; slots: number }[] };
    expect(rows[0]!.runs).to.be.greaterThan(0);
    expect(rows[0]!.runs).to.equal(rows[0]!.slots);
    const row = await jobRow(admin, EXPIRE);
    expect(row).to.include({ name: EXPIRE, schedule: '5 0 * * *', outcome: 'succeeded', last_error: null, attempt: 1 });
    expect(Date.parse(row.next_run as string)).to.be.greaterThan(Date.now());
    // the audit trail names the change as any other, without a user: no request made it
    const audit = await admin.get(`/api/audit?resource=dms/document&record_id=${past}`);
    expect(audit.status, audit.text).to.equal(200);
    expect(audit.body.some((e: { action: string; changes: Record<string, unknown> }) => e.action === 'update' && 'state' in e.changes)).to.equal(true);
  });
});

describe('scheduled jobs: one instance', function () {
  this.timeout(180_000);
  let database: TestDatabase;
  let service: RunningService;
  let admin: Client;
  before(async () => {
    const declarations = await loadDeclarations();
    // a test job on an existing resource, so it needs no table of its own
    const withFailing = declarations.resources.map(
      (d): ResourceDeclaration =>
        d.module === 'issue' && d.name === 'tracker'
          ? {
              ...d,
              schedules: [
                {
                  name: 'always_fails',
                  cron: '* * * * *',
                  description: 'Fails (test only).',
                  retry: { limit: 2, delaySeconds: 1 },
                  run: async () => {
                    throw new Error(FAILURE);
                  },
                },
              ],
            }
          : d,
    );
    database = await createTestDatabase();
    // the job's slot is every minute, its first run as soon as the service starts: started with half a
    // minute left, its three attempts end before the next minute's run could add to the counts
    const left = 60_000 - (Date.now() % 60_000);
    if (left < 30_000) await new Promise((resolve) => setTimeout(resolve, left + 500));
    service = await start(quick(database, { metrics: { port: 0 } }), new Registry({ ...declarations, resources: withFailing }));
    admin = await adminOf(service);
  });
  after(async () => {
    await service?.close();
    await database?.drop();
  });

  it('retries a failing job with backoff; /api/jobs shows the failure, /metrics the runs', async () => {
    // limit 2: the first try and two retries, 1 s then 2 s after
    const row = await until('the third attempt', async () => {
      const r = await jobRow(admin, FAILING);
      return r.attempt === 3 && r.last_finished ? r : undefined;
    });
    expect(row).to.include({ name: FAILING, schedule: '* * * * *', outcome: 'failed', last_error: FAILURE });
    const res = await fetch(service.metricsUrl!);
    const text = await res.text();
    expect(text).to.include(`job_runs_total{job="${FAILING}",outcome="failed"} 3`);
    expect(text).to.match(/^jobs_queued \d+$/m);
  });

  it('lists every declared job read-only, and refuses who may not view jobs', async () => {
    const res = await admin.get('/api/jobs');
    const names = (res.body as { name: string }[]).map((j) => j.name);
    expect(names).to.include.members([EXPIRE, 'dms.document.review_due', 'engine.sessions', 'engine.idempotency_keys', 'engine.webhook_deliveries', FAILING]);
    expect((await admin.post('/api/jobs', {})).status).to.equal(405);
    const user = await created(admin, '/api/user', { username: unique('user'), password: 'correct-horse-1' });
    const plain = admin.as((await createToken(service.db, user.id, 'test')).key);
    expect((await plain.get('/api/jobs')).status).to.equal(403);
    expect((await admin.get('/api/jobs?outcome=maybe')).status).to.equal(400);
  });
});

describe('scheduled jobs: manage run-job and JOBS=false', function () {
  this.timeout(180_000);
  let database: TestDatabase;
  before(async () => {
    database = await createTestDatabase();
  });
  after(async () => database?.drop());

  it('runs the expiry now; an instance with JOBS=false runs nothing itself', async () => {
    const service = await start(quick(database, { jobs: { run: false } }));
    let admin: Client;
    let ids: { past: number; current: number };
    try {
      admin = await adminOf(service);
      ids = await documents(admin);
      // the queue was never started here
      expect(((await service.db.raw(`select to_regclass('pgboss.job') as t`)) as { rows: { t: unknown }[] }).rows[0]!.t).to.equal(null);
      expect((await jobRow(admin, EXPIRE)).last_run).to.equal(null);
    } finally {
      // the embedded database serves one process at a time: the command runs once the service has stopped
      await service.close();
    }
    const ran = await manage(database, 'run-job', EXPIRE);
    expect(ran.code, ran.stderr).to.equal(0);
    expect(ran.stdout).to.include(`Job "${EXPIRE}" succeeded.`);
    const unknown = await manage(database, 'run-job', 'dms.document.nope');
    expect(unknown.code).to.equal(2);
    expect(unknown.stderr).to.include('No job "dms.document.nope"; the jobs are ');

    const again = await start(quick(database, { jobs: { run: false } }));
    try {
      const client = new Client(again.url, admin!.token);
      expect((await client.get(`/api/dms/document/${ids!.past}`)).body.state).to.equal('expired');
      expect((await client.get(`/api/dms/document/${ids!.current}`)).body.state).to.equal('approved');
      expect(await jobRow(client, EXPIRE)).to.include({ outcome: 'succeeded', attempt: 1 });
    } finally {
      await again.close();
    }
  });
});
