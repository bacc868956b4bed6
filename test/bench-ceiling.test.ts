/**
 * `npm run bench -- --ceiling-captures`: the ceiling's writes go through the change capture, an
 * audit entry each as the service's, so the two differ only in their processes.
 */
import { expect } from 'chai';
import knexFactory, { type Knex } from 'knex';
import { readOptions } from '../bench/options.js';
import { createTestDatabase, describeWithServer, type TestDatabase } from './support/database.js';
import { run } from './support/processes.js';

describe('bench: --ceiling-captures', () => {
  it('is off unless given', () => {
    expect(readOptions([], {})!.ceilingCaptures).to.equal(false);
    expect(readOptions(['--ceiling-captures'], {})!.ceilingCaptures).to.equal(true);
  });
});

describeWithServer("bench: the ceiling's writes captured", 'the bench creates its database on a server', function () {
  this.timeout(600_000);
  let db: TestDatabase;
  before(async () => (db = await createTestDatabase()));
  after(async () => db?.drop());

  const on = async <T>(url: string, work: (knex: Knex) => Promise<T>): Promise<T> => {
    const knex = knexFactory({ client: 'pg', connection: url, pool: { min: 0, max: 1 } });
    try {
      return await work(knex);
    } finally {
      await knex.destroy();
    }
  };

  it("records an audit entry for each of the ceiling's creates, without an actor (the service's name theirs), and says so above the table", async () => {
    const { code, stdout, stderr } = await run('bench/bench.js', ['--smoke', '--workers', '1', '--scenarios', 'create', '--ceiling-captures', '--keep'], db, { DATABASE_URL: process.env.DATABASE_URL! });
    expect(code, stderr).to.equal(0);
    expect(stdout).to.include("the ceiling's writes captured as the service's (--ceiling-captures)");
    const kept = /Kept the database: (\S+)/.exec(stdout + stderr)?.[1];
    expect(kept, stdout + stderr).to.be.a('string');
    try {
      const counts = await on(kept!, async (knex) => {
        const { rows } = (await knex.raw(`select count(*) filter (where user_id is null)::int as ceiling, count(*) filter (where user_id is not null)::int as service
          from audit_entries where resource = 'issue/issue' and action = 'create'`)) as { rows: { ceiling: number; service: number }[] };
        return rows[0]!;
      });
      // the smoke run's 100 creates on each, and those of the check that both answer alike
      expect(counts.ceiling).to.be.at.least(100);
      expect(counts.service).to.be.at.least(100);
    } finally {
      await on(process.env.DATABASE_URL!, (knex) => knex.raw(`drop database if exists ${new URL(kept!).pathname.slice(1)} with (force)`));
    }
  });
});
