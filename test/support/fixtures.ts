/** Test users made through the API (group with permissions, user in it) plus a token each. */
import { randomBytes } from 'node:crypto';
import { createToken } from '../../engine/auth/tokens.js';
import type { Client } from './client.js';
import { suite } from './hooks.js';

export interface TestUser {
  id: number;
  username: string;
  token: string;
  client: Client;
}

export const unique = (prefix: string): string => `${prefix}-${randomBytes(4).toString('hex')}`;

/** The errors under a foreign key naming a missing or invisible record. */
export const invalidPk = (id: unknown): string[] => [`Invalid pk "${String(id)}" - object does not exist.`];

/** A user with a group holding `permissions`, made by `on`'s admin (the suite's service unless given). */
export async function makeUser(
  opts: { permissions?: string[]; superuser?: boolean; groupIds?: number[] } = {},
  on: Pick<ReturnType<typeof suite>, 'admin' | 'service'> = suite(),
): Promise<TestUser> {
  const { admin, service } = on;
  const groupIds = [...(opts.groupIds ?? [])];
  if (opts.permissions?.length) {
    const group = await admin.post('/api/customgroup', { name: unique('group'), permissions: opts.permissions });
    if (group.status !== 201) throw new Error(`group: ${group.status} ${group.text}`);
    groupIds.push(group.body.id);
  }
  const username = unique('user');
  const user = await admin.post('/api/user', { username, password: 'correct-horse-1', is_superuser: opts.superuser ?? false, group_ids: groupIds });
  if (user.status !== 201) throw new Error(`user: ${user.status} ${user.text}`);
  const { key } = await createToken(service.db, user.body.id, 'test');
  return { id: user.body.id, username, token: key, client: admin.as(key) };
}

/** POST that must succeed; returns the created record. */
export async function created(client: Client, path: string, body: unknown): Promise<any> {
  const res = await client.post(path, body);
  if (res.status !== 201) throw new Error(`POST ${path}: ${res.status} ${res.text}`);
  return res.body;
}
