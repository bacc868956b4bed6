/**
 * Imports (engine/exchange): CSV and XLSX sheets into a resource through the API's write path, all
 * or nothing. One bad row among 10,000 writes nothing and is named; an upsert by remote_key updates
 * the records it names and creates the rest; a dry run writes nothing; the permissions of the mode
 * are checked first; the template parses back with its headers and drop-down lists; a background
 * import kept by one service process is run by the next one after a restart.
 */
import { expect } from 'chai';
import ExcelJS from 'exceljs';
import { parse } from 'csv-parse/sync';
import { createToken } from '../engine/auth/tokens.js';
import { IMPORT_JOBS_KEPT_DAYS } from '../engine/exchange/import-jobs.js';
import { ENGINE_CHORES } from '../engine/jobs/chores.js';
import { Client } from './support/client.js';
import { createTestDatabase, describeWithServer, type TestDatabase } from './support/database.js';
import { created, makeUser, unique } from './support/fixtures.js';
import { suite } from './support/hooks.js';
import { startServiceProcess, type ServiceProcess } from './support/processes.js';
import { until } from './support/wait.js';
import knexFactory, { type Knex } from 'knex';

const CSV = { 'Content-Type': 'text/csv' };
const XLSX = 'application/vnd.openxmlformats-officedocument.spreadsheetml.sheet';

/** CSV text of `rows` (the header first); the test's values hold no quotes, commas or line breaks. */
const csv = (rows: readonly (readonly unknown[])[]): string => rows.map((r) => r.join(',')).join('\r\n');

async function tracker(): Promise<number> {
  return (await created(suite().admin, '/api/issue/tracker', { title: unique('tracker') })).id as number;
}

const issuesOf = (trackerId: number) => suite().service.db('issue_issue').where({ tracker_id: trackerId });
/** How many issues `trackerId` holds (a number on both drivers: pg answers a bigint count as text, PGlite as a number). */
const issuesIn = async (trackerId: number): Promise<number> => Number((await issuesOf(trackerId).count({ n: '*' }))[0]!.n);

describe('imports', function () {
  this.timeout(180_000);

  it('writes nothing when one row among 10,000 is bad, and names that row and field', async () => {
    const t = await tracker();
    const rows: unknown[][] = [['title', 'tracker_id', 'deadline']];
    for (let i = 1; i <= 10_000; i++) rows.push([`imported ${i}`, t, i === 7_321 ? 'not-a-date' : '2026-12-01']);
    const res = await suite().admin.post('/api/issue/issue/import', undefined, { raw: csv(rows), headers: CSV });
    expect(res.status, res.text.slice(0, 500)).to.equal(400);
    // row 1 is the header: the 7,321st record is row 7,322
    expect(res.body.errors).to.deep.equal([{ row: 7322, field: 'deadline', messages: ['Date has wrong format. Use one of these formats instead: YYYY-MM-DD.'] }]);
    expect(await issuesIn(t)).to.equal(0);
  });

  it('imports every row when all are valid, with labels as headers and choices by label', async () => {
    const t = await tracker();
    const rows = [['Titel', 'Meldekreis *', 'Status', 'deadline'], ['first', t, 'Neu', '2026-12-01'], ['second', t, '', '']];
    const res = await suite().admin.post('/api/issue/issue/import', undefined, { raw: csv(rows), headers: CSV });
    expect(res.status, res.text).to.equal(200);
    expect(res.body).to.deep.equal({ rows: 2, created: 2, updated: 0, dry_run: false });
    const stored = await issuesOf(t).orderBy('id').select('title', 'state');
    expect(stored).to.deep.equal([
      { title: 'first', state: 'new' },
      { title: 'second', state: 'new' },
    ]);
  });

  it('lists every error of every row, with the messages the API gives', async () => {
    const t = await tracker();
    const rows = [['title', 'tracker_id', 'category_ids'], ['', t, ''], ['ok', 999_999, ''], ['fine', t, '']];
    const res = await suite().admin.post('/api/issue/issue/import', undefined, { raw: csv(rows), headers: CSV });
    expect(res.status, res.text).to.equal(400);
    const api = await suite().admin.post('/api/issue/issue', { title: 'ok', tracker_id: 999_999 });
    expect(res.body.errors).to.deep.equal([
      { row: 2, field: 'title', messages: ['This field is required.'] },
      { row: 3, field: 'tracker_id', messages: api.body.tracker_id },
    ]);
    expect(await issuesIn(t)).to.equal(0);
  });

  it('refuses unknown columns before reading any row', async () => {
    const res = await suite().admin.post('/api/issue/issue/import', undefined, { raw: csv([['title', 'colour'], ['x', 'red']]), headers: CSV });
    expect(res.status).to.equal(400);
    expect(res.body.errors).to.deep.equal([{ row: 1, field: 'colour', messages: ['Unknown column: no field has this name or label.'] }]);
  });

  it('upserts by remote_key: updates the records it names and creates the rest (XLSX)', async () => {
    const t = await tracker();
    const key = unique('ext');
    const existing = await created(suite().admin, '/api/issue/issue', { title: 'old title', tracker_id: t, remote_key: `${key}-1` });
    const book = new ExcelJS.Workbook();
    const sheet = book.addWorksheet('issues');
    sheet.addRow(['remote_key', 'title', 'tracker_id', 'deadline']);
    sheet.addRow([`${key}-1`, 'new title', t, new Date(Date.UTC(2026, 11, 24))]);
    sheet.addRow([`${key}-2`, 'brand new', t, null]);
    const bytes = Buffer.from(await book.xlsx.writeBuffer());
    const res = await suite().admin.post('/api/issue/issue/import?mode=upsert&key=remote_key', undefined, { raw: bytes, headers: { 'Content-Type': XLSX } });
    expect(res.status, res.text).to.equal(200);
    expect(res.body).to.deep.equal({ rows: 2, created: 1, updated: 1, dry_run: false });
    const stored = await issuesOf(t).orderBy('id').select('id', 'title', 'remote_key', suite().service.db.raw(`to_char(deadline, 'YYYY-MM-DD') as deadline`));
    expect(stored).to.deep.equal([
      { id: existing.id, title: 'new title', remote_key: `${key}-1`, deadline: '2026-12-24' },
      { id: stored[1].id, title: 'brand new', remote_key: `${key}-2`, deadline: null },
    ]);
  });

  it('updates by id, and names a row whose record does not exist', async () => {
    const t = await tracker();
    const one = await created(suite().admin, '/api/issue/issue', { title: 'one', tracker_id: t });
    const ok = await suite().admin.post('/api/issue/issue/import?mode=update', undefined, { raw: csv([['id', 'state'], [one.id, 'pending']]), headers: CSV });
    expect(ok.status, ok.text).to.equal(200);
    expect((await suite().admin.get(`/api/issue/issue/${one.id}`)).body.state).to.equal('pending');
    const missing = await suite().admin.post('/api/issue/issue/import?mode=update', undefined, { raw: csv([['id', 'title'], [one.id, 'renamed'], [2_000_000_000, 'x']]), headers: CSV });
    expect(missing.status).to.equal(400);
    expect(missing.body.errors).to.deep.equal([{ row: 3, field: 'id', messages: ['Not found.'] }]);
    expect((await suite().admin.get(`/api/issue/issue/${one.id}`)).body.title).to.equal('one');
  });

  it('round-trips an export whose formulas are escaped: the spreadsheet sees text, the import the values', async () => {
    const t = await tracker();
    const titles = ['=1+1', '-draft', '+49 30 1234', '@home', "'=already quoted", "'plain quote", 'plain'];
    for (const title of titles) await created(suite().admin, '/api/issue/issue', { title, tracker_id: t });
    const exported = async (escape: boolean) => {
      const res = await suite().admin.get(`/api/issue/issue?tracker=${t}&ordering=id&fields=id,title&format=csv${escape ? '&escape_formulas=true' : ''}`);
      expect(res.status, res.text).to.equal(200);
      return res.text;
    };
    const cells = (text: string) => (parse(text, { columns: true }) as { Title: string }[]).map((r) => r.Title);
    // not asked: the JSON list's values; asked: every text a spreadsheet would read as a formula quoted
    expect(cells(await exported(false))).to.deep.equal(titles);
    const escaped = await exported(true);
    expect(cells(escaped)).to.deep.equal(["'=1+1", "'-draft", "'+49 30 1234", "'@home", "''=already quoted", "'plain quote", 'plain']);
    // ids are numbers, never quoted
    expect((parse(escaped, { columns: true }) as { Id: string }[]).every((r) => /^\d+$/.test(r.Id))).to.equal(true);
    await suite().service.db('issue_issue').where({ tracker_id: t }).update({ title: 'changed' });
    const res = await suite().admin.post('/api/issue/issue/import?mode=update', undefined, { raw: escaped, headers: CSV });
    expect(res.status, res.text).to.equal(200);
    expect(await issuesOf(t).orderBy('id').pluck('title')).to.deep.equal(titles);
    expect((await suite().admin.get(`/api/issue/issue?format=csv&escape_formulas=maybe`)).body).to.deep.equal({ escape_formulas: ['Select a valid choice. maybe is not one of the available choices.'] });
  });

  it('removes finished background imports after IMPORT_JOBS_KEPT_DAYS, never a queued or running one', async () => {
    const { service, adminId } = suite();
    const db = service.db;
    const resource = unique('purge');
    const job = (status: string, days: number | null) => ({
      resource, user_id: adminId, mode: 'create', key: 'id', format: 'csv', status,
      finished_at: days === null ? null : db.raw(`now() - make_interval(days => ?)`, [days]),
    });
    await db('import_jobs').insert([job('succeeded', IMPORT_JOBS_KEPT_DAYS + 1), job('failed', IMPORT_JOBS_KEPT_DAYS + 5), job('succeeded', 1), job('queued', null), job('running', null)]);
    const chore = ENGINE_CHORES.find((c) => c.name === 'import_jobs')!;
    await db.transaction((trx) => chore.run({ trx } as Parameters<typeof chore.run>[0]));
    expect(await db('import_jobs').where({ resource }).orderBy('id').pluck('status')).to.deep.equal(['succeeded', 'queued', 'running']);
  });

  it('a dry run validates every row and writes nothing', async () => {
    const t = await tracker();
    const good = await suite().admin.post('/api/issue/issue/import?dry_run=true', undefined, { raw: csv([['title', 'tracker_id'], ['a', t], ['b', t]]), headers: CSV });
    expect(good.status, good.text).to.equal(200);
    expect(good.body).to.deep.equal({ rows: 2, created: 2, updated: 0, dry_run: true });
    const bad = await suite().admin.post('/api/issue/issue/import?dry_run=true', undefined, { raw: csv([['title', 'tracker_id'], ['a', t], ['b', 'x']]), headers: CSV });
    expect(bad.status).to.equal(400);
    expect(bad.body.errors).to.have.length(1);
    expect(bad.body.errors[0]).to.include({ row: 3, field: 'tracker_id' });
    expect(await issuesIn(t)).to.equal(0);
  });

  it("checks the mode's permissions before reading the file", async () => {
    const t = await tracker();
    const viewer = await makeUser({ permissions: ['issues.view_issue', 'issues.change_issue'] });
    const body = { raw: csv([['title', 'tracker_id'], ['a', t]]), headers: CSV };
    expect((await viewer.client.post('/api/issue/issue/import', undefined, body)).status).to.equal(403);
    expect((await viewer.client.post('/api/issue/issue/import?mode=upsert', undefined, body)).status).to.equal(403);
    const adder = await makeUser({ permissions: ['issues.view_issue', 'issues.add_issue', 'issues.view_tracker'] });
    expect((await adder.client.post('/api/issue/issue/import?mode=update', undefined, body)).status).to.equal(403);
    const res = await adder.client.post('/api/issue/issue/import', undefined, body);
    expect(res.status, res.text).to.equal(200);
    expect(await issuesIn(t)).to.equal(1);
  });

  it('refuses other media types and bad options with clear answers', async () => {
    const admin = suite().admin;
    expect((await admin.post('/api/issue/issue/import', { title: 'x' })).status).to.equal(415);
    const bad = await admin.post('/api/issue/issue/import?mode=merge&dry_run=maybe', undefined, { raw: 'title', headers: CSV });
    expect(bad.status).to.equal(400);
    expect(Object.keys(bad.body)).to.have.members(['mode', 'dry_run']);
  });

  it('takes a multipart form file', async () => {
    const t = await tracker();
    const form = new FormData();
    form.append('file', new Blob([csv([['title', 'tracker_id'], ['from a form', t]])], { type: 'text/csv' }), 'issues.csv');
    const res = await fetch(`${suite().admin.baseUrl}/api/issue/issue/import`, { method: 'POST', body: form, headers: { Authorization: `Token ${suite().admin.token}` } });
    expect(res.status, await res.clone().text()).to.equal(200);
    expect(await issuesOf(t).pluck('title')).to.deep.equal(['from a form']);
  });

  it('serves a template with required marks and choices as drop-down lists (XLSX), and a CSV header', async () => {
    const res = await fetch(`${suite().admin.baseUrl}/api/issue/issue/import/template?format=xlsx`, { headers: { Authorization: `Token ${suite().admin.token}` } });
    expect(res.status).to.equal(200);
    expect(res.headers.get('content-type')).to.equal(XLSX);
    const book = new ExcelJS.Workbook();
    await book.xlsx.load(await res.arrayBuffer());
    const sheet = book.worksheets[0]!;
    const headers = (sheet.getRow(1).values as unknown[]).slice(1);
    expect(headers).to.include.members(['title *', 'tracker_id *', 'state', 'category_ids', 'remote_key']);
    const stateColumn = sheet.getColumn(headers.indexOf('state') + 1).letter;
    const validation = sheet.getCell(`${stateColumn}2`).dataValidation;
    expect(validation.type).to.equal('list');
    const values = book.getWorksheet('Values')!;
    const listed = /Values!\$([A-Z]+)\$1:\$[A-Z]+\$(\d+)/.exec(validation.formulae![0] as string)!;
    const choices = Array.from({ length: Number(listed[2]) }, (_, i) => values.getCell(`${listed[1]}${i + 1}`).value);
    expect(choices).to.deep.equal(['new', 'pending', 'accepted', 'active', 'effectiveness_check', 'resolved', 'rejected']);
    const text = await suite().admin.get('/api/issue/issue/import/template?format=csv');
    expect(text.status).to.equal(200);
    const [header] = parse(text.text) as string[][];
    expect(header).to.deep.equal(headers);
  });
});

describeWithServer('a background import survives a restart of the service', 'a second connection reads the rows while the service runs', function () {
  this.timeout(240_000);
  let database: TestDatabase;
  let db: Knex;
  let service: ServiceProcess | undefined;
  before(async () => {
    database = await createTestDatabase();
  });
  after(async () => {
    await service?.stop();
    await db?.destroy();
    await database?.drop();
  });

  it('answers 202 with the job, keeps the file, and the next instance imports it once', async () => {
    // the first instance runs no jobs: the import waits in its row while the service is stopped
    const small = { IMPORT_SYNC_MAX_BYTES: '1000' };
    service = await startServiceProcess(database, { ...small, JOBS: 'false' });
    const admin = new Client(service.url, service.token!);
    const t = (await created(admin, '/api/issue/tracker', { title: 'background' })).id as number;
    const rows: unknown[][] = [['title', 'tracker_id']];
    for (let i = 1; i <= 2_000; i++) rows.push([`background ${i}`, t]);
    const res = await admin.post('/api/issue/issue/import', undefined, { raw: csv(rows), headers: CSV });
    expect(res.status, res.text).to.equal(202);
    const location = res.headers.get('location')!;
    expect(location).to.equal(`/api/jobs/imports/${res.body.id}`);
    expect(res.body).to.include({ status: 'queued', mode: 'create', dry_run: false });
    service.child.kill('SIGKILL');
    await service.exited;

    service = await startServiceProcess(database, { ...small, JOBS: 'true' });
    const again = new Client(service.url, service.token ?? admin.token);
    const done = await until('the background import', async () => {
      const job = await again.get(location);
      expect(job.status, job.text).to.equal(200);
      return job.body.status === 'succeeded' || job.body.status === 'failed' ? job.body : undefined;
    });
    expect(done).to.deep.include({ status: 'succeeded', result: { rows: 2000, created: 2000, updated: 0, dry_run: false }, progress: { done: 2000, total: 2000 } });
    db = knexFactory({ client: 'pg', connection: database.databaseUrl, pool: { min: 0, max: 1 } });
    expect(await db('issue_issue').where({ tracker_id: t }).count({ n: '*' })).to.deep.equal([{ n: '2000' }]);
    // the kept file is gone once the job has run
    expect(await db('import_jobs').where({ id: res.body.id }).first('file')).to.deep.equal({ file: null });
    // another user does not see the job
    const other = (await db('users').insert({ username: unique('other'), password: '!', is_superuser: false }).returning('id')) as { id: number }[];
    const stranger = again.as((await createToken(db, other[0]!.id, 'test')).key);
    expect((await stranger.get(location)).status).to.equal(404);
  });

  it('gives a running import up at a stop, rolled back and queued again unattempted, instead of waiting for it', async () => {
    await service?.stop();
    service = await startServiceProcess(database, { IMPORT_SYNC_MAX_BYTES: '1000', JOBS: 'true' });
    db ??= knexFactory({ client: 'pg', connection: database.databaseUrl, pool: { min: 0, max: 1 } });
    const superuser = (await db('users').where({ is_superuser: true }).orderBy('id').first('id')) as { id: number };
    const admin = new Client(service.url, (await createToken(db, superuser.id, 'stop')).key);
    // a dry run of 400,000 rows: minutes of work
    const res = await admin.post('/api/issue/issue/import?dry_run=true', undefined, { raw: `title\r\n${'x\r\n'.repeat(400_000)}`, headers: CSV });
    expect(res.status, res.text).to.equal(202);
    await until('the import running', async () => ((await admin.get(`/api/jobs/imports/${res.body.id}`)).body.progress.done > 0 ? true : undefined));
    expect(await service.stop(), 'a clean exit').to.equal(0);
    expect(await db('import_jobs').where({ id: res.body.id }).first('status', 'attempts', 'rows_done')).to.deep.equal({ status: 'queued', attempts: 0, rows_done: 0 });
    await db('import_jobs').where({ id: res.body.id }).delete();
  });
});
