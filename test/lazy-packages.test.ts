/**
 * Packages that only some requests need are loaded by the first such request, not at start: each
 * holds heap for the life of the process (docs/performance.md, "Packages loaded when first
 * needed"). A service started and serving a read has loaded none of them; a static import added
 * back anywhere on the start's path fails here.
 */
import fs from 'node:fs';
import os from 'node:os';
import path from 'node:path';
import { expect } from 'chai';
import { Client } from './support/client.js';
import { createTestDatabase, type TestDatabase } from './support/database.js';
import { packagesOf, preloadOption } from './support/loaded-modules.js';
import { startServiceProcess } from './support/processes.js';

/** Uploads (busboy, file-type), imports (csv-parse, exceljs, unzipper), exports (csv-stringify), the YAML document, S3, MCP. */
const ON_DEMAND = ['busboy', 'file-type', 'csv-parse', 'exceljs', 'unzipper', 'csv-stringify', 'yaml', '@aws-sdk/client-s3', '@modelcontextprotocol/sdk'];
/** The embedded database, on a server. */
const EMBEDDED = ['@electric-sql/pglite', 'knex-pglite'];

describe('packages loaded when first needed', function () {
  this.timeout(120_000);
  let db: TestDatabase;
  let dir: string;
  before(async () => {
    db = await createTestDatabase();
    dir = fs.mkdtempSync(path.join(os.tmpdir(), 'bms-loaded-'));
  });
  after(async () => {
    fs.rmSync(dir, { recursive: true, force: true });
    await db?.drop();
  });

  it('a started service that has answered a read has loaded none of the packages only uploads, imports, exports, the YAML document, S3, MCP or (on a server) the embedded database need', async () => {
    const file = path.join(dir, 'modules.txt');
    const service = await startServiceProcess(db, { NODE_OPTIONS: preloadOption, LOADED_MODULES_FILE: file });
    try {
      const res = await new Client(service.url, service.token!).get('/api/issue/issue?page_size=1');
      expect(res.status, JSON.stringify(res.body)).to.equal(200);
    } finally {
      expect(await service.stop()).to.equal(0);
    }
    const loaded = packagesOf(fs.readFileSync(file, 'utf8').split('\n'));
    // both ways a module is seen: knex through require's cache, @koa/router (an ES module) through the hook
    expect([...loaded]).to.include.members(['knex', '@koa/router']);
    const unwanted = db.databaseUrl ? [...ON_DEMAND, ...EMBEDDED] : ON_DEMAND;
    expect(unwanted.filter((name) => loaded.has(name))).to.deep.equal([]);
  });
});
