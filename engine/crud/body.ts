/**
 * Turns a request body into write values: read names accepted as aliases of write names
 * (`tracker` = `tracker_id`), read-only fields dropped so a GET body can be sent back, unknown
 * fields reported (CONTRACT 2). Field types normalise their values first (decimal numbers become text).
 */
import { badRequest, emptyMap, FIELD_MESSAGES, type FieldErrorCollector, type FieldErrors } from '../errors.js';
import { RECORD_FIELDS, type Field, type Resource } from '../registry/resource.js';
import { typeOf } from '../fields/index.js';
import { pyType } from './validator.js';

export type Values = Record<string, unknown>;

/** A body's values and the errors found in it so far; the database checks add theirs before any are answered. */
export interface Validated {
  values: Values;
  errors: FieldErrorCollector;
}

const sameValue = (a: unknown, b: unknown): boolean => JSON.stringify(a) === JSON.stringify(b);

interface BodyPlan {
  /** read name → write name */
  aliases: Map<string, string>;
  writable: Set<string>;
  ignored: Set<string>;
  /** Fields whose type normalises a value before validation. */
  normalised: Field[];
}

const plans = new WeakMap<Resource, BodyPlan>();

function planOf(resource: Resource): BodyPlan {
  let plan = plans.get(resource);
  if (plan) return plan;
  plan = { aliases: new Map(), writable: new Set(['remote_key']), ignored: new Set(RECORD_FIELDS.filter((n) => n !== 'remote_key')), normalised: [] };
  for (const f of resource.fields) {
    (f.writable ? plan.writable : plan.ignored).add(f.name);
    if (typeOf(f.spec).normalise) plan.normalised.push(f);
  }
  for (const r of [...resource.foreignKeys, ...resource.manyToMany]) {
    if (r.spec.readOnly) {
      plan.ignored.add(r.name).add(r.writeName);
    } else {
      plan.writable.add(r.writeName);
      plan.aliases.set(r.name, r.writeName);
    }
  }
  plans.set(resource, plan);
  return plan;
}

export const isObject = (body: unknown): body is Record<string, unknown> => typeof body === 'object' && body !== null && !Array.isArray(body);

/** The body as an object, or 400 `Invalid data. Expected a dictionary, but got list.` (CONTRACT 4). */
export function expectObject(body: unknown): Record<string, unknown> {
  if (!isObject(body)) throw badRequest(`Invalid data. Expected a dictionary, but got ${pyType(body)}.`);
  return body;
}

export function normaliseBody(resource: Resource, body: unknown): { values: Values; errors: FieldErrors } {
  const given = expectObject(body);
  const plan = planOf(resource);
  const values = emptyMap<unknown>();
  const errors: FieldErrors = emptyMap();
  for (const [key, value] of Object.entries(given)) {
    if (plan.ignored.has(key)) continue;
    const writeName = plan.aliases.get(key);
    if (writeName !== undefined) {
      if (Object.hasOwn(given, writeName) && !sameValue(given[writeName], value)) {
        errors[writeName] = [`Conflicting values for "${key}" and "${writeName}".`];
      }
      values[writeName] = value;
    } else if (plan.writable.has(key)) {
      values[key] = value;
    } else {
      errors[key] = [FIELD_MESSAGES.unknown];
    }
  }
  for (const f of plan.normalised) if (f.name in values) values[f.name] = typeOf(f.spec).normalise!(f.spec, values[f.name]);
  return { values, errors };
}
