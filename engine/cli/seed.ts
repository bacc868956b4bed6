/** Demo data for trying and benchmarking; filled in by the seed step of the resources issue. */
import type { Knex } from 'knex';
import type { Registry } from '../registry/registry.js';

export async function seed(_db: Knex, _registry: Registry, _opts: { issues: number }): Promise<void> {
  throw new Error('seed: not implemented yet');
}
