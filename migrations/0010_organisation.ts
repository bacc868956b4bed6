/** Organisation module: org units, employees, functions, memberships, employment terms and skills. */
import type { Knex } from 'knex';
import { foreignKey, joinTable, recordColumns } from '../engine/storage/schema-helpers.js';

export async function up(knex: Knex): Promise<void> {
  // Units and employees point at each other: the unit table comes first, its `head_id` is added
  // once the employee table exists.
  await knex.schema.createTable('organisation_orgunit', (t) => {
    recordColumns(knex, t);
    t.string('title', 255).notNullable().index();
    t.string('number', 50).nullable();
    t.text('description').nullable();
    t.enu('state', ['draft', 'active', 'archived']).notNullable().defaultTo('draft').index();
    t.string('email', 254).nullable();
    t.string('phone', 50).nullable();
    t.string('website', 500).nullable();
    t.boolean('show_in_orgchart').notNullable().defaultTo(true).index();
    t.boolean('staff_position').notNullable().defaultTo(false).index();
    t.integer('planned_fte').nullable();
    foreignKey(t, 'parent_id', 'organisation_orgunit', 'set null');
  });
  await joinTable(knex, 'organisation_orgunit_admins', { column: 'orgunit_id', table: 'organisation_orgunit' }, { column: 'user_id', table: 'users' });
  await joinTable(knex, 'organisation_orgunit_hr_admins', { column: 'orgunit_id', table: 'organisation_orgunit' }, { column: 'user_id', table: 'users' });

  await knex.schema.createTable('organisation_mitarbeitende', (t) => {
    recordColumns(knex, t);
    t.string('vorname', 100).notNullable();
    t.string('nachname', 100).notNullable();
    t.string('email', 254).nullable();
    t.string('phone', 50).nullable();
    t.enu('employment_type', ['intern', 'extern', 'ehemalig']).notNullable().defaultTo('intern').index();
    t.date('entry_date').nullable().index();
    t.date('exit_date').nullable().index();
    t.boolean('archived').notNullable().defaultTo(false).index();
    foreignKey(t, 'user_id', 'users', 'set null');
    foreignKey(t, 'supervisor_id', 'organisation_mitarbeitende', 'set null');
    foreignKey(t, 'orgunit_id', 'organisation_orgunit', 'set null');
    t.index(['nachname', 'vorname']);
  });
  await knex.schema.alterTable('organisation_orgunit', (t) => {
    foreignKey(t, 'head_id', 'organisation_mitarbeitende', 'set null');
  });

  await knex.schema.createTable('organisation_funktionen', (t) => {
    recordColumns(knex, t);
    t.string('abbreviation', 20).nullable();
    t.string('title', 255).notNullable().index();
    t.text('description').nullable();
    t.text('competences').nullable();
    t.text('responsibility').nullable();
    t.boolean('archived').notNullable().defaultTo(false).index();
  });

  await knex.schema.createTable('organisation_membership', (t) => {
    recordColumns(knex, t);
    t.date('start').nullable().index();
    t.date('end').nullable().index();
    t.integer('degree').nullable();
    t.text('description').nullable();
    t.boolean('show_in_orgchart').notNullable().defaultTo(true).index();
    foreignKey(t, 'employee_id', 'organisation_mitarbeitende', 'cascade', true);
    foreignKey(t, 'orgunit_id', 'organisation_orgunit', 'protect', true);
    foreignKey(t, 'function_id', 'organisation_funktionen', 'set null');
  });

  await knex.schema.createTable('organisation_salary', (t) => {
    recordColumns(knex, t);
    t.date('valid_from').notNullable().index();
    t.date('valid_to').nullable().index();
    t.decimal('amount', 14, 2).nullable();
    t.enu('currency', ['CHF', 'EUR', 'USD']).notNullable().defaultTo('CHF').index();
    t.enu('wage_type', ['monthly', 'hourly', 'yearly']).notNullable().defaultTo('monthly').index();
    t.integer('degree').nullable();
    t.decimal('weekly_hours', 5, 2).nullable();
    t.enu('work_time_model', ['standard', 'half_day_flex', 'fixed_hours']).notNullable().defaultTo('standard').index();
    t.boolean('trust_based').notNullable().defaultTo(false).index();
    t.decimal('vacation_days', 5, 1).nullable();
    t.decimal('custom_vacation_days', 5, 1).nullable();
    foreignKey(t, 'employee_id', 'organisation_mitarbeitende', 'cascade', true);
  });

  await knex.schema.createTable('organisation_skill_category', (t) => {
    recordColumns(knex, t);
    t.string('title', 255).notNullable().index();
    t.text('description').nullable();
    t.boolean('archived').notNullable().defaultTo(false).index();
  });

  await knex.schema.createTable('organisation_skill', (t) => {
    recordColumns(knex, t);
    t.string('title', 255).notNullable().index();
    t.text('description').nullable();
    t.boolean('archived').notNullable().defaultTo(false).index();
  });
  await joinTable(knex, 'organisation_skill_categories', { column: 'skill_id', table: 'organisation_skill' }, { column: 'skill_category_id', table: 'organisation_skill_category' });
}

export async function down(knex: Knex): Promise<void> {
  for (const table of ['organisation_skill_categories', 'organisation_skill', 'organisation_skill_category', 'organisation_salary', 'organisation_membership', 'organisation_funktionen']) {
    await knex.schema.dropTable(table);
  }
  // break the unit ↔ employee cycle before dropping either table
  await knex.schema.alterTable('organisation_orgunit', (t) => {
    t.dropColumn('head_id');
  });
  for (const table of ['organisation_mitarbeitende', 'organisation_orgunit_hr_admins', 'organisation_orgunit_admins', 'organisation_orgunit']) {
    await knex.schema.dropTable(table);
  }
}
