/**
 * Background imports (engine/exchange/import-jobs.ts): one row per import too large to answer at
 * once, holding the uploaded file until the import has run, its progress while it runs and its
 * outcome after; served at `/api/jobs/imports/{id}` to the user who sent it. The row is the queue:
 * an instance runs a job while it holds the job's advisory lock, so a job runs once however many
 * instances poll, and one whose instance died is taken up again.
 */
import type { Knex } from 'knex';

export async function up(knex: Knex): Promise<void> {
  await knex.schema.createTable('import_jobs', (t) => {
    t.increments('id').primary();
    t.string('resource', 200).notNullable();
    t.integer('user_id').notNullable().references('id').inTable('users').onDelete('CASCADE');
    t.string('mode', 10).notNullable();
    t.string('key', 20).notNullable();
    t.boolean('dry_run').notNullable().defaultTo(false);
    t.string('format', 10).notNullable();
    // the upload, kept until the job has run
    t.binary('file').nullable();
    t.string('status', 10).notNullable().defaultTo('queued').index();
    t.integer('attempts').notNullable().defaultTo(0);
    t.integer('rows_total').nullable();
    t.integer('rows_done').notNullable().defaultTo(0);
    t.jsonb('result').nullable();
    t.jsonb('errors').nullable();
    t.text('detail').nullable();
    t.timestamp('created_at', { useTz: true, precision: 3 }).notNullable().defaultTo(knex.fn.now());
    t.timestamp('started_at', { useTz: true, precision: 3 }).nullable();
    t.timestamp('finished_at', { useTz: true, precision: 3 }).nullable();
  });
  await knex.raw(`alter table import_jobs add constraint import_jobs_status_check check (status in ('queued', 'running', 'succeeded', 'failed'))`);
}

export async function down(knex: Knex): Promise<void> {
  await knex.schema.dropTable('import_jobs');
}
