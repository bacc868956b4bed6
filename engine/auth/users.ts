/** The signed-in user as the request sees it, and the queries that find one. */
import type { Knex } from 'knex';
import { hashPassword } from './passwords.js';

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
}

interface PrincipalRow {
  id: number;
  username: string;
  is_superuser: boolean;
  permissions: string[] | null;
  group_ids: number[] | null;
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
  const qb = db('users as u')
    .select(
      'u.id',
      'u.username',
      'u.is_superuser',
      db.raw(`array(select distinct p from users_groups ug join groups g on g.id = ug.group_id, unnest(g.permissions) p where ug.user_id = u.id) as permissions`),
      db.raw(`array(select ug.group_id from users_groups ug where ug.user_id = u.id) as group_ids`),
    )
    .where('u.is_active', true)
    .first();
  where(qb);
  const row = (await qb) as PrincipalRow | undefined;
  if (!row) return undefined;
  extra?.(row as unknown as Record<string, unknown>);
  return {
    id: row.id,
    username: row.username,
    isSuperuser: row.is_superuser,
    permissions: new Set(row.permissions ?? []),
    groupIds: row.group_ids ?? [],
  };
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

export async function userExists(db: Knex, username: string): Promise<boolean> {
  return (await db('users').where({ username }).first('id')) !== undefined;
}
