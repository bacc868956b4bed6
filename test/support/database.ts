/**
 * A throwaway database per test run: a new database on `DATABASE_URL`'s server (dropped
 * afterwards), or, without `DATABASE_URL`, an embedded PGlite in a temporary directory.
 */
import fs from 'node:fs';
import os from 'node:os';
import path from 'node:path';
import { randomBytes } from 'node:crypto';
import knexFactory from 'knex';

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
