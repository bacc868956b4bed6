/**
 * A throwaway database per test run: a new database on `DATABASE_URL`'s server (dropped
 * afterwards), or, without `DATABASE_URL`, an embedded PGlite in a temporary directory.
 */
import fs from 'node:fs';
import os from 'node:os';
import path from 'node:path';
import { randomBytes } from 'node:crypto';
import knexFactory from 'knex';

/** The field encryption key of the tests' services and processes (one for all: they share databases). */
export const TEST_FIELD_KEY = 'a1'.repeat(32);

export interface TestDatabase {
  databaseUrl: string | undefined;
  dataDir: string;
  drop(): Promise<void>;
}

export async function createTestDatabase(): Promise<TestDatabase> {
  const dataDir = fs.mkdtempSync(path.join(os.tmpdir(), 'bms-test-'));
  const serverUrl = process.env.DATABASE_URL;
  if (!serverUrl) {
    return { databaseUrl: undefined, dataDir, drop: async () => fs.rmSync(dataDir, { recursive: true, force: true }) };
  }
  const name = `bms_test_${process.pid}_${randomBytes(4).toString('hex')}`;
  const admin = knexFactory({ client: 'pg', connection: serverUrl, pool: { min: 0, max: 1 } });
  await admin.raw(`create database ${name}`);
  await admin.destroy();
  const url = new URL(serverUrl);
  url.pathname = `/${name}`;
  return {
    databaseUrl: url.toString(),
    dataDir,
    drop: async () => {
      const a = knexFactory({ client: 'pg', connection: serverUrl, pool: { min: 0, max: 1 } });
      await a.raw(`drop database if exists ${name} with (force)`);
      await a.destroy();
      fs.rmSync(dataDir, { recursive: true, force: true });
    },
  };
}

/**
 * Marks a suite that tests what only a PostgreSQL server has (statement and lock timeouts, several
 * processes on one database, plans at scale): without `DATABASE_URL` the run is on the embedded
 * PGlite, so the suite is reported pending with `why` in its title instead of passing vacuously.
 * CI always sets `DATABASE_URL`, so there these suites always run.
 */
export function describeWithServer(title: string, why: string, body: (this: Mocha.Suite) => void): void {
  if (process.env.DATABASE_URL) describe(title, body);
  else describe.skip(`${title} (needs DATABASE_URL: ${why})`, body);
}
