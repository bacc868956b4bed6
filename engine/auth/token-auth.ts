/**
 * `Authorization: Token <key>` (CONTRACT 6): keyword case-insensitive, one space, no spaces in
 * the key. One query finds the active user behind an unexpired token, with permissions and groups;
 * `last_used` is written at most once a minute per token, not on every request.
 */
import type { Knex } from 'knex';
import { notAuthenticated } from '../errors.js';
import { hashTokenKey } from './tokens.js';
import { loadPrincipal, type Principal } from './users.js';

const LAST_USED_EVERY_MS = 60_000;

/** undefined: the header carries no token credentials (absent, or another scheme). */
export function tokenKeyOf(header: string | undefined): string | undefined {
  if (!header) return undefined;
  const [keyword, ...rest] = header.split(' ');
  if (keyword?.toLowerCase() !== 'token') return undefined;
  if (rest.length === 0 || rest.every((p) => p === '')) throw notAuthenticated('Invalid token header. No credentials provided.');
  if (rest.length > 1) throw notAuthenticated('Invalid token header. Token string should not contain spaces.');
  return rest[0]!;
}

export async function authenticateToken(db: Knex, key: string): Promise<Principal> {
  let token: { id: number; last_used: Date | null } | undefined;
  const user = await loadPrincipal(db, (qb) => {
    qb.join('api_tokens as k', 'k.user_id', 'u.id')
      .select('k.id as token_id', 'k.last_used as token_last_used')
      .where('k.key_hash', hashTokenKey(key))
      .where((w) => void w.whereNull('k.expires').orWhere('k.expires', '>', db.fn.now()));
  }, (row) => {
    token = { id: row.token_id as number, last_used: row.token_last_used as Date | null };
  });
  if (!user || !token) throw notAuthenticated('Invalid token.');
  const lastUsed = token.last_used ? new Date(token.last_used).getTime() : 0;
  if (Date.now() - lastUsed > LAST_USED_EVERY_MS) {
    await db('api_tokens').where('id', token.id).update({ last_used: db.fn.now() });
  }
  return user;
}
