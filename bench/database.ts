/** The bench's own database: created on the server, migrated with the service's migrations, dropped at the end. */
import { randomBytes } from 'node:crypto';
import knexFactory, { type Knex } from 'knex';
import { migrateLatest } from '../engine/storage/migrate.js';

export interface BenchDatabase {
  url: string;
  db: Knex;
  drop(): Promise<void>;
}

const onServer = (serverUrl: string) => knexFactory({ client: 'pg', connection: serverUrl, pool: { min: 0, max: 1 } });

export async function createBenchDatabase(serverUrl: string): Promise<BenchDatabase> {
  const name = `bms_bench_${randomBytes(4).toString('hex')}`;
  const admin = onServer(serverUrl);
  try {
    await admin.raw(`create database ${name}`);
  } finally {
    await admin.destroy();
  }
  const url = new URL(serverUrl);
  url.pathname = `/${name}`;
  const db = knexFactory({ client: 'pg', connection: url.toString(), pool: { min: 0, max: 4 } });
  const drop = async () => {
    await db.destroy();
    const a = onServer(serverUrl);
    try {
      await a.raw(`drop database if exists ${name} with (force)`);
    } finally {
      await a.destroy();
    }
  };
  try {
    await migrateLatest(db);
  } catch (err) {
    await drop();
    throw err;
  }
  return { url: url.toString(), db, drop };
}
