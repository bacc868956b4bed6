/**
 * Rule (`onDelete: 'protect'`): a record that protecting foreign keys still point at is not
 * deleted (409). Diagnostic: the record, and how many records of which resource hold it; without
 * one (a database refusal) the records deleted are named as a whole.
 */
export interface StillReferenced {
  id: unknown;
  count: number;
  by: string;
}

export const stillReferenced = (resource: string, { id, count, by }: StillReferenced): string => `Cannot delete ${resource} ${String(id)}: referenced by ${count} ${by} records.`;

export const referencedByOthers = (deleting: string): string => `Cannot delete ${deleting}: referenced by other records.`;
