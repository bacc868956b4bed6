/**
 * A resource declaration: everything the engine needs to serve `/api/<module>/<name>`.
 * `defineResource` only checks the declaration's shape at compile time and returns it;
 * the registry checks cross-references (targets, rule fields) when the service boots.
 */
import type { FieldSpec } from './fields.js';
import type { ResourceHooks } from './hooks.js';
import type { RelationSpec } from './relations.js';
import type { ScheduleDeclaration } from './schedules.js';

/**
 * Object-access rules, compiled to SQL predicates over the record's row. Superusers pass all.
 * Keys name the resource's own fields and relations; an inline `rule` reached through a relation
 * names the keys of the resource at the other end.
 */
export type AccessRule<K extends string = string> =
  | { readonly any: readonly AccessRule<K>[] }
  | { readonly all: readonly AccessRule<K>[] }
  /** The field's value (an enum, state or boolean field) is one of these. */
  | { readonly field: K; readonly in: readonly (string | boolean)[] }
  /** This foreign key (or nullable field) is empty. */
  | { readonly unset: K }
  /** Today lies within the period of these two date (or date-time) fields; an empty bound is open. */
  | { readonly current: { readonly start: K; readonly end: K } }
  /** This foreign key to `user` is the caller. */
  | { readonly userIs: K }
  /** This many-to-many to `user` contains the caller. */
  | { readonly userAmong: K }
  /** This many-to-many to `customgroup` contains one of the caller's groups. */
  | { readonly groupAmong: K }
  /** The record this foreign key points at passes its resource's rule for `action`. */
  | { readonly via: K; readonly action: 'view' | 'change' }
  /** The record this foreign key points at passes `rule`. */
  | { readonly via: K; readonly rule: AccessRule }
  /** Some record linked through this many-to-many passes `rule`. */
  | { readonly among: K; readonly rule: AccessRule }
  /** Some record of resource `referencedBy` whose foreign key `by` points at this record passes `rule`. */
  | { readonly referencedBy: string; readonly by: string; readonly rule: AccessRule };

export interface ObjectAccess<K extends string = string> {
  /** Who sees a record beyond superusers; others get 404 and never find it in a list. */
  readonly view?: AccessRule<K>;
  /** Who may change or delete a record they can see; others get 403. */
  readonly change?: AccessRule<K>;
  /**
   * While the boolean field `when` is true and the tree foreign key `parent` is set, the record takes
   * its access from its parent, up the tree: every rule evaluated on this resource (its own, and
   * those other resources apply to it through a relation) is evaluated on the nearest ancestor-or-self
   * that does not inherit. Its own values of the fields the rules read are then ignored.
   */
  readonly inherit?: { readonly parent: K; readonly when: K };
}

/** Cross-field rules checked on every write, inside its transaction. */
export type RecordRule<K extends string = string> =
  /** `later` must not be before `earlier` when both are set (400 under `later`). */
  | { readonly kind: 'order'; readonly earlier: K; readonly later: K }
  /** Records with the same `scope` must not have overlapping [start, end) periods (400 under `start`). */
  | { readonly kind: 'noOverlap'; readonly scope: K; readonly start: K; readonly end: K };

export interface ResourceDeclaration<
  F extends Record<string, FieldSpec> = Record<string, FieldSpec>,
  R extends Record<string, RelationSpec> = Record<string, RelationSpec>,
> {
  /** Module the resource belongs to: its tag, path segment and default permission app. */
  readonly module: string;
  /** Resource segment of the path (`lesson-progress`). */
  readonly name: string;
  /** Path when it is not `/api/<module>/<name>` (e.g. `/api/user`). */
  readonly path?: string;
  /** `manage seed --<option> N` creates N demo records of this resource (else `default`). */
  readonly seed?: { readonly option: string; readonly default: number };
  /** Old paths of this resource: every method there answers 301 to the current path. */
  readonly deprecatedPaths?: readonly `/api/${string}`[];
  /** Table name when it is not the convention `<module>_<name>` (hyphens as underscores): an existing table's. */
  readonly table?: string;
  /** Human title for documentation, e.g. `Employee (Mitarbeitende)`. */
  readonly title: string;
  /** The title for a browser that prefers German, e.g. `Mitarbeitende` (default: `title`). */
  readonly titleDe?: string;
  readonly description: string;
  /** Permission app label and model name when they differ from module and name. */
  readonly permission?: { readonly app?: string; readonly model?: string };
  /**
   * Permissions beyond the four model ones, codename → what it allows (`view_private_data`); named
   * `<app>.<codename>`, grantable to groups, and the only names besides those that fields' `read`
   * and `write` may use.
   */
  readonly extraPermissions?: Readonly<Record<string, string>>;
  readonly fields: F;
  readonly relations?: R & { readonly [K in keyof F]?: never };
  /** Default list order (`['-created']`); ties are always broken by id. */
  readonly ordering?: readonly NoInfer<`${'' | '-'}${keyof F & string}`>[];
  readonly access?: ObjectAccess<NoInfer<(keyof F | keyof R | 'created_by') & string>>;
  readonly rules?: readonly RecordRule<NoInfer<(keyof F | keyof R) & string>>[];
  /** Rules that are code (declare/hooks.ts), run inside every write's transaction. */
  readonly hooks?: ResourceHooks<NoInfer<(keyof F | keyof R) & string>>;
  /**
   * The admin app's list columns, in order (default: id, the record's label field, then up to four
   * choice, date, number and foreign-key fields in declaration order).
   */
  readonly listColumns?: readonly NoInfer<(keyof F | keyof R | 'id' | 'created' | 'modified') & string>[];
  /**
   * The field that names a record in the admin app's headings and pickers (default: the first of
   * `title`, `name`, `username`, `label`, `number` it has; none: records are named by id).
   */
  readonly recordLabel?: NoInfer<keyof F & string>;
  /**
   * Per state field, the states example records (the seed's demo records, the registry-driven
   * tests' bodies) keep to, e.g. drafts when a hook asks more of other states than examples hold.
   * The first is where they start: an initial state.
   */
  readonly exampleStates?: { readonly [N in keyof F]?: readonly string[] };
  /** true: records carry a list of attached files (`attachments`, uploaded at `<record>/attachments`; engine/files). */
  readonly attachments?: boolean;
  /** false: out of the MCP tools' reach (`/mcp` neither describes, lists, reads nor writes it); default true. */
  readonly mcp?: boolean;
  /** Jobs run on a schedule (declare/schedules.ts), named `<module>.<name>.<job name>`. */
  readonly schedules?: readonly ScheduleDeclaration[];
  /** Webhook events beyond created, updated, deleted and state_changed, sent by the schedules (`review_due`). */
  readonly events?: readonly string[];
  /**
   * true: a delete moves the record to the trash (`/api/trash`, engine/history/), from which it can
   * be restored with its links until purged; default false (a delete is final).
   */
  readonly trash?: boolean;
}

declare const declaredTypes: unique symbol;

/** A declaration that still knows its fields and relations, for what is typed by them (declare/demo.ts); never set. */
export type DeclaredResource<F, R> = ResourceDeclaration & { readonly [declaredTypes]?: { fields: F; relations: R } };

export function defineResource<
  const F extends Record<string, FieldSpec>,
  const R extends Record<string, RelationSpec> = Record<never, RelationSpec>,
>(declaration: ResourceDeclaration<F, R>): DeclaredResource<F, R> {
  return declaration as unknown as DeclaredResource<F, R>;
}
