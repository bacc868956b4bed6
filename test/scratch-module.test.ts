/**
 * "Write the declaration, run one command, done", kept: the README's example module (two resources,
 * a foreign key, a filter, a state machine, no `table`) is added to a scratch copy of the compiled
 * project, `makemigrations` writes its migration, and the copy's registry-driven test files pass on
 * it with no other file edited: the CRUD walk, the state machines, the schema agreement, the write
 * paths and record shapes (for the new module's resources), the specification's paths and the
 * OpenAPI document (whole).
 */
import fs from 'node:fs';
import os from 'node:os';
import path from 'node:path';
import { expect } from 'chai';
import { createTestDatabase, type TestDatabase } from './support/database.js';
import { codeBlocks } from './support/doc-blocks.js';
import { dist, run, type Run } from './support/processes.js';
import { ScratchProject } from './support/scratch-project.js';

const root = path.resolve(dist, '..');
/** The README's whole module file: its TypeScript block that defines a module. */
const example = codeBlocks(fs.readFileSync(path.join(root, 'README.md'), 'utf8')).find((b) => b.lang === 'ts' && b.text.includes('defineModule('));
/** The module it declares, and its file name. */
const moduleName = /defineModule\(\{ name: '(\w+)'/.exec(example?.text ?? '')?.[1];

/** makemigrations compares on an in-memory PGlite: no database server, and a data directory never created. */
const NO_DATABASE: TestDatabase = { databaseUrl: undefined, dataDir: path.join(os.tmpdir(), 'bms-never-opened'), drop: async () => undefined };
const expectRun = (result: Run, code: number) => expect(result.code, `exit ${result.code}\n${result.stdout}\n${result.stderr}`).to.equal(code);

describe('a scratch module, added as the README shows', function () {
  this.timeout(900_000);
  let project: ScratchProject;
  let db: TestDatabase;

  before(async () => {
    expect(example, 'the README shows a whole module file').to.not.equal(undefined);
    expect(example!.text, 'the example relies on the table convention').to.not.match(/\btable:/);
    project = new ScratchProject(['engine', 'resources', 'migrations', 'test']);
    fs.cpSync(path.join(root, 'docs'), project.path('docs'), { recursive: true });
    db = await createTestDatabase();
  });
  after(async () => {
    await db?.drop();
    project?.remove();
  });

  it('makemigrations writes its migration, and nothing else is needed', async () => {
    project.compile(`resources/${moduleName}.ts`, example!.text);
    const made = await project.manage(NO_DATABASE, 'makemigrations', moduleName!);
    expectRun(made, 0);
    expect(made.stdout).to.include(`create table ${moduleName}_vehicle (/api/${moduleName}/vehicle)`);
    expect(made.stdout).to.include(`create table ${moduleName}_booking (/api/${moduleName}/booking)`);
    expect(project.buildMigrations()).to.have.length(1);
    expectRun(await project.manage(NO_DATABASE, 'makemigrations', '--check'), 0);
  });

  it("passes the copy's registry-driven test files", async () => {
    const mocha = project.path('node_modules/mocha/bin/mocha.js');
    const files = (...names: string[]) => names.map((s) => project.path(`dist/test/${s}.test.js`));
    const options = ['--no-config', '--require', project.path('dist/test/support/hooks.js'), '--timeout', '120000', '--reporter', 'dot'];
    // per resource: only the new module's tests (the repository's own run in the suite itself)
    const perResource = await run(
      mocha,
      [...options, '--grep', `${moduleName}/`, ...files('registry-crud', 'resources-states', 'schema-agreement', 'write-paths-differential', 'record-shapes')],
      db,
    );
    expectRun(perResource, 0);
    const passing = Number(/(\d+) passing/.exec(perResource.stdout)?.[1]);
    // create, filters, PUT/PATCH, required fields, delete of both; every transition; the schema checks
    expect(passing, perResource.stdout).to.be.at.least(20);
    expect(perResource.stdout).to.not.match(/failing|pending/);
    // whole files that check every resource at once
    const whole = await run(mocha, [...options, ...files('resources-spec-paths', 'openapi-document')], db);
    expectRun(whole, 0);
    expect(whole.stdout).to.not.match(/failing/);
  });
});
