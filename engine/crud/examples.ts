/**
 * Example values for declared fields: valid by construction (types, bounds, formats). Used by
 * the seed command, the registry-driven tests and the schema's examples.
 */
import type { FieldSpec } from '../declare/index.js';
import type { Resource } from '../registry/resource.js';
import { typeOf } from '../fields/index.js';

/** A valid example value of the field; `n` (from 1) varies it between records. */
export function exampleValue(name: string, spec: FieldSpec, n = 1): unknown {
  return typeOf(spec).example(spec, name, n);
}

/**
 * A fixed example for the schema: plausible, valid like `exampleValue`, and the same on every
 * start (no random part), so the document does not change between starts.
 */
export function documentedValue(name: string, spec: FieldSpec): unknown {
  if ('default' in spec && spec.default !== undefined) return spec.default;
  return typeOf(spec).example(spec, name, 0);
}

/**
 * An example body for `resource` (without foreign keys): every writable field set, state fields
 * in the first of their declared example states, and the fields of record rules given values
 * that satisfy them (ordered pairs, periods that never overlap another example's).
 */
export function exampleBody(resource: Resource, n = 1): Record<string, unknown> {
  const body: Record<string, unknown> = {};
  for (const f of resource.fields) if (f.writable) body[f.name] = exampleValue(f.name, f.spec, n);
  for (const [name, states] of Object.entries(resource.declaration.exampleStates ?? {})) if (states) body[name] = states[0];
  // periods that must not overlap last: they also satisfy any order rule on the same fields
  const rules = [...resource.rules].sort((x, y) => Number(x.kind === 'noOverlap') - Number(y.kind === 'noOverlap'));
  for (const rule of rules) {
    const [a, b] = rule.kind === 'order' ? [rule.earlier, rule.later] : [rule.start, rule.end];
    const type = resource.fields.find((f) => f.name === a)?.spec.type;
    if (rule.kind === 'noOverlap' && (type === 'date' || type === 'datetime')) {
      // the n-th hour (or day) of its own: no two examples overlap, whatever their scope
      const step = type === 'date' ? 86_400_000 : 3_600_000;
      const start = Date.UTC(2026, 2, 1) + n * step;
      const at = (t: number) => (type === 'date' ? new Date(t).toISOString().slice(0, 10) : new Date(t).toISOString());
      [body[a], body[b]] = [at(start), at(start + step)];
      continue;
    }
    const day = String(1 + (n % 28)).padStart(2, '0');
    if (type === 'datetime') [body[a], body[b]] = [`2026-03-${day}T08:00:00.000Z`, `2026-03-${day}T09:00:00.000Z`];
    else if (type === 'date') [body[a], body[b]] = [`2026-03-${day}`, `2026-04-${day}`];
    else if (type === 'time') [body[a], body[b]] = ['08:00:00', '12:00:00'];
    else body[b] = body[a];
  }
  return body;
}

/** The id the documented bodies give a required foreign key: the target's first record (the first start's admin, for users). */
export const FIRST_RECORD = 1;

/**
 * The body the OpenAPI document gives as the request example, so Swagger UI's "Try it out" succeeds
 * on a fresh database: fixed values (`n` = 0), each required foreign key naming its target's first
 * record (created first by that target's own example, or the first start's admin), optional
 * references and links left out, as a record the first start does not create would be refused.
 */
export function documentedBody(resource: Resource): Record<string, unknown> {
  const body = exampleBody(resource, 0);
  for (const fk of resource.foreignKeys) if (fk.required && !fk.spec.readOnly) body[fk.writeName] = FIRST_RECORD;
  return body;
}
