/**
 * Failed sign-ins, counted in the database (so every instance sees them) in a fixed window per
 * key: per (username, client address), per username over all addresses, per address over all
 * usernames. Past a limit, sign-in answers 429 with Retry-After until that window ends, whether or
 * not the password is right.
 *
 * Counted from everywhere, the username's limit would be a lever: anyone could lock a user out of
 * every place with wrong guesses from many addresses. So an attempt from an address where that
 * user signed in successfully within `KNOWN_DAYS` is not counted under it: the owner keeps signing
 * in from there during such an attack, while the pair's and the address's limits still bound
 * guessing there (and a guesser makes no address known without the password). From other
 * addresses, the owner waits out the window like anyone.
 *
 * An attempt counts as a failure before its password is checked, in one statement that also
 * reads the counts: concurrent attempts each see the others, so no burst gets more guesses checked
 * than the limit. An attempt whose password proves right takes its count back.
 */
import type { Knex } from 'knex';

const WINDOW_SECONDS = 15 * 60;
/** How long a successful sign-in keeps its address known for its user. */
const KNOWN_DAYS = 30;
/**
 * The pair's limit stops guessing one account from one place without locking its owner out
 * elsewhere; the username's stops a guesser spread over many addresses; an address may serve many
 * people (NAT, a proxy without TRUST_PROXY), so it gets more than one person's share.
 */
const LIMITS = { pair: 5, user: 100, addr: 50 } as const;

type Kind = keyof typeof LIMITS;

/** The keys one attempt counts under, in the order their rows are locked. */
function keysOf(username: string, address: string): Record<Kind, string> {
  const user = username.toLowerCase();
  return { pair: `pair:${JSON.stringify([user, address])}`, user: `user:${user}`, addr: `addr:${address}` };
}

export interface Attempt {
  keys: Record<Kind, string>;
  address: string;
  /** The keys the attempt was counted under (not the username's from a known address), in lock order. */
  counted: string[];
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
     where key <> ? or not exists (select 1 from sign_in_addresses k join users u on u.id = k.user_id
                                   where u.username = ? and k.address = ? and k.signed_in > now() - interval '${KNOWN_DAYS} days')
     on conflict (key) do update set
       failures = case when ${expired} then 1 else login_failures.failures + 1 end,
       window_start = case when ${expired} then now() else login_failures.window_start end
     returning key, failures, ceil(extract(epoch from (window_start + interval '${WINDOW_SECONDS} seconds' - now())))::int as remaining`,
    [Object.values(keys), keys.user, username, address],
  )) as { rows: { key: string; failures: number; remaining: number }[] };
  let retryAfter = 0;
  for (const row of rows) {
    const kind = (Object.keys(keys) as Kind[]).find((k) => keys[k] === row.key)!;
    if (row.failures > LIMITS[kind]) retryAfter = Math.max(retryAfter, row.remaining, 1);
  }
  const counted = Object.values(keys).filter((key) => rows.some((row) => row.key === key));
  // a refused attempt checks no password, so it is no failure: counted, one address's refused guesses
  // would run up the username's count and lock its owner out everywhere. Its rows are locked in the
  // insert's order (pair, user, address), or a burst's inserts and take-backs deadlock
  if (retryAfter > 0) {
    await db.raw(
      `update login_failures l set failures = greatest(l.failures - 1, 0)
       from (select key from login_failures where key = any(?::text[]) order by array_position(?::text[], key) for update) s
       where l.key = s.key`,
      [counted, counted],
    );
  }
  return { keys, address, counted, retryAfter };
}

/** The password of `userId` was right: the attempt was no failure, the pair starts afresh, and the address is known for the user. */
export async function succeeded(db: Knex, { keys, address, counted }: Attempt, userId: number): Promise<void> {
  await db.raw(
    `with cleared as (delete from login_failures where key = ?),
     known as (insert into sign_in_addresses (user_id, address, signed_in) values (?, ?, now())
               on conflict (user_id, address) do update set signed_in = excluded.signed_in),
     forgotten as (delete from sign_in_addresses where user_id = ? and address <> ? and signed_in <= now() - interval '${KNOWN_DAYS} days')
     update login_failures set failures = greatest(failures - 1, 0) where key = any(?::text[])`,
    [keys.pair, userId, address, userId, address, counted.filter((key) => key !== keys.pair)],
  );
}
