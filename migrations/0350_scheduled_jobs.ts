/**
 * The scheduled jobs and their last run (engine/jobs): one row per declared job, kept in step with
 * the declarations by every instance at start, its run columns written after each run; served
 * read-only at `/api/jobs`. The queue itself is pg-boss's schema `pgboss`, which pg-boss creates
 * and migrates itself when an instance with JOBS on starts.
 */
import type { Knex } from 'knex';

export async function up(knex: Knex): Promise<void> {
  await knex.schema.createTable('scheduled_jobs', (t) => {
    t.increments('id').primary();
    t.string('name', 200).notNullable().unique();
    t.string('schedule', 100).notNullable();
    t.text('description').notNullable();
    t.timestamp('last_started', { useTz: true, precision: 3 }).nullable();
    t.timestamp('last_finished', { useTz: true, precision: 3 }).nullable();
    t.string('outcome', 10).nullable();
    t.text('last_error').nullable();
    t.integer('attempt').nullable();
    t.timestamp('next_run', { useTz: true, precision: 3 }).nullable();
  });
  await knex.raw(`alter table scheduled_jobs add constraint scheduled_jobs_outcome_check check (outcome in ('succeeded', 'failed'))`);
}

export async function down(knex: Knex): Promise<void> {
  await knex.schema.dropTable('scheduled_jobs');
  await knex.raw('drop schema if exists pgboss cascade');
}
