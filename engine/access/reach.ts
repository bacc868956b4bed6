/**
 * How far a subject reaches beyond a user: whether it may see, or see and change, some record the
 * user may not, over a set of resources with access rules, in one query.
 */
import type { Knex } from 'knex';
import type { Resource } from '../registry/resource.js';
import { FALSE, joinFragments, q, TRUE, type Fragment } from '../storage/sql.js';
import { subjectPredicate, type AccessAction, type Subject } from './visibility.js';

/** `rule` holds for `subject` (null: no rule, everyone passes). */
const holds = (r: Resource, action: AccessAction, subject: Subject): Fragment | null => subjectPredicate(r, action, subject, 'x');

/** `not (p)`, where an unknown (null) result counts as not passing. */
const fails = (p: Fragment | null): Fragment => (p ? { sql: `not coalesce(${p.sql}, false)`, bindings: p.bindings } : FALSE);

/**
 * Whether `theirs` may see, or see and change, some record that `mine` may not. With `without`
 * (the same subject, a record excluded), only what `theirs` reaches through that record counts.
 */
export async function reachesBeyond(
  trx: Knex.Transaction,
  resources: readonly Resource[],
  theirs: Subject,
  mine: Subject,
  without?: Subject,
): Promise<boolean> {
  const checks: Fragment[] = [];
  for (const r of resources) {
    for (const action of ['view', 'change'] as const) {
      const reach = holds(r, action, theirs);
      if (!reach) continue;
      // a change counts where they also see the record
      const seen = action === 'change' ? (holds(r, 'view', theirs) ?? TRUE) : TRUE;
      const only = without ? fails(holds(r, action, without)) : TRUE;
      const cond = joinFragments([seen, reach, only, fails(holds(r, action, mine))], 'and');
      if (cond !== FALSE) checks.push({ sql: `exists (select 1 from ${q(r.table)} x where ${cond.sql})`, bindings: cond.bindings });
    }
  }
  if (!checks.length) return false;
  const result = (await trx.raw(`select ${checks.map((c) => c.sql).join(' or ')} as beyond`, checks.flatMap((c) => c.bindings) as Knex.RawBinding[])) as {
    rows: { beyond: boolean }[];
  };
  return result.rows[0]?.beyond === true;
}
