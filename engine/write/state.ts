/**
 * Rule (`state` fields): a new record starts in a declared initial state; a change moves along a
 * declared transition. Diagnostics: the state asked for, and the state it would move from.
 * Checked in the process against the record as served (the statement guards the same in SQL).
 */
import type { StateField } from '../declare/fields.js';
import type { FieldErrorCollector } from '../errors.js';
import type { Field, Resource } from '../registry/resource.js';

export interface BadStart {
  to: string;
}
export interface BadMove {
  from: string;
  to: string;
}

export const badStart = (spec: StateField, { to }: BadStart): string => `"${to}" is not a valid initial state; use one of: ${spec.initial.join(', ')}.`;

export const badMove = ({ from, to }: BadMove): string => `Transition from "${from}" to "${to}" is not allowed.`;

/** A state a write sets: from null on create. */
export interface StateMove {
  field: Field;
  from: string | null;
  to: string;
}

export const stateFields = (resource: Resource): Field[] => resource.fields.filter((f) => f.spec.type === 'state');

/** The fields of the record as it was that checkStates reads. */
export const stateReads = (resource: Resource): string[] => stateFields(resource).map((f) => f.name);

/** Files the errors of `values`' states written over `existing` (none: a create, which starts in an initial state); answers the moves. */
export function checkStates(c: { errors: FieldErrorCollector; existing: Record<string, unknown> | undefined }, resource: Resource, values: Record<string, unknown>): StateMove[] {
  const moves: StateMove[] = [];
  for (const f of resource.fields) {
    const s = f.spec;
    if (s.type !== 'state' || c.errors.has(f.name)) continue;
    if (!c.existing) {
      const to = (values[f.name] as string | undefined) ?? s.default;
      if (!s.initial.includes(to)) c.errors.add(f.name, badStart(s, { to }));
      else moves.push({ field: f, from: null, to });
      continue;
    }
    const from = c.existing[f.name] as string;
    const to = values[f.name] as string | undefined;
    if (to === undefined || to === from) continue;
    if (!(s.transitions[from] ?? []).includes(to)) c.errors.add(f.name, badMove({ from, to }));
    else moves.push({ field: f, from, to });
  }
  return moves;
}
