/**
 * `manage makemigrations`, as processes: the repository's migrations match its declarations; in a
 * scratch copy of the compiled project, docs/declarations.md's kpi/target declaration plus the command is all a
 * new resource takes (migrated, served, and passing the registry-driven suites); changed
 * declarations give the right migration, drops only with --allow-drop; and every generated
 * down() restores the schema its up() found.
 */
import fs from 'node:fs';
import os from 'node:os';
import path from 'node:path';
import { expect } from 'chai';
import knexFactory from 'knex';
import { Registry, loadDeclarations } from '../engine/registry/registry.js';
import { readSchema } from '../engine/schema/catalogue.js';
import { embeddedDatabase } from '../engine/storage/embedded.js';
import { Client } from './support/client.js';
import { createTestDatabase, type TestDatabase } from './support/database.js';
import { Samples } from './support/samples.js';
import { run, type Run } from './support/processes.js';
import { ScratchProject } from './support/scratch-project.js';

/** The comparison needs no database: the command runs without DATABASE_URL, on a data directory never created. */
const NO_DATABASE: TestDatabase = { databaseUrl: undefined, dataDir: path.join(os.tmpdir(), 'bms-never-opened'), drop: async () => undefined };

/** docs/declarations.md's "Adding a resource" example (its table by convention), with the changes later tests make. */
function targetSource(o: { code?: number; states?: string[] } = {}): string {
  const states = o.states ?? ['draft', 'agreed'];
  const code = o.code ? `code: field.string({ maxLength: ${o.code}, allowBlank: true, lookups: ['exact', 'icontains'], description: 'Short code.' }),` : '';
  return `import { defineResource, field, fk } from '../engine/declare/index.js';
export const target = defineResource({
  module: 'kpi',
  name: 'target',
  title: 'KPI target',
  description: 'The value a KPI should reach in a given year.',
  fields: {
    year: field.integer({ required: true, minimum: 2000, maximum: 2100, filter: true, description: 'Calendar year.' }),
    value: field.decimal({ required: true, digits: 18, decimals: 4, description: 'Target value.' }),
    state: field.state({
      values: ${JSON.stringify(states)}, default: 'draft', initial: ['draft'],
      transitions: { draft: ['agreed'] },
      description: 'draft until agreed; agreed is final.',
    }),
    ${code}
  },
  relations: {
    kpi: fk('kpi/kpi', { required: true, onDelete: 'cascade', description: 'KPI the target is for.' }),
  },
});
export default [target];
`;
}

const expectRun = (result: Run, code: number) => expect(result.code, `exit ${result.code}\n${result.stdout}\n${result.stderr}`).to.equal(code);

describe('makemigrations', function () {
  // each comparison migrates an in-memory PGlite, which takes seconds on a busy machine
  this.timeout(600_000);

  it('--check passes on the repository: its migrations make the declared schema', async () => {
    const check = await run('engine/cli/manage.js', ['makemigrations', '--check'], NO_DATABASE);
    expectRun(check, 0);
    expect(check.stdout).to.equal('No changes: the migrations make the schema the declarations describe.\n');
    expect(fs.existsSync(NO_DATABASE.dataDir), 'no database opened').to.equal(false);
  });

  describe('in a scratch copy of the compiled project', () => {
    let project: ScratchProject;
    let db: TestDatabase;
    /** The first start's token, and a record the later migrations find. */
    let token: string;
    let kept: Record<string, any>;
    const makemigrations = (...args: string[]) => project.manage(NO_DATABASE, 'makemigrations', ...args);
    const migrationFiles = () => (fs.existsSync(project.path('migrations')) ? fs.readdirSync(project.path('migrations')) : []);
    const read = (file: string) => fs.readFileSync(project.path('migrations', file), 'utf8');

    /** The n-th migration the copy writes: numbered on from the repository's last. */
    let numbered: (n: number, name: string) => string;

    before(async () => {
      project = new ScratchProject(['engine', 'resources', 'migrations', 'test']);
      db = await createTestDatabase();
      const last = Math.max(...fs.readdirSync(project.path('dist/migrations')).map((f) => Number(/^(\d+)_/.exec(f)?.[1] ?? 0)));
      numbered = (n, name) => `${String(last + n).padStart(4, '0')}_${name}.ts`;
    });
    after(async () => {
      await db.drop();
      project.remove();
    });

    it('writes the new resource as one migration, prints it, and is up to date afterwards', async () => {
      project.compile('resources/kpi-target.ts', targetSource());
      const check = await makemigrations('--check');
      expectRun(check, 1);
      expect(check.stdout).to.include('create table kpi_target (/api/kpi/target)');
      expect(migrationFiles(), '--check writes nothing').to.deep.equal([]);

      const made = await makemigrations('kpi_target');
      expectRun(made, 0);
      expect(migrationFiles()).to.deep.equal([numbered(1, 'kpi_target')]);
      expect(made.stdout).to.include(`Wrote migrations/${numbered(1, 'kpi_target')} (1 change):\n  create table kpi_target (/api/kpi/target)\n`);
      const file = read(numbered(1, 'kpi_target'));
      for (const line of [
        "await knex.schema.createTable('kpi_target', (t) => {",
        "t.increments('id');",
        "t.integer('year').notNullable();",
        "t.decimal('value', 18, 4).notNullable();",
        "t.enu('state', ['draft', 'agreed']).notNullable().defaultTo('draft');",
        "t.integer('kpi_id').notNullable();",
        "t.foreign('kpi_id').references('kpi_kpi.id').onDelete('CASCADE');",
        "t.foreign('created_by').references('users.id').onDelete('SET NULL');",
        "t.unique(['uuid']);",
        "t.index(['year']);",
        "t.index(['kpi_id']);",
        "await knex.raw(`comment on table \"kpi_target\" is 'bms:managed'`);",
        "await knex.schema.dropTable('kpi_target');",
      ]) {
        expect(file).to.include(line);
      }

      expect(project.buildMigrations()).to.deep.equal([numbered(1, 'kpi_target')]);
      const again = await makemigrations();
      expectRun(again, 0);
      expect(again.stdout).to.include('No changes');
      expect(migrationFiles()).to.have.length(1);
    });

    it('migrates a fresh database, and the copy serves the resource over HTTP', async () => {
      const migrate = await project.manage(db, 'migrate');
      expectRun(migrate, 0);
      expect(migrate.stdout).to.match(/^Applied \d+ migrations\.\n$/);
      const service = await project.start(db);
      try {
        expect(service.token, 'first start prints a token').to.be.a('string');
        token = service.token!;
        const client = new Client(service.url, token);
        const registry = new Registry(await loadDeclarations(project.path('dist/resources')));
        const target = registry.get('kpi/target');
        const created = await new Samples(client).create(target);
        expect(created).to.include({ state: 'draft' });
        const url = `/api/kpi/target/${created.id}`;
        expect((await client.get(url)).body).to.deep.equal(created);
        expect((await client.get('/api/kpi/target')).body.map((r: any) => r.id)).to.include(created.id);
        expect((await client.get(`/api/kpi/target?year=${created.year}`)).body.map((r: any) => r.id)).to.include(created.id);
        expect((await client.get(`/api/kpi/target?year=${created.year === 2100 ? 2000 : created.year + 1}`)).body.map((r: any) => r.id)).to.not.include(created.id);
        const put = await client.put(url, { ...created, value: '1234.5678' });
        expect(put.status, put.text).to.equal(200);
        expect(put.body.value).to.equal('1234.5678');
        const patch = await client.patch(url, { state: 'agreed' });
        expect(patch.status, patch.text).to.equal(200);
        expect(patch.body.state).to.equal('agreed');
        const back = await client.patch(url, { state: 'draft' });
        expect(back.status).to.equal(400);
        expect(back.body).to.deep.equal({ state: ['Transition from "agreed" to "draft" is not allowed.'] });
        const moves = await client.get(`${url}/transitions`);
        expect(moves.body.map((m: any) => m.to)).to.deep.equal(['draft', 'agreed']);
        const missing = await client.post('/api/kpi/target', {});
        expect(missing.status).to.equal(400);
        expect(Object.keys(missing.body).sort()).to.deep.equal(['kpi_id', 'value', 'year']);
        const tooEarly = await client.post('/api/kpi/target', { ...created, year: 1999 });
        expect(tooEarly.status).to.equal(400);
        expect(tooEarly.body).to.have.property('year');
        expect((await client.delete(url)).status).to.equal(204);
        expect((await client.get(url)).status).to.equal(404);
        // a record stays for the migrations that follow to work on
        kept = await new Samples(client).create(target);
      } finally {
        await service.stop();
      }
    });

    it('passes the registry-driven suites of the copy, without a test written for it', async () => {
      const mocha = project.path('node_modules/mocha/bin/mocha.js');
      const suites = ['registry-crud', 'resources-states', 'schema-agreement'].map((s) => project.path(`dist/test/${s}.test.js`));
      // its root hooks make a database of their own, on the same server (or PGlite) as this suite
      const suite = await run(mocha, ['--no-config', '--require', project.path('dist/test/support/hooks.js'), '--timeout', '120000', '--grep', 'kpi/target', ...suites], db);
      expectRun(suite, 0);
      const passing = Number(/(\d+) passing/.exec(suite.stdout)?.[1]);
      // create, filters, PUT/PATCH, required fields, delete; every transition; the schema checks
      expect(passing, suite.stdout).to.be.at.least(14);
      expect(suite.stdout).to.not.match(/failing|pending/);
    });

    it('turns a changed declaration into the change: a new field, a longer string, one more state', async () => {
      project.compile('resources/kpi-target.ts', targetSource({ code: 20, states: ['draft', 'agreed', 'retired'] }));
      const kpi = fs.readFileSync(project.path('dist/resources/kpi.js'), 'utf8');
      fs.writeFileSync(project.path('dist/resources/kpi.js'), kpi.replace('unit: field.string({ maxLength: 50,', 'unit: field.string({ maxLength: 80,'));
      const made = await makemigrations('targets_grow');
      expectRun(made, 0);
      expect(made.stdout).to.include(`Wrote migrations/${numbered(2, 'targets_grow')} (7 changes)`);
      for (const line of [
        'create extension if not exists pg_trgm (trigram indexes)',
        'kpi_target: drop check state in (draft, agreed)',
        'kpi_kpi.unit: type varchar(50) → varchar(80)',
        'kpi_target.code: add column "code" varchar(20)',
        'kpi_target: add check state in (draft, agreed, retired)',
        'kpi_target: add index (code)',
        'kpi_target: add trigram index (code)',
      ]) {
        expect(made.stdout).to.include(`  ${line}\n`);
      }
      const file = read(numbered(2, 'targets_grow'));
      expect(file).to.include('await knex.raw(`create index "kpi_target_code_trgm" on "kpi_target" using gin ("code" gin_trgm_ops)`);');
      expect(file).to.include('await knex.raw(`alter table "kpi_kpi" alter column "unit" type varchar(80)`);');
      expect(file).to.include(`await knex.raw(\`alter table "kpi_target" add constraint "kpi_target_state_check" check ("state" in ('draft', 'agreed', 'retired'))\`);`);
      expect(file).to.include('await knex.raw(`alter table "kpi_kpi" alter column "unit" type varchar(50)`);');
      project.buildMigrations();
    });

    it('drops a field only with --allow-drop', async () => {
      project.compile('resources/kpi-target.ts', targetSource({ states: ['draft', 'agreed', 'retired'] }));
      const refused = await makemigrations();
      expectRun(refused, 1);
      expect(refused.stderr).to.include('Nothing written: the migration would drop stored data:\n  kpi_target.code: drop column (no longer declared)\n');
      expect(refused.stderr).to.include('--allow-drop');
      expect(migrationFiles()).to.have.length(2);

      const made = await makemigrations('--allow-drop');
      expectRun(made, 0);
      expect(made.stdout).to.include(
        `Wrote migrations/${numbered(3, 'kpi_target')} (3 changes):\n  kpi_target: drop index (code)\n  kpi_target: drop trigram index (code)\n  kpi_target.code: drop column (no longer declared)\n`,
      );
      expect(read(numbered(3, 'kpi_target'))).to.include('await knex.raw(`alter table "kpi_target" drop column "code"`);');
      project.buildMigrations();
      expectRun(await makemigrations('--check'), 0);
    });

    it('refuses to take over a table it does not manage, such as the engine\'s sessions', async () => {
      const intruder = `import { defineResource, field } from '../engine/declare/index.js';
export default [defineResource({ module: 'kpi', name: 'session', table: 'sessions', title: 'S', description: 'S',
  fields: { note: field.string({ maxLength: 10, description: 'N' }) } })];`;
      project.compile('resources/kpi-session.ts', intruder);
      try {
        const made = await makemigrations();
        expectRun(made, 1);
        expect(made.stderr).to.include('Error: table "sessions" (/api/kpi/session) exists, but makemigrations does not manage it');
        expect(migrationFiles()).to.have.length(3);
      } finally {
        fs.rmSync(project.path('dist/resources/kpi-session.js'));
      }
    });

    it('applies the changes to a database holding records, which the copy then serves', async () => {
      const migrate = await project.manage(db, 'migrate');
      expectRun(migrate, 0);
      expect(migrate.stdout).to.equal('Applied 2 migrations.\n');
      const service = await project.start(db);
      try {
        const client = new Client(service.url, token);
        const [record] = (await client.get('/api/kpi/target')).body;
        expect(record).to.include({ id: kept.id, state: 'draft', value: kept.value });
        expect(record).to.not.have.property('code');
        // 80 characters fit the longer column now
        const unit = await client.patch(`/api/kpi/kpi/${kept.kpi}`, { unit: 'u'.repeat(80) });
        expect(unit.status, unit.text).to.equal(200);
      } finally {
        await service.stop();
      }
    });

    it('undoes every generated migration with its down(), back to the schema its up() found', async () => {
      const fresh = await createTestDatabase();
      const conn = fresh.databaseUrl
        ? knexFactory({ client: 'pg', connection: fresh.databaseUrl })
        : embeddedDatabase();
      const config = { directory: project.path('dist/migrations'), loadExtensions: ['.js'] };
      const last = async () => ((await conn.migrate.list(config)) as [{ name: string }[], unknown])[0].at(-1)?.name ?? '';
      const snapshot = async () => Object.fromEntries([...(await readSchema(conn))].sort(([a], [b]) => a.localeCompare(b)));
      try {
        // up to the last migration before 0211 (which adopts the schema); then every later one, 0211 included
        while ((await last()) < '0211') await conn.migrate.up(config);
        await conn.migrate.down(config);
        const before = await snapshot();
        expect(before).to.not.have.property('kpi_target');
        await conn.migrate.latest(config);
        expect(await last()).to.equal(numbered(3, 'kpi_target').replace(/\.ts$/, '.js'));
        while ((await last()) >= '0211') await conn.migrate.down(config);
        expect(await snapshot()).to.deep.equal(before);
      } finally {
        await conn.destroy();
        await fresh.drop();
      }
    });
  });
});
