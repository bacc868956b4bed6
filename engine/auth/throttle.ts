/**
 * Failed sign-ins are counted per username and per address in the database (so every instance
 * sees them): past the limit within the window, sign-in answers 429 with Retry-After, whether or
 * not the password is right, until the window ends.
 */
import type { Knex } from 'knex';

const WINDOW_SECONDS = 15 * 60;
/** An address may serve many people (NAT), so it gets a higher limit than a username. */
const LIMITS = { user: 5, addr: 25 } as const;

export type ThrottleKey = { kind: keyof typeof LIMITS; value: string };
const keyOf = (k: ThrottleKey) => `${k.kind}:${k.value.toLowerCase()}`;

/** Seconds until sign-in is possible again, or 0 when it is now. */
export async function retryAfter(db: Knex, keys: ThrottleKey[]): Promise<number> {
  const rows = (await db('login_failures')
    .whereIn('key', keys.map(keyOf))
    .select('key', 'failures', db.raw(`ceil(extract(epoch from (window_start + interval '${WINDOW_SECONDS} seconds' - now())))::int as remaining`))) as {
    key: string;
    failures: number;
    remaining: number;
  }[];
  let wait = 0;
  for (const row of rows) {
    const limit = LIMITS[row.key.split(':')[0] as keyof typeof LIMITS];
    if (row.failures >= limit && row.remaining > 0) wait = Math.max(wait, row.remaining);
  }
  return wait;
}

export async function recordFailure(db: Knex, keys: ThrottleKey[]): Promise<void> {
  const expired = `login_failures.window_start < now() - interval '${WINDOW_SECONDS} seconds'`;
  for (const key of keys) {
    await db.raw(
      `insert into login_failures (key, failures, window_start) values (?, 1, now())
       on conflict (key) do update set
         failures = case when ${expired} then 1 else login_failures.failures + 1 end,
         window_start = case when ${expired} then now() else login_failures.window_start end`,
      [keyOf(key)],
    );
  }
}

export async function clearFailures(db: Knex, key: ThrottleKey): Promise<void> {
  await db('login_failures').where('key', keyOf(key)).delete();
}
