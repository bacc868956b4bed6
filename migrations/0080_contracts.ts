/** Contracts module: folders, partners, types, periodicities, contracts, evaluations and value flows. */
import type { Knex } from 'knex';
import { foreignKey, joinTable, recordColumns } from '../engine/storage/schema-helpers.js';

const CURRENCIES = ['CHF', 'EUR', 'USD'];

export async function up(knex: Knex): Promise<void> {
  await knex.schema.createTable('contracts_folder', (t) => {
    recordColumns(knex, t);
    t.string('title', 255).notNullable().index();
    t.text('description').nullable();
    t.enu('visibility', ['normal', 'protected']).notNullable().defaultTo('normal').index();
    t.boolean('inherit_permissions').notNullable().defaultTo(false).index();
    t.boolean('archived').notNullable().defaultTo(false).index();
    foreignKey(t, 'parent_id', 'contracts_folder', 'cascade');
  });
  await joinTable(knex, 'contracts_folder_admins', { column: 'folder_id', table: 'contracts_folder' }, { column: 'user_id', table: 'users' });
  await joinTable(knex, 'contracts_folder_members', { column: 'folder_id', table: 'contracts_folder' }, { column: 'user_id', table: 'users' });

  await knex.schema.createTable('contracts_partner', (t) => {
    recordColumns(knex, t);
    t.string('name', 255).notNullable().index();
    t.enu('kind', ['organisation', 'person']).notNullable().defaultTo('organisation').index();
    t.string('email', 254).nullable();
    t.string('phone', 50).nullable();
    t.string('website', 500).nullable();
    t.text('address').nullable();
    t.text('description').nullable();
    t.boolean('archived').notNullable().defaultTo(false).index();
  });

  await knex.schema.createTable('contracts_type', (t) => {
    recordColumns(knex, t);
    t.string('title', 255).notNullable().index();
    t.text('description').nullable();
    t.boolean('archived').notNullable().defaultTo(false).index();
  });

  await knex.schema.createTable('contracts_periodicity', (t) => {
    recordColumns(knex, t);
    t.string('title', 255).notNullable().index();
    t.integer('months').notNullable();
    t.text('description').nullable();
  });

  await knex.schema.createTable('contracts_contract', (t) => {
    recordColumns(knex, t);
    t.string('title', 255).notNullable().index();
    t.text('description').nullable();
    t.enu('state', ['draft', 'active', 'cancelled', 'expired', 'archived']).notNullable().defaultTo('draft').index();
    t.date('from_date').nullable().index();
    t.date('to_date').nullable().index();
    t.integer('duration').nullable();
    t.text('modalities').nullable();
    t.string('period_of_notice', 100).nullable();
    t.date('earliest_cancellation_date').nullable().index();
    t.date('latest_cancellation_date').nullable().index();
    t.text('payment_modalities').nullable();
    t.enu('cashflow_type', ['in', 'out']).nullable().index();
    t.decimal('amount', 14, 2).nullable();
    t.enu('currency', CURRENCIES).notNullable().defaultTo('CHF').index();
    t.boolean('is_template').notNullable().defaultTo(false).index();
    foreignKey(t, 'folder_id', 'contracts_folder', 'protect', true);
    foreignKey(t, 'partner_id', 'contracts_partner', 'protect');
    foreignKey(t, 'type_id', 'contracts_type', 'set null');
    foreignKey(t, 'payment_periodicity_id', 'contracts_periodicity', 'set null');
    foreignKey(t, 'responsible_employee_id', 'organisation_mitarbeitende', 'set null');
    foreignKey(t, 'responsible_orgunit_id', 'organisation_orgunit', 'set null');
  });
  await joinTable(knex, 'contracts_contract_assigned_orgunits', { column: 'contract_id', table: 'contracts_contract' }, { column: 'orgunit_id', table: 'organisation_orgunit' });

  await knex.schema.createTable('contracts_evaluation', (t) => {
    recordColumns(knex, t);
    t.date('date').notNullable().index();
    t.integer('rating').notNullable();
    t.integer('quality').nullable();
    t.integer('reliability').nullable();
    t.integer('price').nullable();
    t.text('comment').nullable();
    foreignKey(t, 'partner_id', 'contracts_partner', 'cascade', true);
    foreignKey(t, 'contract_id', 'contracts_contract', 'set null');
  });

  await knex.schema.createTable('contracts_valueflow', (t) => {
    recordColumns(knex, t);
    t.enu('direction', ['in', 'out']).notNullable().index();
    t.decimal('amount', 14, 2).notNullable();
    t.enu('currency', CURRENCIES).notNullable().defaultTo('CHF').index();
    t.boolean('one_off').notNullable().defaultTo(false).index();
    t.date('start_date').nullable().index();
    t.date('end_date').nullable().index();
    t.text('description').nullable();
    foreignKey(t, 'contract_id', 'contracts_contract', 'cascade', true);
    foreignKey(t, 'periodicity_id', 'contracts_periodicity', 'set null');
  });
}

export async function down(knex: Knex): Promise<void> {
  for (const table of [
    'contracts_valueflow',
    'contracts_evaluation',
    'contracts_contract_assigned_orgunits',
    'contracts_contract',
    'contracts_periodicity',
    'contracts_type',
    'contracts_partner',
    'contracts_folder_members',
    'contracts_folder_admins',
    'contracts_folder',
  ]) {
    await knex.schema.dropTable(table);
  }
}
