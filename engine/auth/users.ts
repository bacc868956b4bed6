/** The signed-in user as the request sees it, and the queries that find one. */
import type { Knex } from 'knex';
import { hashPassword } from './passwords.js';
import { endSessions } from './sessions.js';

export interface Principal {
  id: number;
  username: string;
  isSuperuser: boolean;
  /** Permission names held through groups (empty for superusers, who hold all). */
  permissions: ReadonlySet<string>;
  /** Ids of the user's groups, for group-based object access. */
  groupIds: readonly number[];
  /** The session the request came with (none for tokens): a password change keeps it and ends the others. */
  sessionId?: string | undefined;
  /** The request (or import job) it acts in, recorded with the audit entries of its writes (engine/audit/actor.ts). */
  requestId?: string | undefined;
  /** Its writes name no user in the audit trail: scheduled jobs act as a superuser, for no request. */
  unattributed?: boolean;
  /**
   * The transaction its writes join: an idempotent POST stores its key in the same transaction as
   * the records it creates (a crash leaves both or neither), an import or a scheduled run is one
   * transaction. Every write path takes part without being told; its own transactions become
   * savepoints inside it.
   */
  transaction?: Knex.Transaction | undefined;
}

interface PrincipalRow {
  id: number;
  username: string;
  is_superuser: boolean;
  permissions: string[] | null;
  group_ids: number[] | null;
}

/** The principal of a row of the query below. */
const principalOf = (row: PrincipalRow): Principal => ({
  id: row.id,
  username: row.username,
  isSuperuser: row.is_superuser,
  permissions: new Set(row.permissions ?? []),
  groupIds: row.group_ids ?? [],
});

/** The query of the active users matching `where`, with permissions and groups. */
function principalQuery(db: Knex, where: (qb: Knex.QueryBuilder) => void): Knex.QueryBuilder {
  const qb = db('users as u')
    .select(
      'u.id',
      'u.username',
      'u.is_superuser',
      db.raw(`array(select distinct p from users_groups ug join groups g on g.id = ug.group_id, unnest(g.permissions) p where ug.user_id = u.id) as permissions`),
      db.raw(`array(select ug.group_id from users_groups ug where ug.user_id = u.id) as group_ids`),
    )
    .where('u.is_active', true);
  where(qb);
  return qb;
}

/**
 * One query: the active user matching `where`, with permissions and groups. `where` may join and
 * select more columns; `extra` receives the raw row to read them.
 */
export async function loadPrincipal(
  db: Knex,
  where: (qb: Knex.QueryBuilder) => void,
  extra?: (row: Record<string, unknown>) => void,
): Promise<Principal | undefined> {
  const row = (await principalQuery(db, where).first()) as PrincipalRow | undefined;
  if (!row) return undefined;
  extra?.(row as unknown as Record<string, unknown>);
  return principalOf(row);
}

/** One query: the principals of those of `ids` who are active users, by id (inactive and deleted ones are missing). */
export async function loadPrincipals(db: Knex, ids: readonly number[]): Promise<Map<number, Principal>> {
  const rows = (await principalQuery(db, (qb) => void qb.whereIn('u.id', ids))) as PrincipalRow[];
  return new Map(rows.map((r) => [r.id, principalOf(r)]));
}

export async function createUser(
  db: Knex,
  u: { username: string; password: string; email?: string | undefined; isSuperuser?: boolean },
): Promise<number> {
  const [row] = (await db('users')
    .insert({ username: u.username, email: u.email ?? null, is_superuser: u.isSuperuser ?? false, password: await hashPassword(u.password) })
    .returning('id')) as { id: number }[];
  return row!.id;
}

/** Sets the user's password and ends every session of theirs, in one transaction (as a PATCH of it through the API does). */
export async function changePassword(db: Knex, userId: number, password: string): Promise<void> {
  const hash = await hashPassword(password);
  await db.transaction(async (trx) => {
    await trx('users').where({ id: userId }).update({ password: hash });
    await endSessions(trx, userId, undefined);
  });
}

export async function userExists(db: Knex, username: string): Promise<boolean> {
  return (await db('users').where({ username }).first('id')) !== undefined;
}
