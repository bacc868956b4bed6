/**
 * Checks a resource's object-access declaration when the registry boots: every name a rule uses,
 * inline rules on the resources they reach, inheritance up a tree, and that no rule follows
 * itself through `via … action` (its SQL would never end). Throws a message naming the rule.
 */
import type { AccessRule } from '../declare/index.js';
import type { AccessAction } from '../access/visibility.js';
import { PRINCIPALS, findField, findForeignKey, findManyToMany, type Resource } from './resource.js';

type Fail = (message: string) => never;

const failWith =
  (prefix: string): Fail =>
  (message) => {
    throw new Error(`${prefix}${message}`);
  };

/** Where an inline rule is checked: its resource, and a failure that says how the rule got there. */
const inside = (fail: Fail, how: string, target: Resource): Fail => (message) => fail(`${how} → "${target.key}": ${message}`);

function checkField(on: Resource, rule: Extract<AccessRule, { field: string }>, fail: Fail): void {
  const f = findField(on, rule.field);
  if (!f?.column) fail(`"${rule.field}" is not a stored field.`);
  const s = f.spec;
  if (s.type === 'enum' || s.type === 'state') {
    for (const v of rule.in) if (!s.values.includes(v as string)) fail(`"${rule.field}" has no value ${JSON.stringify(v)}.`);
  } else if (s.type === 'boolean') {
    if (rule.in.some((v) => typeof v !== 'boolean')) fail(`"${rule.field}" is boolean: list true and/or false.`);
  } else fail(`"${rule.field}" must be an enum, state or boolean field.`);
}

function checkRule(on: Resource, rule: AccessRule, fail: Fail): void {
  if ('any' in rule || 'all' in rule) {
    const parts = 'any' in rule ? rule.any : rule.all;
    if (!parts.length) fail(`an empty "${'any' in rule ? 'any' : 'all'}".`);
    return parts.forEach((r) => checkRule(on, r, fail));
  }
  if ('field' in rule) return checkField(on, rule, fail);
  if ('unset' in rule) {
    const fk = findForeignKey(on, rule.unset);
    const f = findField(on, rule.unset);
    if (fk ? fk.required : !(f?.column && f.nullable)) fail(`"${rule.unset}" is neither an optional foreign key nor a nullable field.`);
    // the audit trail keeps served values only (engine/audit/capture-triggers.ts): a missing one would read as empty
    if (f && !f.readable) fail(`"${rule.unset}" is not served, so the audit trail could not judge its past.`);
    return;
  }
  if ('current' in rule) {
    const types = [rule.current.start, rule.current.end].map((n) => findField(on, n)?.spec.type);
    if (!(types[0] === types[1] && (types[0] === 'date' || types[0] === 'datetime'))) fail(`"current" needs two date fields or two date-time fields.`);
    return;
  }
  if ('userIs' in rule) {
    if (rule.userIs !== 'created_by' && findForeignKey(on, rule.userIs)?.target.key !== PRINCIPALS.user) fail(`"${rule.userIs}" is not a foreign key to user.`);
    return;
  }
  if ('userAmong' in rule) {
    if (findManyToMany(on, rule.userAmong)?.target.key !== PRINCIPALS.user) fail(`"${rule.userAmong}" is not a many-to-many to user.`);
    return;
  }
  if ('groupAmong' in rule) {
    if (findManyToMany(on, rule.groupAmong)?.target.key !== PRINCIPALS.group) fail(`"${rule.groupAmong}" is not a many-to-many to customgroup.`);
    return;
  }
  if ('among' in rule) {
    const m = findManyToMany(on, rule.among) ?? fail(`"${rule.among}" is not a many-to-many.`);
    return checkRule(m.target, rule.rule, inside(fail, `among "${rule.among}"`, m.target));
  }
  if ('referencedBy' in rule) {
    const ref = on.referencedBy.find((r) => r.resource.key === rule.referencedBy && r.fk.name === rule.by);
    if (!ref) fail(`"${rule.referencedBy}" has no foreign key "${rule.by}" to "${on.key}".`);
    return checkRule(ref.resource, rule.rule, inside(fail, `referencedBy "${rule.referencedBy}"`, ref.resource));
  }
  const fk = findForeignKey(on, rule.via) ?? fail(`"${rule.via}" is not a foreign key.`);
  if ('rule' in rule) return checkRule(fk.target, rule.rule, inside(fail, `via "${rule.via}"`, fk.target));
  if (!fk.target.access[rule.action] && rule.action === 'view') fail(`"${fk.target.key}" has no ${rule.action} rule to follow.`);
}

/** Checks the resource's `access` declaration; throws naming the rule and what is wrong. */
export function checkAccess(resource: Resource): void {
  const { inherit } = resource.access;
  if (inherit) {
    const fail = failWith('inherit: ');
    const parent = findForeignKey(resource, inherit.parent);
    if (!parent?.spec.tree || parent.target !== resource) fail(`"${inherit.parent}" is not a tree foreign key of the resource.`);
    if (findField(resource, inherit.when)?.spec.type !== 'boolean') fail(`"${inherit.when}" is not a boolean field.`);
  }
  for (const action of ['view', 'change'] as const) {
    const rule = resource.access[action];
    if (rule) checkRule(resource, rule, failWith(`${action}: `));
  }
}

/** The rules `rule` (on `on`) follows through `via … action`, inline rules included. */
function followed(on: Resource, rule: AccessRule): [Resource, AccessAction, string][] {
  if ('any' in rule) return rule.any.flatMap((r) => followed(on, r));
  if ('all' in rule) return rule.all.flatMap((r) => followed(on, r));
  if ('among' in rule) return followed(findManyToMany(on, rule.among)!.target, rule.rule);
  if ('referencedBy' in rule) return followed(on.referencedBy.find((r) => r.resource.key === rule.referencedBy && r.fk.name === rule.by)!.resource, rule.rule);
  if (!('via' in rule)) return [];
  const target = findForeignKey(on, rule.via)!.target;
  if ('rule' in rule) return followed(target, rule.rule);
  return target.access[rule.action] ? [[target, rule.action, rule.via]] : [];
}

/** Throws when one of the resource's rules comes back to itself through `via … action` (its SQL would never end). */
export function checkAccessCycles(resource: Resource): void {
  const done = new Set<string>();
  const visit = (on: Resource, action: AccessAction, path: string[]): void => {
    const key = `"${on.key}" ${action}`;
    if (path.includes(key)) throw new Error(`${path[0]} follows itself: ${[...path, key].join(' → ')}.`);
    if (done.has(key)) return;
    for (const [target, next, via] of followed(on, on.access[action]!)) visit(target, next, [...path, key, `via "${via}"`]);
    done.add(key);
  };
  for (const action of ['view', 'change'] as const) if (resource.access[action]) visit(resource, action, []);
}
