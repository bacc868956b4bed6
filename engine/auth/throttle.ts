/**
 * Failed sign-ins, counted in the database (so every instance sees them) in a fixed window per
 * key: per (username, client address), per username over all addresses, per address over all
 * usernames. Past a limit, sign-in answers 429 with Retry-After until that window ends, whether or
 * not the password is right.
 *
 * An attempt counts as a failure before its password is checked, in one statement that also
 * reads the counts: concurrent attempts each see the others, so no burst gets more guesses checked
 * than the limit. An attempt whose password proves right takes its count back.
 */
import type { Knex } from 'knex';

const WINDOW_SECONDS = 15 * 60;
/**
 * The pair's limit stops guessing one account from one place without locking its owner out
 * elsewhere; the username's stops a guesser spread over many addresses; an address may serve many
 * people (NAT, a proxy without TRUST_PROXY), so it gets more than one person's share.
 */
const LIMITS = { pair: 5, user: 100, addr: 50 } as const;

type Kind = keyof typeof LIMITS;

/** The keys one attempt counts under. */
function keysOf(username: string, address: string): Record<Kind, string> {
  const user = username.toLowerCase();
  return { pair: `pair:${JSON.stringify([user, address])}`, user: `user:${user}`, addr: `addr:${address}` };
}

export interface Attempt {
  keys: Record<Kind, string>;
  /** Seconds until sign-in is possible again; 0: the password may be checked. */
  retryAfter: number;
}

/** Counts an attempt as a failure under each of its keys (first, so no burst gets past a limit); says how long to wait when a count is past its limit. */
export async function beginAttempt(db: Knex, username: string, address: string): Promise<Attempt> {
  const keys = keysOf(username, address);
  const expired = `login_failures.window_start < now() - interval '${WINDOW_SECONDS} seconds'`;
  const { rows } = (await db.raw(
    `insert into login_failures (key, failures, window_start)
     select key, 1, now() from unnest(?::text[]) as key
     on conflict (key) do update set
       failures = case when ${expired} then 1 else login_failures.failures + 1 end,
       window_start = case when ${expired} then now() else login_failures.window_start end
     returning key, failures, ceil(extract(epoch from (window_start + interval '${WINDOW_SECONDS} seconds' - now())))::int as remaining`,
    [Object.values(keys)],
  )) as { rows: { key: string; failures: number; remaining: number }[] };
  let retryAfter = 0;
  for (const row of rows) {
    const kind = (Object.keys(keys) as Kind[]).find((k) => keys[k] === row.key)!;
    if (row.failures > LIMITS[kind]) retryAfter = Math.max(retryAfter, row.remaining, 1);
  }
  // a refused attempt checks no password, so it is no failure: counted, one address's refused guesses
  // would run up the username's count and lock its owner out everywhere. Its rows are locked in the
  // insert's order (pair, user, address), or a burst's inserts and take-backs deadlock
  if (retryAfter > 0) {
    await db.raw(
      `update login_failures l set failures = greatest(l.failures - 1, 0)
       from (select key from login_failures where key = any(?::text[]) order by array_position(?::text[], key) for update) s
       where l.key = s.key`,
      [Object.values(keys), Object.values(keys)],
    );
  }
  return { keys, retryAfter };
}

/** The password was right: the attempt was no failure, and the pair starts afresh. */
export async function succeeded(db: Knex, { keys }: Attempt): Promise<void> {
  await db.raw(
    `with cleared as (delete from login_failures where key = ?)
     update login_failures set failures = greatest(failures - 1, 0) where key in (?, ?)`,
    [keys.pair, keys.user, keys.addr],
  );
}
