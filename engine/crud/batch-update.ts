/**
 * One change applied to many locked records in a constant number of statements, whatever their
 * number: what service.write checks per record is checked over the whole set — state moves and
 * order rules in the process against the rows as served, tree cycles and the shared parent of
 * linked records in one query each — then one UPDATE and one state-log INSERT.
 *
 * It answers as the per-record path does: the errors of the first record (in id order) that has
 * any. Only for writes the single statement may take (write-paths.ts): no hooks, no rules that
 * read the database, no escalation or grant checks for this caller, no password set.
 */
import type { Knex } from 'knex';
import type { Principal } from '../auth/users.js';
import { accessPredicate } from '../access/visibility.js';
import { FieldErrorCollector } from '../errors.js';
import { findForeignKey, type ForeignKeyRef, type Resource } from '../registry/resource.js';
import { q } from '../storage/sql.js';
import type { Values } from './body.js';
import { checkOrder, checkStates, closesCycle, invalidPk, rowsOf, type Row } from './checks.js';
import { ownAncestor } from '../write/tree.js';
import { strayLink } from '../write/shared-parent.js';
import { insertJson, moveRows, rowValues, type StateMove } from './store.js';

/** Errors found by the database checks, by record id. */
type Found = Map<number, FieldErrorCollector>;

const noteOn = (found: Found, id: number, field: string, message: string): void => {
  let errors = found.get(id);
  if (!errors) found.set(id, (errors = new FieldErrorCollector()));
  errors.add(field, message);
};

/** The foreign keys `values` set, with the value each gets. */
const keysSet = (resource: Resource, values: Values): [ForeignKeyRef, unknown][] =>
  resource.foreignKeys.filter((fk) => fk.writeName in values).map((fk) => [fk, values[fk.writeName]]);

/** Records that would become their own ancestor under a new tree parent (checks.ts checkForeignKey). */
async function cycles(trx: Knex.Transaction, resource: Resource, ids: readonly number[], values: Values, found: Found): Promise<void> {
  for (const [fk, parent] of keysSet(resource, values)) {
    if (!fk.spec.tree || parent === null) continue;
    const hits = rowsOf(await trx.raw(`select x.id from unnest(?::int[]) x(id) where ${closesCycle(resource, fk, '?::int', 'x.id')}`, [ids as number[], parent as number]));
    for (const { id } of hits) noteOn(found, id as number, fk.writeName, ownAncestor(resource, fk, { parent }));
  }
}

/** Records already linked must belong to a new parent (checks.ts checkReferences, when the shared parent changes). */
async function strandedLinks(trx: Knex.Transaction, resource: Resource, user: Principal, rows: readonly Row[], values: Values, found: Found): Promise<void> {
  for (const m of resource.manyToMany) {
    const same = m.spec.sameParent;
    const local = same && findForeignKey(resource, same.local)!;
    if (!same || !local || !(local.writeName in values)) continue;
    const parent = values[local.writeName];
    const moved = rows.filter((r) => r[local.name] !== parent).map((r) => r.id as number);
    if (!moved.length) continue;
    const seen = accessPredicate(m.target, 'view', user, 't');
    const remote = q(findForeignKey(m.target, same.remote)!.column);
    const links = rowsOf(
      await trx.raw(
        `select j.${q(m.spec.sourceColumn)} as id, j.${q(m.spec.targetColumn)} as target, t.${remote} as parent, (t.id is not null and ${seen?.sql ?? 'true'}) as seen
         from ${q(m.spec.table)} j left join ${q(m.target.table)} t on t.id = j.${q(m.spec.targetColumn)}
         where j.${q(m.spec.sourceColumn)} = any(?::int[]) order by 1, 2`,
        [...((seen?.bindings ?? []) as Knex.RawBinding[]), moved],
      ),
    );
    for (const link of links) {
      const id = link.id as number;
      if (link.seen !== true) noteOn(found, id, m.writeName, invalidPk(link.target));
      else if (parent !== null && link.parent !== parent) noteOn(found, id, m.writeName, strayLink(m, { target: link.target, parent }));
    }
  }
}

/** Sets `values` on the locked `rows` (as served, in id order), all or none. */
export async function updateAll(trx: Knex.Transaction, resource: Resource, user: Principal, rows: readonly Row[], values: Values): Promise<void> {
  const ids = rows.map((r) => r.id as number);
  const found: Found = new Map();
  await cycles(trx, resource, ids, values, found);
  await strandedLinks(trx, resource, user, rows, values, found);
  const moves: StateMove[][] = [];
  for (const row of rows) {
    const c = { errors: found.get(row.id as number) ?? new FieldErrorCollector(), existing: row };
    moves.push(checkStates(c, resource, values));
    for (const rule of resource.rules) if (rule.kind === 'order') checkOrder(c, resource, rule, values);
    c.errors.throwIfAny();
  }
  const stored = await rowValues(resource, values);
  const [table, sets] = [q(resource.table), [...Object.keys(stored).map((c) => `${q(c)} = v.${q(c)}`), 'modified = current_timestamp']];
  await trx.raw(`update ${table} set ${sets.join(', ')} from json_populate_record(null::${table}, ?::json) v where ${table}.id = any(?::int[])`, [JSON.stringify(stored), ids]);
  await insertJson(trx, 'state_changes', rows.flatMap((row, i) => moveRows(resource, row.id as number, moves[i]!, user)));
}
