/**
 * Example values for declared fields: valid by construction (types, bounds, formats). Used by
 * the seed command, the registry-driven tests and the schema's examples.
 */
import { randomBytes } from 'node:crypto';
import type { FieldSpec } from '../declare/index.js';
import type { Resource } from '../registry/resource.js';

const suffix = () => randomBytes(4).toString('hex');

export function exampleValue(name: string, spec: FieldSpec, n = 1): unknown {
  switch (spec.type) {
    case 'string':
      return `${name.replace(/_/g, ' ')} ${n}-${suffix()}`.slice(0, spec.maxLength);
    case 'text':
      return `Example ${name.replace(/_/g, ' ')} ${n}.`;
    case 'email':
      return `person${n}-${suffix()}@example.com`;
    case 'url':
      return `https://example.com/${name}/${n}`;
    case 'color':
      return ['blue lighten-2', 'green', 'red darken-1', 'orange'][n % 4];
    case 'integer': {
      const lo = spec.minimum ?? 1;
      const hi = spec.maximum ?? lo + 10;
      return Math.min(hi, lo + (n % Math.max(1, hi - lo + 1)));
    }
    case 'decimal': {
      const v = Math.max(spec.minimum ?? 0, Math.min(spec.maximum ?? 10 ** (spec.digits - spec.decimals) - 1, 12.5 * n));
      return v.toFixed(spec.decimals);
    }
    case 'boolean':
      return n % 2 === 1;
    case 'date':
      return `2026-03-${String(1 + (n % 28)).padStart(2, '0')}`;
    case 'datetime':
      return `2026-03-${String(1 + (n % 28)).padStart(2, '0')}T09:00:00.000Z`;
    case 'time':
      return '08:30:00';
    case 'json':
      return spec.default ?? (spec.schema.type === 'array' ? [] : {});
    case 'enum':
      return spec.values[n % spec.values.length];
    case 'state':
      return spec.initial[n % spec.initial.length];
    case 'password':
      return `example-password-${suffix()}`;
    case 'permissions':
      return [];
  }
}

/**
 * A fixed example for the schema: plausible, valid like `exampleValue`, and the same on every
 * start (no random part), so the document does not change between starts.
 */
export function documentedValue(name: string, spec: FieldSpec): unknown {
  const words = name.replace(/_/g, ' ');
  if ('default' in spec && spec.default !== undefined) return spec.default;
  if (spec.type === 'string') return `Example ${words}`.slice(0, spec.maxLength);
  if (spec.type === 'text') return `Example ${words}.`;
  if (spec.type === 'email') return 'anna.keller@example.com';
  return exampleValue(name, spec);
}

/**
 * An example body for `resource` (without foreign keys): every writable field set, and the
 * fields of record rules given values that satisfy them (ordered pairs, periods that never
 * overlap another example's, no answers).
 */
export function exampleBody(resource: Resource, n = 1): Record<string, unknown> {
  const body: Record<string, unknown> = {};
  for (const f of resource.fields) if (f.writable) body[f.name] = exampleValue(f.name, f.spec, n);
  // periods that must not overlap last: they also satisfy any order rule on the same fields
  const rules = [...resource.rules].sort((x, y) => Number(x.kind === 'noOverlap') - Number(y.kind === 'noOverlap'));
  for (const rule of rules) {
    if (rule.kind === 'answers') {
      // no answers yet, in a state that needs none, fit whatever questions the parent has
      body[rule.field] = {};
      if (rule.exceptIn) body[rule.exceptIn.field] = rule.exceptIn.states[0];
      continue;
    }
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
