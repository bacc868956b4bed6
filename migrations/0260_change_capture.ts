/**
 * One change capture for the audit trail and the webhook outbox. `bms_capture()` runs after each
 * row written to a declared resource's table (engine/audit/capture-triggers.ts attaches it to every
 * one, from the registry) and, in the writing transaction, appends an `audit_entries` row and one
 * `webhook_deliveries` row per matching active subscription (engine/audit/capture-function.ts). Who
 * wrote and which request did are transaction-local settings the engine sets first (engine/audit/actor.ts).
 */
import type { Knex } from 'knex';
import { captureFunction } from '../engine/audit/capture-function.js';

export async function up(knex: Knex): Promise<void> {
  await knex.schema.createTable('audit_entries', (t) => {
    t.bigIncrements('id').primary();
    t.timestamp('at', { useTz: true, precision: 3 }).notNullable().defaultTo(knex.fn.now()).index();
    // no foreign key: the trail outlives the user, and stays as written
    t.integer('user_id').nullable().index();
    t.string('action', 10).notNullable();
    t.string('resource', 100).notNullable();
    t.integer('record_id').notNullable();
    t.jsonb('changes').notNullable();
    t.string('request_id', 128).nullable();
    t.index(['resource', 'record_id']);
  });
  await knex.raw(`alter table audit_entries add constraint audit_entries_action_check check (action in ('create', 'update', 'delete'))`);
  await knex.raw(`create function audit_entries_append_only() returns trigger language plpgsql as $$
    begin
      raise exception 'audit_entries is append-only';
    end $$`);
  await knex.raw('create trigger audit_entries_append_only before update or delete or truncate on audit_entries for each statement execute function audit_entries_append_only()');

  await knex.schema.createTable('webhook_subscriptions', (t) => {
    t.increments('id').primary();
    t.string('url', 2000).notNullable();
    t.specificType('events', 'text[]').notNullable();
    t.string('secret', 255).notNullable();
    t.boolean('active').notNullable().defaultTo(true);
    t.timestamp('created', { useTz: true, precision: 3 }).notNullable().defaultTo(knex.fn.now());
    t.timestamp('modified', { useTz: true, precision: 3 }).notNullable().defaultTo(knex.fn.now());
    t.integer('created_by').nullable().references('id').inTable('users').onDelete('SET NULL');
  });
  await knex.schema.createTable('webhook_deliveries', (t) => {
    t.bigIncrements('id').primary();
    // X-BMS-Delivery: the same on every attempt
    t.uuid('uuid').notNullable().defaultTo(knex.raw('gen_random_uuid()')).unique();
    t.integer('subscription_id').notNullable().references('id').inTable('webhook_subscriptions').onDelete('CASCADE').index();
    t.string('event', 200).notNullable();
    t.string('resource', 100).notNullable();
    t.integer('record_id').notNullable();
    t.jsonb('data').notNullable();
    t.timestamp('at', { useTz: true, precision: 3 }).notNullable().defaultTo(knex.fn.now());
    t.string('status', 10).notNullable().defaultTo('pending');
    t.integer('attempts').notNullable().defaultTo(0);
    t.text('last_error').nullable();
    t.timestamp('next_attempt', { useTz: true, precision: 3 }).nullable().defaultTo(knex.fn.now());
    t.timestamp('delivered_at', { useTz: true, precision: 3 }).nullable();
  });
  await knex.raw(`alter table webhook_deliveries add constraint webhook_deliveries_status_check check (status in ('pending', 'delivered', 'failed'))`);
  // the dispatcher's scan: due pending deliveries only
  await knex.raw(`create index webhook_deliveries_due on webhook_deliveries (next_attempt) where status = 'pending'`);

  await knex.raw(captureFunction(false));
}

export async function down(knex: Knex): Promise<void> {
  await knex.raw('drop function bms_capture() cascade');
  await knex.schema.dropTable('webhook_deliveries');
  await knex.schema.dropTable('webhook_subscriptions');
  await knex.raw('drop table audit_entries');
  await knex.raw('drop function audit_entries_append_only()');
}
