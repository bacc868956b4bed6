/** API token keys: 256 random bits, shown once, stored only as their SHA-256 hash. */
import { hash, randomBytes } from 'node:crypto';
import type { Knex } from 'knex';

export const newTokenKey = (): string => randomBytes(32).toString('hex');
// one-shot hash(): about half createHash's cost, paid on every token-authenticated request
export const hashTokenKey = (key: string): string => hash('sha256', key, 'hex');

export interface TokenRow {
  id: number;
  name: string;
  created: string;
  last_used: string | null;
  expires: string | null;
}

/** Creates a token for the user and returns it with its key (the only time the key exists). */
export async function createToken(
  db: Knex,
  userId: number,
  name: string,
  expires: string | null = null,
): Promise<{ id: number; key: string }> {
  const key = newTokenKey();
  const [row] = (await db('api_tokens').insert({ user_id: userId, name, key_hash: hashTokenKey(key), expires }).returning('id')) as { id: number }[];
  return { id: row!.id, key };
}
