/**
 * Relation declarations. A foreign key `x` is written as `x_id` and read as `x`; a many-to-many
 * `xs` is written as its `writeName` (`x_ids`) and read as `xs`, an ascending array of ids.
 * Targets are resource keys (`issue/tracker`, `user`), checked when the registry boots.
 */

/** What deleting the target does to records pointing at it. */
export type DeleteRule = 'protect' | 'cascade' | 'set null';

interface ForeignKeyCommon {
  kind: 'fk';
  /** Resource key of the target, e.g. `issue/tracker`. */
  target: string;
  description: string;
  /** What the admin app calls the relation (default: its name in words). */
  label?: string;
  /** What the admin app calls the relation for a browser that prefers German (default: `label`). */
  labelDe?: string;
  readOnly?: boolean;
  /** A list filter named after the relation (default true). */
  filter?: boolean;
  /** Allowed in an aggregate's `group_by` (default true). */
  groupable?: boolean;
  /** The target is this resource and the links must not form a cycle. */
  tree?: boolean;
  /** The user the record is assigned to: the admin app's dashboard lists the signed-in user's records by it. */
  assignee?: boolean;
  /** Field-level permissions, as a field's (declare/fields.ts). */
  read?: string;
  write?: string;
}
/** A required key cannot be set to null, so deleting its target cannot `set null`. */
export type ForeignKey = ForeignKeyCommon &
  ({ required: true; onDelete: 'protect' | 'cascade' } | { required?: false; onDelete: DeleteRule });

/** A many-to-many as compiled: its join table named (declared, or by convention). */
export interface ManyToMany {
  kind: 'm2m';
  target: string;
  description: string;
  /** What the admin app calls the relation (default: its name in words). */
  label?: string;
  /** What the admin app calls the relation for a browser that prefers German (default: `label`). */
  labelDe?: string;
  /** Name of the write field, e.g. `category_ids`. */
  writeName: string;
  /** Join table with a composite primary key (sourceColumn, targetColumn). */
  table: string;
  sourceColumn: string;
  targetColumn: string;
  readOnly?: boolean;
  /** A list filter named after the relation: records linked to the given id (default true). */
  filter?: boolean;
  /**
   * Linked records must share a parent with this record: `{ local: 'tracker', remote: 'tracker' }`
   * means each target's `tracker` must equal this record's `tracker`.
   */
  sameParent?: { local: string; remote: string };
  /**
   * Linking hands out rights (a user's groups, a group's members): only callers holding everything
   * each added or removed record holds may change the links (see engine/access/privileges.ts).
   */
  privileged?: boolean;
  /** Field-level permissions, as a field's (declare/fields.ts). */
  read?: string;
  write?: string;
}

/**
 * A many-to-many as declared. The join table defaults to `<table>_<relation>`
 * (`issue_issue_categories`), its columns to `<resource>_id` and `<target resource>_id`
 * (`issue_id`, `category_id`); declare them only where a table predates the convention.
 */
export type ManyToManyDeclaration = Omit<ManyToMany, 'table' | 'sourceColumn' | 'targetColumn'> &
  Partial<Pick<ManyToMany, 'table' | 'sourceColumn' | 'targetColumn'>>;

export type RelationSpec = ForeignKey | ManyToManyDeclaration;

type FkOptions = Omit<ForeignKeyCommon, 'kind' | 'target'> &
  ({ required: true; onDelete: 'protect' | 'cascade' } | { required?: false; onDelete: DeleteRule });

export const fk = (target: string, o: FkOptions): ForeignKey => ({ kind: 'fk', target, ...o });
export const m2m = (target: string, o: Omit<ManyToManyDeclaration, 'kind' | 'target'>): ManyToManyDeclaration => ({
  kind: 'm2m',
  target,
  ...o,
});
