/**
 * Object access as SQL: a declared rule becomes a predicate over the record's row, so lists,
 * details, writes, deletes and foreign-key checks all apply the same rule inside the query.
 * `null` means unrestricted (superusers, or a resource without a rule).
 */
import type { AccessRule } from '../declare/index.js';
import type { Principal } from '../auth/users.js';
import { findForeignKey, findManyToMany, type Resource } from '../registry/resource.js';
import { col, frag, joinFragments, q, type Fragment } from '../storage/sql.js';

type AccessAction = 'view' | 'change';

function compile(resource: Resource, rule: AccessRule, user: Principal, alias: string, depth: number): Fragment {
  if ('any' in rule) return joinFragments(rule.any.map((r) => compile(resource, r, user, alias, depth)), 'or');
  if ('all' in rule) return joinFragments(rule.all.map((r) => compile(resource, r, user, alias, depth)), 'and');
  if ('field' in rule) return frag(`${col(alias, rule.field)} in (${rule.in.map(() => '?').join(', ')})`, [...rule.in]);
  if ('userIs' in rule) {
    const column = rule.userIs === 'created_by' ? 'created_by' : findForeignKey(resource, rule.userIs)!.column;
    return frag(`${col(alias, column)} = ?`, [user.id]);
  }
  if ('userAmong' in rule) {
    const { table, sourceColumn, targetColumn } = findManyToMany(resource, rule.userAmong)!.spec;
    return frag(`exists (select 1 from ${q(table)} j where j.${q(sourceColumn)} = ${alias}.id and j.${q(targetColumn)} = ?)`, [user.id]);
  }
  if ('groupAmong' in rule) {
    const { table, sourceColumn, targetColumn } = findManyToMany(resource, rule.groupAmong)!.spec;
    return frag(
      `exists (select 1 from ${q(table)} j join users_groups ug on ug.group_id = j.${q(targetColumn)} where j.${q(sourceColumn)} = ${alias}.id and ug.user_id = ?)`,
      [user.id],
    );
  }
  const fk = findForeignKey(resource, rule.via)!;
  const inner = fk.target.access[rule.action];
  if (!inner) return frag(`${col(alias, fk.column)} is not null`);
  const parent = `a${depth + 1}`;
  const cond = compile(fk.target, inner, user, parent, depth + 1);
  return frag(`exists (select 1 from ${q(fk.target.table)} ${parent} where ${parent}.id = ${col(alias, fk.column)} and ${cond.sql})`, cond.bindings);
}

/** The predicate a row aliased `alias` must pass for `user` to see (`view`) or change it. */
export function accessPredicate(resource: Resource, action: AccessAction, user: Principal, alias: string): Fragment | null {
  const rule = resource.access[action];
  if (user.isSuperuser || !rule) return null;
  return compile(resource, rule, user, alias, 0);
}

