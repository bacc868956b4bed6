/**
 * Aggregates (issue 27): `GET {resource}/aggregate` counts and sums what the list would serve the
 * caller, equal to SQL over the rows their record rule lets them see; time buckets follow the TZ
 * setting; AGGREGATE_MAX_GROUPS bounds the answer; a field behind a read permission is unknown to
 * whoever lacks it.
 */
import { expect } from 'chai';
import { Client as McpClient } from '@modelcontextprotocol/sdk/client/index.js';
import { StreamableHTTPClientTransport } from '@modelcontextprotocol/sdk/client/streamableHttp.js';
import type { CallToolResult } from '@modelcontextprotocol/sdk/types.js';
import { createLogger } from '../engine/log.js';
import { loadRegistry } from '../engine/registry/registry.js';
import { startService, type RunningService } from '../engine/service.js';
import { Client } from './support/client.js';
import { describeWithServer } from './support/database.js';
import { created, makeUser, unique, type TestUser } from './support/fixtures.js';
import { suite, testConfig } from './support/hooks.js';

const registry = await loadRegistry();
const CONTRACTS = registry.get('contracts/contract');
const FOLDERS = registry.get('contracts/folder');
const EMPLOYEES = registry.get('organisation/mitarbeitende');
const viewing = (...keys: string[]) => keys.map((k) => registry.get(k).permissions.view);

type Group = { group: Record<string, unknown>; count?: number; sum?: Record<string, string>; avg?: Record<string, string>; min?: Record<string, unknown>; max?: Record<string, unknown> };

describe('aggregates', function () {
  this.timeout(120_000);
  const tag = unique('agg');
  let reader: TestUser;
  let open: number;

  before(async () => {
    const { admin } = suite();
    open = (await created(admin, FOLDERS.path, { title: `${tag} open`, visibility: 'normal' })).id;
    const closed = (await created(admin, FOLDERS.path, { title: `${tag} closed`, visibility: 'protected' })).id;
    const partner = (await created(admin, registry.get('contracts/partner').path, { name: `${tag} partner` })).id;
    const rows: [number, string, string | null, number | null, number | null][] = [
      [open, 'draft', '100.10', 10, partner],
      [open, 'draft', '0.05', null, null],
      [open, 'active', '12345678901.99', 3, partner],
      [open, 'active', null, 7, partner],
      [open, 'expired', '2.00', 1, null],
      [closed, 'draft', '999.99', 5, partner],
      [closed, 'active', '1.00', 2, null],
    ];
    for (const [i, [folder, state, amount, duration, partnerId]] of rows.entries()) {
      // a contract starts as a draft or active; it expires later
      const record = await created(admin, CONTRACTS.path, { title: `${tag} ${i}`, folder_id: folder, state: state === 'expired' ? 'active' : state, amount, duration, partner_id: partnerId });
      if (state === 'expired') expect((await admin.patch(`${CONTRACTS.path}/${record.id}`, { state })).status).to.equal(200);
    }
    reader = await makeUser({ permissions: viewing('contracts/contract', 'contracts/folder') });
  });

  /** The groups a reader sees, computed by PostgreSQL over the rows of the open folder (the only one the reader may see). */
  async function expected(): Promise<Group[]> {
    const { rows } = (await suite().service.db.raw(
      `select state, partner_id, count(*)::int as n, sum(amount)::text as amount, sum(duration)::text as duration, min(duration) as least, max(amount)::text as most
         from ?? where title like ? and folder_id = ? group by 1, 2 order by 1, 2`,
      [CONTRACTS.table, `${tag} %`, open],
    )) as { rows: Record<string, any>[] };
    return rows.map((r) => ({
      group: { state: r.state, partner: r.partner_id },
      count: r.n,
      sum: { amount: r.amount, duration: r.duration },
      min: { duration: r.least },
      max: { amount: r.most },
    }));
  }

  it('counts, sums and takes extremes over the records the caller sees, decimals exact as strings', async () => {
    const res = await reader.client.get(`${CONTRACTS.path}/aggregate?search=${tag}&group_by=state,partner&count=true&sum=amount,duration&min=duration&max=amount`);
    expect(res.status, res.text).to.equal(200);
    const want = await expected();
    expect(want.map((g) => g.count).reduce((a, b) => a! + b!, 0), 'the open folder’s five').to.equal(5);
    expect(res.body).to.deep.equal(want);
    // the superuser sees the protected folder's too
    const all = await suite().admin.get(`${CONTRACTS.path}/aggregate?search=${tag}`);
    expect(all.body).to.deep.equal([{ group: {}, count: 7 }]);
  });

  it('applies the list’s filters, and averages exactly', async () => {
    const res = await reader.client.get(`${CONTRACTS.path}/aggregate?search=${tag}&state=active&avg=duration&count=false`);
    expect(res.status, res.text).to.equal(200);
    expect(res.body).to.have.length(1);
    expect(Number(res.body[0].avg.duration)).to.equal(5);
    expect(res.body[0]).to.not.have.property('count');
  });

  it('answers 400 naming each unknown, ungroupable or unsummable name', async () => {
    const res = await reader.client.get(`${CONTRACTS.path}/aggregate?group_by=title,state:month,nothing&sum=state&count=maybe`);
    expect(res.status).to.equal(400);
    expect(res.body.group_by).to.deep.equal(['Cannot group by "title".', 'Cannot group by "state:month": "state" is not a date or time.', 'Cannot group by "nothing".']);
    expect(res.body.sum).to.deep.equal(['Cannot sum "state": it is not a summable field.']);
    expect(res.body.count).to.have.length(1);
    const bucket = await reader.client.get(`${CONTRACTS.path}/aggregate?group_by=from_date:fortnight`);
    expect(bucket.status).to.equal(400);
    expect(bucket.body.group_by[0]).to.match(/^Unknown time bucket "fortnight"/);
    // each name is an argument of a JSON object in the statement: PostgreSQL takes at most 100
    const many = await reader.client.get(`${CONTRACTS.path}/aggregate?group_by=${Array(51).fill('state').join(',')}&sum=${Array(51).fill('amount').join(',')}`);
    expect(many.body).to.deep.equal({ group_by: ['Name at most 50 fields.'], sum: ['Name at most 50 fields.'] });
  });

  it('keeps a field behind a read permission from whoever lacks it, as ordering does', async () => {
    const hr = await makeUser({ permissions: [...viewing('organisation/mitarbeitende'), 'organisation.view_private_data'] });
    const staff = await makeUser({ permissions: viewing('organisation/mitarbeitende') });
    const path = `${EMPLOYEES.path}/aggregate?group_by=civil_status`;
    expect((await hr.client.get(path)).status).to.equal(200);
    const refused = await staff.client.get(path);
    expect(refused.status).to.equal(400);
    expect(refused.body).to.deep.equal({ group_by: ['Cannot group by "civil_status".'] });
    expect((await staff.client.get(`${EMPLOYEES.path}/aggregate?group_by=employment_type`)).status).to.equal(200);
  });

  it('answers the same through the MCP tool aggregate_records, which describe_resources explains', async () => {
    const mcp = new McpClient({ name: 'reporting-test', version: '1.0.0' });
    await mcp.connect(new StreamableHTTPClientTransport(new URL('/mcp', suite().service.url), { requestInit: { headers: { Authorization: `Token ${reader.token}` } } }));
    try {
      const call = async (name: string, args: Record<string, unknown>) => {
        const [content] = ((await mcp.callTool({ name, arguments: args })) as CallToolResult).content;
        return JSON.parse(content?.type === 'text' ? content.text : 'null');
      };
      const groups = await call('aggregate_records', { resource: CONTRACTS.key, search: tag, group_by: 'state,partner', sum: 'amount,duration', min: 'duration', max: 'amount' });
      expect(groups).to.deep.equal(await expected());
      const [described] = await call('describe_resources', { resource: CONTRACTS.key });
      expect(described.summable).to.include.members(['amount', 'duration']);
      expect(described.groupable).to.deep.include({ name: 'created', buckets: ['day', 'week', 'month', 'quarter', 'year'] });
      const refused = await call('aggregate_records', { resource: CONTRACTS.key, group_by: 'title' });
      expect(refused).to.deep.equal({ status: 400, error: { group_by: ['Cannot group by "title".'] } });
    } finally {
      await mcp.close();
    }
  });

  it('needs the view permission', async () => {
    const stranger = await makeUser({ permissions: viewing('contracts/folder') });
    expect((await stranger.client.get(`${CONTRACTS.path}/aggregate`)).status).to.equal(403);
  });

  describeWithServer('with TZ=Europe/Zurich and AGGREGATE_MAX_GROUPS=2', 'a second service on the same database', () => {
    let zurich: RunningService;
    let client: Client;
    const times = ['2026-01-31T22:30:00Z', '2026-01-31T23:30:00Z', '2026-03-31T21:59:00Z', '2026-03-31T22:01:00Z'];

    before(async () => {
      const { database, admin } = suite();
      zurich = await startService(
        testConfig(database, { webhooks: { dispatch: false }, jobs: { run: false }, reports: { timeZone: 'Europe/Zurich', maxGroups: 2 } }),
        createLogger('silent'),
        { quiet: true, prepared: true },
      );
      client = new Client(zurich.url, admin.token!);
      for (const [i, at] of times.entries()) {
        const record = await created(admin, CONTRACTS.path, { title: `${tag}-t${i}`, folder_id: open });
        await suite().service.db(CONTRACTS.table).where({ id: record.id }).update({ created: at });
      }
    });

    after(async () => {
      await zurich?.close();
    });

    it('refuses to start with a zone PostgreSQL does not know, naming the setting', async () => {
      // given directly (reading TZ would refuse it already): a zone a newer Node knows and an older PostgreSQL does not
      const refused = await startService(testConfig(suite().database, { reports: { timeZone: 'Etc/Unknown' } }), createLogger('silent'), { quiet: true, prepared: true }).then(
        (svc) => svc.close().then(() => undefined),
        (err: unknown) => err,
      );
      expect(String(refused)).to.contain('Invalid setting TZ="Etc/Unknown": PostgreSQL does not know this time zone');
    });

    it('buckets moments by the quarters and months of the zone', async () => {
      const quarters = await client.get(`${CONTRACTS.path}/aggregate?search=${tag}-t&group_by=created:quarter`);
      expect(quarters.status, quarters.text).to.equal(200);
      // 22:01 UTC on 31 March is 00:01 on 1 April in Zurich (CEST): the second quarter
      expect(quarters.body).to.deep.equal([
        { group: { 'created:quarter': '2026-01-01' }, count: 3 },
        { group: { 'created:quarter': '2026-04-01' }, count: 1 },
      ]);
      // in UTC (the suite's service) all four are in the first quarter, two in January and two in March
      const utc = await suite().admin.get(`${CONTRACTS.path}/aggregate?search=${tag}-t&group_by=created:month`);
      expect(utc.body).to.deep.equal([
        { group: { 'created:month': '2026-01-01' }, count: 2 },
        { group: { 'created:month': '2026-03-01' }, count: 2 },
      ]);
      const weeks = await client.get(`${CONTRACTS.path}/aggregate?search=${tag}-t&group_by=created:year,state`);
      expect(weeks.body).to.deep.equal([{ group: { 'created:year': '2026-01-01', state: 'draft' }, count: 4 }]);
    });

    it('refuses more groups than AGGREGATE_MAX_GROUPS with 400', async () => {
      // 23:30 UTC on 31 January is 00:30 on 1 February in Zurich: four days, more than two groups
      const days = await client.get(`${CONTRACTS.path}/aggregate?search=${tag}-t&group_by=created:day`);
      expect(days.status).to.equal(400);
      expect(days.body.group_by[0]).to.match(/^More than 2 groups/);
      expect((await client.get(`${CONTRACTS.path}/aggregate?search=${tag}-t&group_by=created:quarter`)).status).to.equal(200);
    });
  });
});
