/** Root hooks: one database and one listening service for the whole run, torn down at the end. */
import type { DatabaseConfig, ServerConfig } from '../../engine/config.js';
import { createLogger } from '../../engine/log.js';
import { startService, type RunningService } from '../../engine/service.js';
import { createToken } from '../../engine/auth/tokens.js';
import { Client } from './client.js';
import { createTestDatabase, TEST_FIELD_KEY, type TestDatabase } from './database.js';

export interface Suite {
  service: RunningService;
  database: TestDatabase;
  /** A client holding the superuser's token. */
  admin: Client;
  adminId: number;
}

let current: Suite | undefined;

export function suite(): Suite {
  if (!current) throw new Error('The test service is not running.');
  return current;
}

/** The settings of an in-process test service on `database`, with `overrides`. */
export function testConfig(database: DatabaseConfig, overrides: Partial<ServerConfig> = {}): ServerConfig {
  return {
    databaseUrl: database.databaseUrl,
    dataDir: database.dataDir,
    fieldKeys: { current: TEST_FIELD_KEY, previous: [] },
    host: '127.0.0.1',
    port: 0,
    logLevel: process.env.TEST_LOG_LEVEL ?? 'silent',
    secureCookies: false,
    trustProxy: false,
    // long: a change that failed to drop a cached principal fails the test that made it, instead of passing by expiry
    principalCacheMs: 60_000,
    ...overrides,
  };
}

export const mochaHooks = {
  async beforeAll(this: Mocha.Context) {
    this.timeout(120_000);
    const database = await createTestDatabase();
    const service = await startService(
      // no dispatcher nor job queue: their polls would add to the queries the tests count (webhooks.test.ts
      // and jobs.test.ts start services that deliver and run jobs)
      testConfig(database, { webhooks: { dispatch: false }, jobs: { run: false } }),
      createLogger(process.env.TEST_LOG_LEVEL ?? 'silent'),
      { quiet: true },
    );
    const admin = (await service.db('users').where({ username: 'admin' }).first('id')) as { id: number };
    const { key } = await createToken(service.db, admin.id, 'tests');
    current = { service, database, admin: new Client(service.url, key), adminId: admin.id };
  },
  async afterAll(this: Mocha.Context) {
    this.timeout(60_000);
    if (!current) return;
    await current.service.close();
    await current.database.drop();
  },
};
