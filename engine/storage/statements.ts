/**
 * Named prepared statements. PostgreSQL parses and plans a named statement once per connection and
 * then only binds values, so a read that runs thousands of times a second skips the parser. The
 * name follows from the SQL text alone: one text, one name, in every connection and instance.
 */
import type { Knex } from 'knex';
import type { Fragment } from './sql.js';

/** Texts beyond this many run unnamed: each name costs memory in every server connection. */
const MAX_NAMED = 2000;
const names = new Map<string, string>();

function nameOf(sql: string): string | undefined {
  let name = names.get(sql);
  if (name === undefined && names.size < MAX_NAMED) names.set(sql, (name = `bms_${names.size.toString(36)}`));
  return name;
}

/**
 * `fragment` as a raw query, named when its text is fixed: Knex spreads an array binding into one
 * placeholder per element, so such a text differs with the array's length and stays unnamed.
 */
export function prepared(db: Knex | Knex.Transaction, fragment: Fragment): Knex.Raw {
  const query = db.raw(fragment.sql, fragment.bindings as Knex.RawBinding[]);
  const name = fragment.bindings.some(Array.isArray) ? undefined : nameOf(fragment.sql);
  return name ? query.options({ name }) : query;
}
