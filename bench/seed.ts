/**
 * The bench's data, written by set-based SQL (generate_series), not through the API: 20 trackers
 * (10 normal, 5 protected, 5 confidential), 200 categories (10 per tracker), 1,000 employees with
 * user accounts, `issues` issues spread evenly over the trackers with 0-3 categories each and
 * their state logs (loaded without the tables' plain indexes and foreign keys, made again after), a superuser and a viewer (a non-superuser who sees the normal trackers, two
 * protected ones through a team and one confidential one as its admin: 13 of 20), each with a token.
 *
 * Issue n lies in tracker (n - 1) % 20 + 1; its state follows its place in the tracker, so that
 * 1 in 50 of each tracker's issues is `rejected` (the filtered list: 100 rows at 100,000 issues).
 */
import type { Knex } from 'knex';
import { hashTokenKey, newTokenKey } from '../engine/auth/tokens.js';
import { withoutIndexes } from '../engine/storage/bulk-load.js';

export interface BenchData {
  /** Seeded issues have the ids 1 … issues. */
  issues: number;
  adminToken: string;
  viewerToken: string;
  /** Where creates go, with two of its categories; the PATCH title scenario changes its issues. */
  writes: { tracker: number; categories: [number, number] };
  /** A word of issue titles (`Issue 77777: …`), searched for; its matches: 1 in 100,000 issues. */
  search: { word: string; rows: number };
  /** A tracker and state with 1 in 1,000 of the issues. */
  filtered: { tracker: number; state: string; rows: number };
  /** A protected tracker the viewer sees through its team: one twentieth of the issues. */
  trackerList: { tracker: number; rows: number };
  /** Issues in `new` outside the listed trackers: the PATCH state scenario walks them along the workflow. */
  statePool: number[];
  /** Issues of the writes tracker, for the PATCH title scenario. */
  titlePool: number[];
  /** The last state-log id after seeding: later rows come from the bench's writes. */
  lastStateChange: number;
  /** DMS documents (in one normal folder) whose file the upload and download scenarios write and read. */
  documents: number[];
}

const TRACKERS = 20;
const CATEGORIES_PER_TRACKER = 10;
const EMPLOYEES = 1000;
/** The workflow's main line (rejected branches off every step). */
export const WORKFLOW = ['new', 'pending', 'accepted', 'active', 'effectiveness_check', 'resolved'] as const;

const [ADMIN, VIEWER, FIRST_EMPLOYEE_USER] = [1, 2, 3];
const VIEWERS_GROUP = 1;
const WRITES_TRACKER = 1;
const FILTERED_TRACKER = 2;
const LISTED_TRACKER = 11;
const SEARCHED = '77777:';
/** Documents for the file scenarios: more than connections, so no two uploads wait for one record's lock. */
const DOCUMENTS = 64;

/** Issue n's state from its place s in its tracker: 1 in 50 rejected, the rest along the workflow. */
const STATE_OF = `(select case when b = 0 then 'rejected' when b <= 5 then 'resolved' when b <= 9 then 'effectiveness_check'
  when b <= 17 then 'active' when b <= 25 then 'accepted' when b <= 35 then 'pending' else 'new' end
  from (select ((n - 1) / ${TRACKERS}) % 50 as b) s)`;

const SEEDED_TABLES = ['users', 'groups', 'users_groups', 'api_tokens', 'organisation_mitarbeitende', 'issue_tracker', 'issue_tracker_admins', 'issue_tracker_teams', 'issue_category', 'issue_issue', 'issue_issue_categories', 'issue_issue_contributors', 'state_changes', 'dms_folder', 'dms_document'];

/** What a peer may load (bench/export-sql.ts): every seeded table but the tokens, whose keys are this database's own. */
export const EXPORTABLE_TABLES: readonly string[] = SEEDED_TABLES.filter((t) => t !== 'api_tokens');

const PATH = `array[${WORKFLOW.map((s) => `'${s}'`).join(', ')}]`;

function statements(issues: number, hashes: { admin: string; viewer: string }): [string, Knex.RawBinding[]][] {
  return [
    [
      `insert into users (id, username, email, first_name, last_name, is_superuser) values
       (${ADMIN}, 'bench_admin', 'admin@bench.example', 'Bench', 'Admin', true), (${VIEWER}, 'bench_viewer', 'viewer@bench.example', 'Bench', 'Viewer', false)`,
      [],
    ],
    [
      `insert into users (id, username, email, first_name, last_name)
       select ${FIRST_EMPLOYEE_USER - 1} + n, 'employee' || lpad(n::text, 4, '0'), 'employee' || n || '@bench.example', 'Given' || n, 'Family' || n
       from generate_series(1, ${EMPLOYEES}) n`,
      [],
    ],
    [`insert into groups (id, name, permissions) values (${VIEWERS_GROUP}, 'bench viewers', array['issues.view_issue', 'issues.view_tracker', 'issues.view_issuecategory'])`, []],
    [`insert into users_groups (user_id, group_id) values (${VIEWER}, ${VIEWERS_GROUP})`, []],
    [`insert into api_tokens (user_id, name, key_hash) values (${ADMIN}, 'bench', ?), (${VIEWER}, 'bench', ?)`, [hashes.admin, hashes.viewer]],
    [
      `insert into organisation_mitarbeitende (vorname, nachname, email, phone, employment_type, entry_date, user_id, created_by)
       select 'Given' || n, 'Family' || n, 'employee' || n || '@bench.example', '+41 44 ' || lpad(n::text, 7, '0'),
         case when n % 10 = 0 then 'extern' else 'intern' end, date '2015-01-01' + (n * 3 % 3000), ${FIRST_EMPLOYEE_USER - 1} + n, ${ADMIN}
       from generate_series(1, ${EMPLOYEES}) n`,
      [],
    ],
    [
      `insert into issue_tracker (id, title, description, state, visibility, created_by)
       select t, 'Tracker ' || t, 'Issues of kind ' || t || '.', 'approved',
         case when t <= 10 then 'normal' when t <= 15 then 'protected' else 'confidential' end, ${ADMIN}
       from generate_series(1, ${TRACKERS}) t`,
      [],
    ],
    // one employee administers each tracker; the viewer administers the first confidential one
    [`insert into issue_tracker_admins (tracker_id, user_id) select t, ${FIRST_EMPLOYEE_USER - 1} + t from generate_series(1, ${TRACKERS}) t union all select 16, ${VIEWER}`, []],
    [`insert into issue_tracker_teams (tracker_id, group_id) values (${LISTED_TRACKER}, ${VIEWERS_GROUP}), (12, ${VIEWERS_GROUP})`, []],
    [
      `insert into issue_category (id, title, color, tracker_id, created_by)
       select c, 'Category ' || c, (array['blue', 'green lighten-2', 'red', 'amber'])[c % 4 + 1], (c - 1) % ${TRACKERS} + 1, ${ADMIN}
       from generate_series(1, ${TRACKERS * CATEGORIES_PER_TRACKER}) c`,
      [],
    ],
    [
      `insert into issue_issue (id, title, description, state, deadline, archived, tracker_id, assigned_user_id, created_by, created, modified)
       select n, 'Issue ' || n || ': ' || (array['printer jams', 'login fails', 'invoice missing', 'door broken', 'report late'])[n % 5 + 1],
         'Reported at desk ' || n % 40 || '. ' || repeat('Details follow. ', n % 4),
         ${STATE_OF}, case when n % 3 = 0 then null else date '2025-01-01' + n % 365 end, n % 17 = 0, (n - 1) % ${TRACKERS} + 1,
         case when n % 3 = 0 then ${FIRST_EMPLOYEE_USER} + n % ${EMPLOYEES} end, ${ADMIN}, at, at
       from generate_series(1, ${issues}) n, lateral (select now() - make_interval(secs => ${issues} - n) as at) t`,
      [],
    ],
    // n % 4 categories, distinct, all of the issue's tracker
    [
      `insert into issue_issue_categories (issue_id, category_id)
       select n, (n - 1) % ${TRACKERS} + 1 + ${TRACKERS} * (((n - 1) / ${TRACKERS} + j * 3) % ${CATEGORIES_PER_TRACKER})
       from generate_series(1, ${issues}) n, generate_series(0, 2) j where j < n % 4`,
      [],
    ],
    [`insert into issue_issue_contributors (issue_id, user_id) select n, ${FIRST_EMPLOYEE_USER} + n * 7 % ${EMPLOYEES} from generate_series(10, ${issues}, 10) n`, []],
    // each issue's way to its state, one log row per step
    [
      `insert into state_changes (resource, record_id, field, from_state, to_state, changed_by, changed_at)
       select 'issue/issue', i.id, 'state', p.prev, p.state, ${ADMIN}, i.created
       from issue_issue i, lateral (
         select s as state, lag(s) over (order by o) as prev
         from unnest(case when i.state = 'rejected' then array['new', 'rejected'] else (${PATH})[1:array_position(${PATH}, i.state)] end) with ordinality u(s, o)
       ) p`,
      [],
    ],
    [`insert into dms_folder (id, title, created_by) values (1, 'Bench files', ${ADMIN})`, []],
    [`insert into dms_document (id, title, folder_id, created_by) select d, 'Bench document ' || d, 1, ${ADMIN} from generate_series(1, ${DOCUMENTS}) d`, []],
    ...['users', 'groups', 'issue_tracker', 'issue_category', 'issue_issue', 'dms_folder', 'dms_document'].map(
      (table): [string, Knex.RawBinding[]] => [`select setval(pg_get_serial_sequence('${table}', 'id'), (select max(id) from ${table}))`, []],
    ),
  ];
}

export async function seedBenchData(db: Knex, issues: number): Promise<BenchData> {
  const keys = { admin: newTokenKey(), viewer: newTokenKey() };
  await db.transaction(async (trx) =>
    withoutIndexes(trx, SEEDED_TABLES, async () => {
      for (const [sql, bindings] of statements(issues, { admin: hashTokenKey(keys.admin), viewer: hashTokenKey(keys.viewer) })) await trx.raw(sql, bindings);
    }),
  );
  await db.raw(`vacuum analyze ${SEEDED_TABLES.join(', ')}`);
  const ids = async (sql: string) => ((await db.raw(sql)) as { rows: { id: number }[] }).rows.map((r) => r.id);
  const one = async (sql: string) => (await ids(sql))[0]!;
  return {
    issues,
    adminToken: keys.admin,
    viewerToken: keys.viewer,
    writes: { tracker: WRITES_TRACKER, categories: [WRITES_TRACKER, WRITES_TRACKER + TRACKERS] },
    search: { word: SEARCHED, rows: await one(`select count(*)::int as id from issue_issue where title ilike '%${SEARCHED}%' or description ilike '%${SEARCHED}%'`) },
    filtered: { tracker: FILTERED_TRACKER, state: 'rejected', rows: await one(`select count(*)::int as id from issue_issue where tracker_id = ${FILTERED_TRACKER} and state = 'rejected'`) },
    trackerList: { tracker: LISTED_TRACKER, rows: await one(`select count(*)::int as id from issue_issue where tracker_id = ${LISTED_TRACKER}`) },
    statePool: await ids(`select id from issue_issue where state = 'new' and tracker_id not in (${FILTERED_TRACKER}, ${LISTED_TRACKER}) order by id`),
    titlePool: await ids(`select id from issue_issue where tracker_id = ${WRITES_TRACKER} order by id`),
    lastStateChange: await one(`select max(id)::int as id from state_changes`),
    documents: await ids('select id from dms_document order by id'),
  };
}

/**
 * Puts back what the write scenarios changed, so every run starts from the same data: created
 * issues (their links go with them) and new state-log rows go, moved issues are `new` again.
 */
export async function restoreWrites(db: Knex, data: BenchData): Promise<void> {
  await db.raw(`delete from issue_issue where id > ?`, [data.issues]);
  await db.raw(`delete from state_changes where id > ?`, [data.lastStateChange]);
  await db.raw(`update issue_issue set state = 'new' where id = any(?::int[]) and state <> 'new'`, [data.statePool]);
  await db.raw('vacuum analyze issue_issue, issue_issue_categories, state_changes');
}
