/**
 * pg-boss on the service's own connections, through Knex's pool: the same database whether it is a
 * PostgreSQL server or the embedded PGlite, which has one connection and no network, so pg-boss
 * could not open one of its own. A statement with values runs as one query; pg-boss's schema
 * scripts (several statements, no values) run as a script: pg's simple protocol, PGlite's `exec`.
 */
import type { Knex } from 'knex';

/** pg-boss's `db` option. */
export interface BossDb {
  executeSql(text: string, values?: unknown[]): Promise<{ rows: unknown[] }>;
}

interface Connection {
  query(text: string, values?: unknown[]): Promise<{ rows: unknown[] }>;
  /** PGlite's: runs a script, answering each statement's result. */
  exec?(text: string): Promise<{ rows: unknown[] }[]>;
}

interface PoolClient {
  acquireConnection(): Promise<Connection>;
  releaseConnection(conn: Connection): Promise<void>;
}

export function bossDb(db: Knex): BossDb {
  const client = db.client as PoolClient;
  return {
    async executeSql(text, values) {
      const conn = await client.acquireConnection();
      try {
        if (conn.exec && !values?.length) return (await conn.exec(text)).at(-1) ?? { rows: [] };
        return await conn.query(text, values);
      } finally {
        await client.releaseConnection(conn);
      }
    },
  };
}
