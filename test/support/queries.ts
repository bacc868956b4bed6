/** Counts the SQL queries the service runs while `work` runs. */
import { suite } from './hooks.js';

export async function countQueries(work: () => Promise<unknown>): Promise<number> {
  const { db } = suite().service;
  let n = 0;
  const listener = () => void n++;
  db.on('query', listener);
  try {
    await work();
  } finally {
    db.removeListener('query', listener);
  }
  return n;
}
