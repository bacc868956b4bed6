/** Rule `order`: `later` is not before `earlier` when both are set. Reported under `later`; compared in the process. */
import type { RecordRule } from '../declare/index.js';
import type { FieldErrorCollector } from '../errors.js';
import { typeOf } from '../fields/index.js';
import { findField, type Field, type Resource } from '../registry/resource.js';

type OrderRule = Extract<RecordRule, { kind: 'order' }>;

export const outOfOrder = (rule: OrderRule): string => `Must not be before ${rule.earlier}.`;

/** A value as its field's type compares it (a rule names declared fields only). */
const comparable = (field: Field | undefined, v: unknown): number | string => (field ? typeOf(field.spec).compare(v) : String(v));

/** The fields of the record as it was that checkOrder reads. */
export const orderReads = (rule: OrderRule): string[] => [rule.earlier, rule.later];

/** Files `outOfOrder` when `values` written over `existing` (the record as served; none for a create) break the rule. */
export function checkOrder(c: { errors: FieldErrorCollector; existing: Record<string, unknown> | undefined }, resource: Resource, rule: OrderRule, values: Record<string, unknown>): void {
  const next = (name: string): unknown => (name in values ? values[name] : c.existing?.[name]);
  const [a, b] = [next(rule.earlier), next(rule.later)];
  if (a == null || b == null || c.errors.has(rule.earlier) || c.errors.has(rule.later)) return;
  if (comparable(findField(resource, rule.later), b) < comparable(findField(resource, rule.earlier), a)) c.errors.add(rule.later, outOfOrder(rule));
}
