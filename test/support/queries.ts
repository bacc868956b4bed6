/** The statements the service runs while `work` runs, as Knex reports them. */
import { suite } from './hooks.js';

export interface Statement {
  sql: string;
  bindings: unknown[];
}

export async function statementsOf(work: () => Promise<unknown>): Promise<Statement[]> {
  const { db } = suite().service;
  const seen: Statement[] = [];
  const listener = ({ sql, bindings }: Statement) => void seen.push({ sql, bindings: bindings ?? [] });
  db.on('query', listener);
  try {
    await work();
  } finally {
    db.removeListener('query', listener);
  }
  return seen;
}

/** The SQL the service runs while `work` runs. */
export const queriesOf = async (work: () => Promise<unknown>): Promise<string[]> => (await statementsOf(work)).map((s) => s.sql);

export const countQueries = async (work: () => Promise<unknown>): Promise<number> => (await statementsOf(work)).length;

/**
 * The SQL `work` runs beside authenticating its token: the principal's load when its cache entry
 * (a few seconds, not extended by a hit) has just run out, and the token's last use (due once a
 * minute), either of which may fall into any request.
 */
export const ownQueries = async (work: () => Promise<unknown>): Promise<string[]> => (await queriesOf(work)).filter((sql) => !/\bapi_tokens\b/.test(sql));
