/** The compiled form of a declaration: names resolved, relations linked, defaults applied. */
import type { FieldSpec, ForeignKey, ManyToMany, ResourceDeclaration, ObjectAccess, RecordRule, BatchDeclaration } from '../declare/index.js';
import type { EngineTableDeclaration, RecordColumn } from '../declare/engine-table.js';

export type Action = 'view' | 'add' | 'change' | 'delete';
export const ACTIONS: readonly Action[] = ['view', 'add', 'change', 'delete'];

/** Present on every record (CONTRACT 2); never declared. */
export const RECORD_FIELDS = ['id', 'uuid', 'created', 'modified', 'created_by', 'remote_key'] as const;
/** The record columns but id, which every table has. */
export const RECORD_COLUMNS: readonly RecordColumn[] = ['uuid', 'created', 'modified', 'created_by', 'remote_key'];

/** The engine's identity model: the resources that access rules name as users and as groups. */
export const PRINCIPALS = { user: 'user', group: 'customgroup' } as const;

export interface Field {
  name: string;
  spec: FieldSpec;
  /** null for derived fields, which have no column. */
  column: string | null;
  nullable: boolean;
  writable: boolean;
  /** Served in responses (false for passwords). */
  readable: boolean;
  /** Recorded by the change capture (audit trail, webhooks): served and not bookkeeping. */
  recorded: boolean;
  /** Has a list filter of its own name. */
  filterable: boolean;
  orderable: boolean;
}

export interface Reference {
  name: string;
  writeName: string;
  target: Resource;
}
export interface ForeignKeyRef extends Reference {
  kind: 'fk';
  column: string;
  spec: ForeignKey;
  required: boolean;
}
export interface ManyToManyRef extends Reference {
  kind: 'm2m';
  spec: ManyToMany;
}

export interface Resource {
  key: string;
  path: string;
  module: string;
  name: string;
  table: string;
  title: string;
  description: string;
  /** Prefix of operation ids: `organisation_mitarbeitende`, `user`. */
  operationPrefix: string;
  permissions: Record<Action, string>;
  /** The actions it serves (all four, but `view` only for a read-only engine table); each has its permission name. */
  actions: readonly Action[];
  /** The record columns its table has beside id (all of RECORD_COLUMNS for a module's). */
  recordColumns: readonly RecordColumn[];
  /** Set for a table of the engine's own (declare/engine-table.ts). */
  engineTable: EngineTableDeclaration | undefined;
  /** The declaration's `extraPermissions` as full names (`organisation.view_private_data`). */
  extraPermissions: string[];
  fields: Field[];
  foreignKeys: ForeignKeyRef[];
  manyToMany: ManyToManyRef[];
  ordering: string[];
  access: ObjectAccess;
  rules: readonly RecordRule[];
  /** Foreign keys of other resources (or this one) that point here. */
  referencedBy: { resource: Resource; fk: ForeignKeyRef }[];
  declaration: ResourceDeclaration;
}

/** The permission `action` on `resource` needs; undefined for a table of the modules' records, whose records' own decide (declare/engine-table.ts). */
export const permissionOf = (resource: Resource, action: Action): string | undefined =>
  resource.engineTable?.permissionsOfRecords === undefined ? resource.permissions[action] : undefined;

/** The permission names of the actions `resource` serves. */
export const permissionNamesOf = (resource: Resource): string[] => [...resource.actions.flatMap((a) => permissionOf(resource, a) ?? []), ...resource.extraPermissions];

export function findField(resource: Resource, name: string): Field | undefined {
  return resource.fields.find((f) => f.name === name);
}
export function findForeignKey(resource: Resource, name: string): ForeignKeyRef | undefined {
  return resource.foreignKeys.find((r) => r.name === name);
}
export function findManyToMany(resource: Resource, name: string): ManyToManyRef | undefined {
  return resource.manyToMany.find((r) => r.name === name);
}

/** A batch action (CONTRACT 10), linked to its resource. */
export interface Batch {
  path: string;
  /** Operation id, e.g. `dms_batch_move`. */
  operationId: string;
  resource: Resource;
  /** Body field with the record ids: `<resource name>_ids`. */
  idsField: string;
  /** For `setForeignKey`: the relation set from the body. */
  foreignKey: ForeignKeyRef | undefined;
  permission: string;
  maxIds: number;
  declaration: BatchDeclaration;
}
