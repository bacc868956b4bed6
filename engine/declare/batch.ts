/**
 * A batch action over many records of one resource, e.g. `POST /api/dms/batch_move`
 * (CONTRACT 10): one transaction, all or nothing, at most `maxIds` ids, each id visible to the
 * caller, the resource's `permission` required. The engine serves and documents it.
 */
export type BatchOperation =
  /** Set fields to fixed values: `{ archived: true }`. */
  | { readonly kind: 'set'; readonly values: Readonly<Record<string, unknown>> }
  /** Set a foreign key to the id given in the body under its write name (`folder_id`). */
  | { readonly kind: 'setForeignKey'; readonly relation: string }
  | { readonly kind: 'delete' };

export interface BatchDeclaration {
  readonly module: string;
  /** Path segment: `batch_move` → `/api/<module>/batch_move`. */
  readonly name: string;
  /** Resource key of the records, e.g. `dms/document`; ids come as `<name>_ids` (`document_ids`). */
  readonly resource: string;
  readonly operation: BatchOperation;
  /** Model permission needed: `change` or `delete` of the resource. */
  readonly permission: 'change' | 'delete';
  /** Key of the count in the 200 answer: `{"moved": 3}`. */
  readonly resultKey: string;
  readonly maxIds?: number;
  readonly description: string;
}

export function defineBatch(declaration: BatchDeclaration): BatchDeclaration {
  return declaration;
}
