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
import { findForeignKey, findManyToMany, type Resource } from '../registry/resource.js';
import { col, frag, joinFragments, q, type Fragment } from '../storage/sql.js';

export type AccessAction = 'view' | 'change';

/** Whose access a rule is compiled for: a user (with the groups they belong to), or one group alone. */
export type Subject = { readonly kind: 'user'; readonly id: number } | { readonly kind: 'group'; readonly id: number };

/** `column` names one of the subject's groups. */
function inGroups(subject: Subject, column: string): Fragment {
  if (subject.kind === 'group') return frag(`${column} = ?`, [subject.id]);
  return frag(`${column} in (select ug.group_id from users_groups ug where ug.user_id = ?)`, [subject.id]);
}

/** `column` is the subject itself; a group is nobody's user id. */
const isUser = (subject: Subject, column: string): Fragment => (subject.kind === 'user' ? frag(`${column} = ?`, [subject.id]) : frag('false'));

function compile(resource: Resource, rule: AccessRule, subject: Subject, alias: string, depth: number): Fragment {
  if ('any' in rule) return joinFragments(rule.any.map((r) => compile(resource, r, subject, alias, depth)), 'or');
  if ('all' in rule) return joinFragments(rule.all.map((r) => compile(resource, r, subject, alias, depth)), 'and');
  if ('field' in rule) return frag(`${col(alias, rule.field)} in (${rule.in.map(() => '?').join(', ')})`, [...rule.in]);
  if ('userIs' in rule) {
    const column = rule.userIs === 'created_by' ? 'created_by' : findForeignKey(resource, rule.userIs)!.column;
    return isUser(subject, col(alias, column));
  }
  if ('userAmong' in rule || 'groupAmong' in rule) {
    const name = 'userAmong' in rule ? rule.userAmong : rule.groupAmong;
    const { table, sourceColumn, targetColumn } = findManyToMany(resource, name)!.spec;
    const member = 'userAmong' in rule ? isUser(subject, `j.${q(targetColumn)}`) : inGroups(subject, `j.${q(targetColumn)}`);
    return frag(`exists (select 1 from ${q(table)} j where j.${q(sourceColumn)} = ${alias}.id and ${member.sql})`, member.bindings);
  }
  const fk = findForeignKey(resource, rule.via)!;
  const inner = fk.target.access[rule.action];
  if (!inner) return frag(`${col(alias, fk.column)} is not null`);
  const parent = `a${depth + 1}`;
  const cond = compile(fk.target, inner, subject, parent, depth + 1);
  return frag(`exists (select 1 from ${q(fk.target.table)} ${parent} where ${parent}.id = ${col(alias, fk.column)} and ${cond.sql})`, cond.bindings);
}

/** The predicate a row aliased `alias` must pass for `subject`; null when the resource has no such rule. */
export function subjectPredicate(resource: Resource, action: AccessAction, subject: Subject, alias: string): Fragment | null {
  const rule = resource.access[action];
  return rule ? compile(resource, rule, subject, alias, 0) : null;
}

/** The predicate a row aliased `alias` must pass for `user` to see (`view`) or change it. */
export function accessPredicate(resource: Resource, action: AccessAction, user: Principal, alias: string): Fragment | null {
  if (user.isSuperuser) return null;
  return subjectPredicate(resource, action, { kind: 'user', id: user.id }, alias);
}
