/** Timetracker module: work times, absences and monthly closings. */
import type { Knex } from 'knex';
import { foreignKey, recordColumns } from '../engine/storage/schema-helpers.js';

export async function up(knex: Knex): Promise<void> {
  await knex.schema.createTable('timetracker_worktime', (t) => {
    recordColumns(knex, t);
    t.date('date').notNullable().index();
    t.time('start_time').nullable();
    t.time('end_time').nullable();
    t.integer('break_minutes').notNullable().defaultTo(0);
    t.decimal('hours', 5, 2).nullable();
    t.text('description').nullable();
    foreignKey(t, 'employee_id', 'organisation_mitarbeitende', 'protect', true);
    foreignKey(t, 'project_id', 'projects_project', 'protect');
    foreignKey(t, 'task_id', 'projects_task', 'protect');
    foreignKey(t, 'card_id', 'teams_card', 'set null');
    foreignKey(t, 'issue_id', 'issue_issue', 'set null');
    // the usual query: one employee's entries in a date range
    t.index(['employee_id', 'date']);
  });

  await knex.schema.createTable('timetracker_absence', (t) => {
    recordColumns(knex, t);
    t.enu('type', ['vacation', 'sick', 'accident', 'military', 'parental', 'training', 'compensation', 'unpaid', 'other'])
      .notNullable()
      .defaultTo('vacation')
      .index();
    t.date('start_date').notNullable().index();
    t.date('end_date').notNullable().index();
    t.enu('day_part', ['full_day', 'morning', 'afternoon']).notNullable().defaultTo('full_day').index();
    t.text('description').nullable();
    t.enu('state', ['planned', 'in_review', 'approved', 'rejected', 'cancelled']).notNullable().defaultTo('planned').index();
    foreignKey(t, 'employee_id', 'organisation_mitarbeitende', 'protect', true);
  });

  await knex.schema.createTable('timetracker_monthlyclosing', (t) => {
    recordColumns(knex, t);
    t.integer('year').notNullable();
    t.integer('month').notNullable();
    t.enu('state', ['open', 'closed']).notNullable().defaultTo('open').index();
    t.decimal('worked_hours', 7, 2).nullable();
    t.decimal('target_hours', 7, 2).nullable();
    t.decimal('flextime_balance', 8, 2).nullable();
    t.decimal('vacation_balance', 6, 2).nullable();
    t.decimal('sick_days', 5, 1).nullable();
    t.decimal('flextime_correction', 7, 2).nullable();
    t.decimal('vacation_correction', 5, 2).nullable();
    t.text('remarks').nullable();
    foreignKey(t, 'employee_id', 'organisation_mitarbeitende', 'protect', true);
    foreignKey(t, 'closed_by_id', 'users', 'set null');
    t.index(['year', 'month']);
  });
}

export async function down(knex: Knex): Promise<void> {
  for (const table of ['timetracker_monthlyclosing', 'timetracker_absence', 'timetracker_worktime']) {
    await knex.schema.dropTable(table);
  }
}
