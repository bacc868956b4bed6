/**
 * Demo data (`manage seed --demo`): a module file's `demo` export, a few plausible rows per
 * resource written as plain data. A row names only what makes it plausible; the seed fills the
 * rest from the field types. A foreign key names the referenced row by its `key` or its label
 * (`tracker: 'Qualitätsmeldungen'`, a user by username), a many-to-many names a list of them, and a
 * state field names the state the row ends in (reached through declared transitions). Rows are
 * typed by their resource's declaration: an unknown field, a wrong type or an undeclared enum
 * value is a compile error.
 */
import type { FieldSpec } from './fields.js';
import type { RelationSpec } from './relations.js';
import type { DeclaredResource, ResourceDeclaration } from './resource.js';

/** What a demo row may give a field: its write value, a choice among the declared values. */
type DemoValue<S> = S extends { type: 'enum' | 'state'; values: readonly (infer V)[] }
  ? V
  : S extends { type: 'integer' }
    ? number
    : S extends { type: 'decimal' }
      ? string | number
      : S extends { type: 'boolean' }
        ? boolean
        : S extends { type: 'json' }
          ? unknown
          : S extends { type: 'permissions' }
            ? readonly string[]
            : S extends { type: 'file' | 'attachments' }
              ? never
              : string;

/** A reference: the `key` or label of a demo row of the target (a user's username). */
type DemoReference<S> = S extends { kind: 'fk' } ? string : readonly string[];

export type DemoRow<F, R> = {
  /** Names the row for references and makes it one record (its remote_key `demo:<resource>:<key>`); default its label, else its position. */
  readonly key?: string;
} & { readonly [K in keyof F as F[K] extends { readOnly: true } | { derived: object } ? never : K]?: DemoValue<F[K]> | null } & { readonly [K in keyof R]?: DemoReference<R[K]> | null };

/** A resource's demo rows, as the registry reads them. */
export interface DemoRows {
  readonly resource: ResourceDeclaration;
  readonly rows: readonly Readonly<Record<string, unknown>>[];
}

/** `demoRows(issue, [{ title: 'Defekte Stanze', state: 'active', tracker: 'Produktion' }])`. */
export function demoRows<F extends Record<string, FieldSpec>, R extends Record<string, RelationSpec>>(
  resource: DeclaredResource<F, R>,
  rows: readonly DemoRow<F, R>[],
): DemoRows {
  return { resource, rows };
}
