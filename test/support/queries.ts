/** The SQL the service runs while `work` runs. */
import { suite } from './hooks.js';

export async function queriesOf(work: () => Promise<unknown>): Promise<string[]> {
  const { db } = suite().service;
  const sql: string[] = [];
  const listener = (query: { sql: string }) => void sql.push(query.sql);
  db.on('query', listener);
  try {
    await work();
  } finally {
    db.removeListener('query', listener);
  }
  return sql;
}

export const countQueries = async (work: () => Promise<unknown>): Promise<number> => (await queriesOf(work)).length;
