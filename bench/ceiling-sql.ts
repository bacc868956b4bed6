/**
 * The ceiling's statements: the service's SQL shapes for issues (the same select list, the same
 * visibility predicate, the same token lookup), written out by hand. Each answer's JSON is built
 * by PostgreSQL and sent as text. Every statement is named, so PostgreSQL parses and plans it once
 * per connection.
 */
import type { QueryConfig } from 'pg';

/** The ceiling's environment variable that, `true`, has its writes go through the change capture (bench --ceiling-captures). */
export const CEILING_CAPTURES = 'BENCH_CEILING_CAPTURES';

export const WORKFLOW_MOVES: Record<string, readonly string[]> = {
  new: ['pending', 'rejected'],
  pending: ['accepted', 'rejected'],
  accepted: ['active', 'rejected'],
  active: ['effectiveness_check', 'rejected'],
  effectiveness_check: ['resolved', 'rejected'],
};

const MOVES = Object.entries(WORKFLOW_MOVES)
  .flatMap(([from, tos]) => tos.map((to) => `('${from}', '${to}')`))
  .join(', ');

const UTC = `'YYYY-MM-DD"T"HH24:MI:SS.MS"Z"'`;
const links = (table: string, column: string, row: string) => `array(select j.${column} from ${table} j where j.issue_id = ${row}.id order by 1)`;

/** The issue record as the service serves it, from the row `row`; `categories` may come from elsewhere (a create's own links). */
function record(row: string, categories = links('issue_issue_categories', 'category_id', row)): string {
  return [
    `${row}.id`,
    `${row}.uuid::text as uuid`,
    `${row}.title`,
    `${row}.description`,
    `${row}.state`,
    `to_char(${row}.deadline, 'YYYY-MM-DD') as deadline`,
    `${row}.archived`,
    `(select case d.visibility when 'normal' then 'official' when 'protected' then 'confidential' when 'confidential' then 'secret' end from issue_tracker d where d.id = ${row}.tracker_id) as classification`,
    `${row}.attachments`,
    `${row}.tracker_id as tracker`,
    `${row}.assigned_user_id as assigned_user`,
    `${categories} as categories`,
    `${links('issue_issue_contributors', 'user_id', row)} as contributors`,
    `${links('issue_issue_processes', 'process_id', row)} as processes`,
    `to_char(${row}.created at time zone 'UTC', ${UTC}) as created`,
    `to_char(${row}.modified at time zone 'UTC', ${UTC}) as modified`,
    `${row}.created_by`,
    `${row}.remote_key`,
  ].join(', ');
}

/** The issue's view rule for the user in parameter `$n`: its tracker's view rule, or the user created, is assigned or contributes to it. */
const visibleTo = (n: number) =>
  `(exists (select 1 from issue_tracker a1 where a1.id = t.tracker_id and (a1.visibility = 'normal'
     or exists (select 1 from issue_tracker_admins j1 where j1.tracker_id = a1.id and j1.user_id = $${n})
     or (a1.visibility = 'protected' and exists (select 1 from issue_tracker_teams j1 where j1.tracker_id = a1.id
       and j1.group_id in (select ug.group_id from users_groups ug where ug.user_id = $${n})))))
   or t.created_by = $${n} or t.assigned_user_id = $${n}
   or exists (select 1 from issue_issue_contributors j0 where j0.issue_id = t.id and j0.user_id = $${n}))`;

/** A row of the principal query: the active user behind an unexpired token. */
export interface PrincipalRow {
  id: number;
  is_superuser: boolean;
  permissions: string[];
  token_id: number;
  last_used: Date | null;
}

export const principal = (keyHash: string): QueryConfig => ({
  name: 'principal',
  text: `select u.id, u.is_superuser,
      array(select distinct p from users_groups ug join groups g on g.id = ug.group_id, unnest(g.permissions) p where ug.user_id = u.id) as permissions,
      k.id as token_id, k.last_used
    from users u join api_tokens k on k.user_id = u.id
    where k.key_hash = $1 and (k.expires is null or k.expires > now()) and u.is_active limit 1`,
  values: [keyHash],
});

export const touchToken = (tokenId: number): QueryConfig => ({ name: 'touch_token', text: 'update api_tokens set last_used = now() where id = $1', values: [tokenId] });

/** `userId` null: a superuser, who sees every issue. */
export function detail(id: number, userId: number | null): QueryConfig {
  const values: unknown[] = userId === null ? [id] : [id, userId];
  const where = userId === null ? '' : ` and ${visibleTo(2)}`;
  return {
    name: userId === null ? 'detail' : 'detail_visible',
    text: `select row_to_json(r)::text as body from (select ${record('t')} from issue_issue t where t.id = $1${where}) r`,
    values,
  };
}

export type ListFilters = Partial<Record<'tracker' | 'state' | 'search', string | number>>;

/** Each filter's condition on parameter `$n`: equality, or (search, an ILIKE pattern) the word in the title or the description, the issue's declared search fields, as the service searches them. */
const CONDITIONS = {
  tracker: (n: number) => `t.tracker_id = $${n}`,
  state: (n: number) => `t.state = $${n}`,
  search: (n: number) => `(t.title ilike $${n} or t.description ilike $${n})`,
};

/** The list under `filters`, ordered by id, as one JSON array. */
export function list(filters: ListFilters, userId: number | null): QueryConfig {
  const names = (['tracker', 'state', 'search'] as const).filter((f) => filters[f] !== undefined);
  const values: unknown[] = names.map((f) => filters[f]);
  const where = names.map((f, i) => CONDITIONS[f](i + 1));
  if (userId !== null) {
    values.push(userId);
    where.push(visibleTo(values.length));
  }
  return {
    name: `list_${names.join('_')}${userId === null ? '' : '_visible'}`,
    text: `select coalesce('[' || string_agg(row_to_json(r)::text, ',' order by r.id) || ']', '[]') as body
      from (select ${record('t')} from issue_issue t${where.length ? ` where ${where.join(' and ')}` : ''}) r`,
    values,
  };
}

export interface NewIssue {
  title: string;
  description: string | null;
  tracker: number;
  categories: number[];
}

/**
 * One statement: the row, its category links and its first state-log row, answered as served.
 * Nothing is written unless every category belongs to the tracker (the tracker itself is checked
 * by its foreign key).
 */
export const create = (issue: NewIssue, userId: number): QueryConfig => ({
  name: 'create',
  text: `with i as (
      insert into issue_issue (title, description, tracker_id, created_by)
      select $1, $2, $3, $4 where (select count(*) from issue_category c where c.id = any($5::int[]) and c.tracker_id = $3) = cardinality($5::int[])
      returning *
    ), c as (
      insert into issue_issue_categories (issue_id, category_id) select i.id, x from i, unnest($5::int[]) x returning category_id
    ), s as (
      insert into state_changes (resource, record_id, field, from_state, to_state, changed_by) select 'issue/issue', i.id, 'state', null, i.state, $4 from i
    )
    select row_to_json(r)::text as body from (select ${record('i', 'array(select category_id from c order by 1)')} from i) r`,
  values: [issue.title, issue.description, issue.tracker, userId, issue.categories],
});

/**
 * One statement: a new title and/or a state move along the workflow, the move logged, answered as
 * served. No row: no such issue, or a move the workflow does not allow.
 */
export const patch = (id: number, change: { title: string | null; state: string | null }, userId: number): QueryConfig => ({
  name: 'patch',
  text: `with o as (select id, state from issue_issue where id = $1 for update),
    u as (
      update issue_issue t set title = coalesce($2, t.title), state = coalesce($3, t.state), modified = now()
      from o where t.id = o.id and ($3::text is null or $3 = o.state or (o.state, $3::text) in (${MOVES}))
      returning t.*, o.state as from_state
    ), s as (
      insert into state_changes (resource, record_id, field, from_state, to_state, changed_by)
      select 'issue/issue', u.id, 'state', u.from_state, u.state, $4 from u where u.state <> u.from_state
    )
    select row_to_json(r)::text as body from (select ${record('u')} from u) r`,
  values: [id, change.title, change.state, userId],
});

export const stateOf = (id: number): QueryConfig => ({ name: 'state_of', text: 'select state from issue_issue where id = $1', values: [id] });
