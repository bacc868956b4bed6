/**
 * `Authorization: Token <key>` (CONTRACT 6): keyword case-insensitive, one space, no spaces in
 * the key. One query finds the active user behind an unexpired token, with permissions and groups,
 * and the principal cache keeps the answer for a few seconds; `last_used` is written at most once
 * a minute per token (and instance), not on every request.
 */
import type { Knex } from 'knex';
import { notAuthenticated } from '../errors.js';
import type { CachedToken, PrincipalCache } from './principal-cache.js';
import { hashTokenKey } from './tokens.js';
import { loadPrincipal, type Principal } from './users.js';

const LAST_USED_EVERY_MS = 60_000;
const lastUseDue = (token: CachedToken, now: number): boolean => now - token.lastUsed > LAST_USED_EVERY_MS;

/** undefined: the header carries no token credentials (absent, or another scheme). */
export function tokenKeyOf(header: string | undefined): string | undefined {
  if (!header) return undefined;
  const [keyword, ...rest] = header.split(' ');
  if (keyword?.toLowerCase() !== 'token') return undefined;
  if (rest.length === 0 || rest.every((p) => p === '')) throw notAuthenticated('Invalid token header. No credentials provided.');
  if (rest.length > 1) throw notAuthenticated('Invalid token header. Token string should not contain spaces.');
  return rest[0]!;
}

/**
 * The token's holder, read at `now`. Times come from the database's clock as durations (since
 * last use, until expiry), so a clock difference between this machine and the database's cannot
 * let a cached token outlive its expiry.
 */
async function loadToken(db: Knex, hash: string, now: number): Promise<CachedToken> {
  let token: Omit<CachedToken, 'principal'> | undefined;
  const principal = await loadPrincipal(
    db,
    (qb) => {
      qb.join('api_tokens as k', 'k.user_id', 'u.id')
        .select(
          'k.id as token_id',
          db.raw('(extract(epoch from now() - k.last_used) * 1000)::float8 as token_used_ms_ago'),
          db.raw('(extract(epoch from k.expires - now()) * 1000)::float8 as token_expires_in_ms'),
        )
        .where('k.key_hash', hash)
        .where((w) => void w.whereNull('k.expires').orWhere('k.expires', '>', db.fn.now()));
    },
    (row) => {
      const usedAgo = row.token_used_ms_ago as number | null;
      const expiresIn = row.token_expires_in_ms as number | null;
      token = { tokenId: row.token_id as number, lastUsed: usedAgo === null ? 0 : now - usedAgo, expires: expiresIn === null ? null : now + expiresIn };
    },
  );
  if (!principal || !token) throw notAuthenticated('Invalid token.');
  return { principal, ...token };
}

export class TokenAuthenticator {
  constructor(
    private readonly db: Knex,
    private readonly cache: PrincipalCache,
  ) {}

  /**
   * The token's holder: at once when the cache holds it and its `last_used` needs no write (a warm
   * token's requests), else once read or written. No promise on the warm path: it is every
   * authenticated request's.
   */
  authenticate(key: string): Principal | Promise<Principal> {
    const hash = hashTokenKey(key);
    const now = Date.now();
    const token = this.cache.lookup(hash, now);
    return token && !lastUseDue(token, now) ? token.principal : this.load(hash, now, token);
  }

  private async load(hash: string, now: number, cached: CachedToken | undefined): Promise<Principal> {
    let token = cached;
    if (!token) {
      const loadBegan = this.cache.beginLoad();
      token = await loadToken(this.db, hash, now);
      this.cache.store(hash, token, now, loadBegan);
    }
    if (lastUseDue(token, now)) {
      // noted before the write, so concurrent requests of the same token do not write it again
      token.lastUsed = now;
      await this.db('api_tokens').where('id', token.tokenId).update({ last_used: this.db.fn.now() });
    }
    return token.principal;
  }
}
