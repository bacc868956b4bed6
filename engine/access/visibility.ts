/**
 * Object access as SQL: a declared rule becomes a predicate over the record's row, so lists,
 * details, writes, deletes and foreign-key checks all apply the same rule inside the query.
 * `null` means unrestricted (superusers, or a resource without a rule).
 *
 * A rule is compiled for a subject: the signed-in user, or (for escalation checks) another user or
 * a single group, so "what could this user or group see?" is the same predicate the caller gets.
 */
import type { AccessRule } from '../declare/index.js';
import type { Principal } from '../auth/users.js';
import { findField, findForeignKey, findManyToMany, type Resource } from '../registry/resource.js';
import { col, FALSE, frag, joinFragments, q, type Fragment } from '../storage/sql.js';

export type AccessAction = 'view' | 'change';

/**
 * Whose access a rule is compiled for: a user (with the groups they belong to) or one group alone.
 * `except` takes one record out of the picture (what the subject reaches without it).
 */
export type Subject = {
  readonly kind: 'user' | 'group';
  readonly id: number;
  readonly except?: { readonly resource: Resource; readonly id: number };
};

/** The subject's part in a key: `column` holds a user id (`who: 'user'`) or a group id; a group is nobody's user. */
function names(subject: Subject, who: 'user' | 'group', column: string): Fragment {
  if (subject.kind === 'group') return who === 'group' ? frag(`${column} = ?`, [subject.id]) : FALSE;
  if (who === 'user') return frag(`${column} = ?`, [subject.id]);
  return frag(`${column} in (select ug.group_id from users_groups ug where ug.user_id = ?)`, [subject.id]);
}

/** `exists (select 1 from <from> where <where> and <cond>)`, the bindings in that order; false when `cond` is. */
const exists = (from: string, where: string, cond: Fragment): Fragment =>
  cond === FALSE ? FALSE : frag(`exists (select 1 from ${from} where ${where} and ${cond.sql})`, cond.bindings);

/** The column of a foreign key, or of a stored field (and `created_by`). */
function columnOf(resource: Resource, name: string): string {
  return findForeignKey(resource, name)?.column ?? findField(resource, name)?.column ?? name;
}

/**
 * `rule` for the record of `resource` at row `alias`, entered from outside the resource (the rule
 * of the resource itself, or one reached through a relation): when the resource inherits access up
 * its tree, the rule is evaluated on the nearest ancestor-or-self that does not inherit.
 */
function onRecord(resource: Resource, rule: AccessRule, subject: Subject, alias: string, depth: number, crossed = false): Fragment {
  // the excluded record counts on no path that crosses to it through a relation with a rule of its
  // own; `via … action` and inheritance only mirror its own visibility, which stays
  const except = crossed && subject.except?.resource === resource ? subject.except : undefined;
  const notExcept = (row: string): Fragment[] => (except ? [frag(`${row}.id <> ?`, [except.id])] : []);
  const inherit = resource.access.inherit;
  if (!inherit) return joinFragments([...notExcept(alias), compile(resource, rule, subject, alias, depth, crossed)], 'and');
  const parent = q(columnOf(resource, inherit.parent));
  const when = q(columnOf(resource, inherit.when));
  const [chain, start, step, owner] = [`up${depth}`, `us${depth}`, `ua${depth}`, `a${depth + 1}`];
  const table = q(resource.table);
  const cond = joinFragments([...notExcept(alias), ...notExcept(owner), compile(resource, rule, subject, owner, depth + 1, crossed)], 'and');
  if (cond === FALSE) return FALSE;
  return frag(
    `exists (with recursive ${chain}(id, parent, inherits) as (` +
      `select ${start}.id, ${start}.${parent}, ${start}.${when} from ${table} ${start} where ${start}.id = ${alias}.id ` +
      `union select ${step}.id, ${step}.${parent}, ${step}.${when} from ${table} ${step} join ${chain} on ${step}.id = ${chain}.parent where ${chain}.inherits` +
      `) select 1 from ${chain} join ${table} ${owner} on ${owner}.id = ${chain}.id where not (${chain}.inherits and ${chain}.parent is not null) and ${cond.sql})`,
    cond.bindings,
  );
}

function compile(resource: Resource, rule: AccessRule, subject: Subject, alias: string, depth: number, crossed: boolean): Fragment {
  if ('any' in rule) return joinFragments(rule.any.map((r) => compile(resource, r, subject, alias, depth, crossed)), 'or');
  if ('all' in rule) return joinFragments(rule.all.map((r) => compile(resource, r, subject, alias, depth, crossed)), 'and');
  if ('field' in rule) return frag(`${col(alias, rule.field)} in (${rule.in.map(() => '?').join(', ')})`, [...rule.in]);
  if ('unset' in rule) return frag(`${col(alias, columnOf(resource, rule.unset))} is null`);
  if ('current' in rule) {
    const now = findField(resource, rule.current.start)?.spec.type === 'date' ? 'current_date' : 'now()';
    const [start, end] = [col(alias, rule.current.start), col(alias, rule.current.end)];
    return frag(`((${start} is null or ${start} <= ${now}) and (${end} is null or ${end} >= ${now}))`);
  }
  if ('userIs' in rule) return names(subject, 'user', col(alias, columnOf(resource, rule.userIs)));
  if ('userAmong' in rule || 'groupAmong' in rule) {
    const name = 'userAmong' in rule ? rule.userAmong : rule.groupAmong;
    const { table, sourceColumn, targetColumn } = findManyToMany(resource, name)!.spec;
    const j = `j${depth}`;
    const member = names(subject, 'userAmong' in rule ? 'user' : 'group', `${j}.${q(targetColumn)}`);
    return exists(`${q(table)} ${j}`, `${j}.${q(sourceColumn)} = ${alias}.id`, member);
  }
  const next = `a${depth + 1}`;
  if ('among' in rule) {
    const m = findManyToMany(resource, rule.among)!;
    const { table, sourceColumn, targetColumn } = m.spec;
    const j = `j${depth}`;
    const cond = onRecord(m.target, rule.rule, subject, next, depth + 1, true);
    return exists(`${q(table)} ${j} join ${q(m.target.table)} ${next} on ${next}.id = ${j}.${q(targetColumn)}`, `${j}.${q(sourceColumn)} = ${alias}.id`, cond);
  }
  if ('referencedBy' in rule) {
    const { resource: source, fk } = resource.referencedBy.find((r) => r.resource.key === rule.referencedBy && r.fk.name === rule.by)!;
    return exists(`${q(source.table)} ${next}`, `${col(next, fk.column)} = ${alias}.id`, onRecord(source, rule.rule, subject, next, depth + 1, true));
  }
  const fk = findForeignKey(resource, rule.via)!;
  const inner = 'rule' in rule ? rule.rule : fk.target.access[rule.action];
  if (!inner) return frag(`${col(alias, fk.column)} is not null`);
  return exists(`${q(fk.target.table)} ${next}`, `${next}.id = ${col(alias, fk.column)}`, onRecord(fk.target, inner, subject, next, depth + 1, crossed || 'rule' in rule));
}

/** The predicate a row aliased `alias` must pass for `subject`; null when the resource has no such rule. */
export function subjectPredicate(resource: Resource, action: AccessAction, subject: Subject, alias: string): Fragment | null {
  const rule = resource.access[action];
  return rule ? onRecord(resource, rule, subject, alias, 0) : null;
}

/** The predicate a row aliased `alias` must pass for `user` to see (`view`) or change it. */
export function accessPredicate(resource: Resource, action: AccessAction, user: Principal, alias: string): Fragment | null {
  if (user.isSuperuser) return null;
  if (!declaredAccess(resource)) return action === 'view' ? resource.engineTable!.visible!(user, alias) : null;
  return subjectPredicate(resource, action, { kind: 'user', id: user.id }, alias);
}

/**
 * Whether `resource`'s access predicates are its declared rules: text the same for every user who
 * is not a superuser, binding only their id, so a statement built from them may be kept per user
 * id. An engine table's rule may be code instead (declare/engine-table.ts), for viewing, reading
 * more of the user; its writes see to the rest.
 */
export const declaredAccess = (resource: Resource): boolean => resource.engineTable?.visible === undefined;

/**
 * The predicate a record's values aliased `alias` must pass for `user`, when `alias` is not the
 * record's stored row but values of it as recorded earlier (the change capture's snapshot): as
 * `accessPredicate`, except that whether the record inherits its access, and from which parent, is
 * read from `alias` too (onRecord reads them from the stored row). Parents, and every other record
 * a rule reaches, are read as stored now.
 */
export function recordedPredicate(resource: Resource, action: AccessAction, user: Principal, alias: string): Fragment | null {
  const rule = resource.access[action];
  if (user.isSuperuser || !rule) return null;
  const subject: Subject = { kind: 'user', id: user.id };
  const own = compile(resource, rule, subject, alias, 0, false);
  const inherit = resource.access.inherit;
  if (!inherit) return own;
  const parent = col(alias, columnOf(resource, inherit.parent));
  const inherits = `(${col(alias, columnOf(resource, inherit.when))} and ${parent} is not null)`;
  const above = exists(`${q(resource.table)} a1`, `a1.id = ${parent}`, onRecord(resource, rule, subject, 'a1', 1));
  return joinFragments([joinFragments([frag(inherits), above], 'and'), joinFragments([frag(`not ${inherits}`), own], 'and')], 'or');
}

/** The alias of a recorded state's row in `viewsEveryState`. */
const RECORDED = 'recorded';

/**
 * Whether `user` may view the record of `resource` in every one of `states`: SQL expressions, each
 * the record's column values as a jsonb object (a state the change capture recorded, or the stored
 * row), null where unknown. Null when no rule restricts the user; else a predicate that holds only
 * when every state is known and passes the view rule (recordedPredicate, compiled once for all).
 */
export function viewsEveryState(resource: Resource, user: Principal, states: readonly Fragment[]): Fragment | null {
  const seen = recordedPredicate(resource, 'view', user, RECORDED);
  if (!seen) return null;
  return frag(
    `(select bool_and(s.v is not null and (${seen.sql}) is true) from (values ${states.map((s) => `((${s.sql})::jsonb)`).join(', ')}) s(v) ` +
      `cross join lateral jsonb_populate_record(null::${q(resource.table)}, s.v) ${RECORDED})`,
    [...states.flatMap((s) => s.bindings), ...seen.bindings],
  );
}
