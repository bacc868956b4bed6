/** Projects module: projects, phases, milestones, tasks and their links. */
import type { Knex } from 'knex';
import { foreignKey, joinTable, recordColumns } from '../engine/storage/schema-helpers.js';

const RATING = ['green', 'orange', 'red'];

export async function up(knex: Knex): Promise<void> {
  await knex.schema.createTable('projects_project', (t) => {
    recordColumns(knex, t);
    t.string('number', 50).nullable();
    t.string('title', 255).notNullable().index();
    t.text('description').nullable();
    t.enu('state', ['planned', 'verification', 'approved', 'active', 'finished', 'postponed', 'cancelled']).notNullable().defaultTo('planned').index();
    t.enu('classification', ['normal', 'confidential']).notNullable().defaultTo('normal').index();
    t.enu('rating', RATING).nullable().index();
    t.date('start').nullable().index();
    t.date('end').nullable().index();
    t.date('deadline').nullable().index();
    t.decimal('investment_value', 14, 2).nullable();
    t.decimal('personnel_effort', 10, 2).nullable();
    foreignKey(t, 'parent_id', 'projects_project', 'set null');
    foreignKey(t, 'lead_id', 'organisation_mitarbeitende', 'set null');
    foreignKey(t, 'lead_orgunit_id', 'organisation_orgunit', 'set null');
  });
  await joinTable(knex, 'projects_project_orgunits', { column: 'project_id', table: 'projects_project' }, { column: 'orgunit_id', table: 'organisation_orgunit' });
  await joinTable(knex, 'projects_project_admins', { column: 'project_id', table: 'projects_project' }, { column: 'user_id', table: 'users' });
  await joinTable(knex, 'projects_project_team_members', { column: 'project_id', table: 'projects_project' }, { column: 'employee_id', table: 'organisation_mitarbeitende' });

  await knex.schema.createTable('projects_phase', (t) => {
    recordColumns(knex, t);
    t.string('title', 255).notNullable().index();
    t.text('description').nullable();
    t.text('notes').nullable();
    t.date('start').notNullable().index();
    t.date('end').notNullable().index();
    foreignKey(t, 'project_id', 'projects_project', 'cascade', true);
  });

  await knex.schema.createTable('projects_milestone', (t) => {
    recordColumns(knex, t);
    t.string('title', 255).notNullable().index();
    t.text('description').nullable();
    t.date('date').notNullable().index();
    t.boolean('reached').notNullable().defaultTo(false).index();
    t.enu('rating', RATING).nullable().index();
    foreignKey(t, 'project_id', 'projects_project', 'cascade', true);
  });

  await knex.schema.createTable('projects_task', (t) => {
    recordColumns(knex, t);
    t.string('title', 255).notNullable().index();
    t.text('description').nullable();
    t.enu('state', ['draft', 'active', 'accounted', 'closed']).notNullable().defaultTo('draft').index();
    t.enu('priority', ['low', 'normal', 'high', 'urgent']).notNullable().defaultTo('normal').index();
    t.date('due_date').nullable().index();
    t.decimal('estimated_hours', 10, 2).nullable();
    t.decimal('hourly_rate', 14, 2).nullable();
    t.boolean('billable').notNullable().defaultTo(false).index();
    t.boolean('visible_to_all').notNullable().defaultTo(true).index();
    foreignKey(t, 'project_id', 'projects_project', 'cascade', true);
    foreignKey(t, 'phase_id', 'projects_phase', 'set null');
    foreignKey(t, 'milestone_id', 'projects_milestone', 'set null');
    foreignKey(t, 'assignee_id', 'organisation_mitarbeitende', 'set null');
  });
}

export async function down(knex: Knex): Promise<void> {
  for (const table of [
    'projects_task',
    'projects_milestone',
    'projects_phase',
    'projects_project_team_members',
    'projects_project_admins',
    'projects_project_orgunits',
    'projects_project',
  ]) {
    await knex.schema.dropTable(table);
  }
}
